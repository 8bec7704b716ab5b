//! The one place that turns a name like `connect4:rows=6,cols=7` into a game.
//!
//! Generic code is written once over `G: Game`; [`AnyGame`] holds the initial position of
//! whichever game was named, and [`with_game!`](crate::with_game) calls generic code with
//! the concrete type.

use std::collections::BTreeMap;

use crate::chess::Chess;
use crate::connect_four::ConnectFour;
use crate::error::GameError;
use crate::go::Go;
use crate::gomoku::Gomoku;
use crate::oware::Oware;
use crate::pushfight::PushFight;
use crate::tic_tac_toe::TicTacToe;

/// The registry names users type, in the order help lists them.
pub const GAME_NAMES: &[&str] = &[
    "tictactoe",
    "connect4",
    "gomoku",
    "oware",
    "go",
    "pushfight",
    "chess",
];

/// The initial position of a game named on the command line or in a config.
// Built once per name, so a large variant (chess keeps ~1 KB of repetition history) costs
// nothing; boxing it would hand `with_game!` bodies a `Box` instead of the game type.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum AnyGame {
    /// `tictactoe`
    TicTacToe(TicTacToe),
    /// `connect4[:rows=R,cols=C,k=K]`
    ConnectFour(ConnectFour),
    /// `go[:size=N,komi=K,max_moves=M]`
    Go(Go),
    /// `chess[:max_plies=N]`
    Chess(Chess),
    /// `gomoku[:size=N]`
    Gomoku(Gomoku),
    /// `oware[:repetition=B,max_turns=N]`
    Oware(Oware),
    /// `pushfight[:max_plies=N]`
    PushFight(PushFight),
}

/// Calls `$body` with `$g` bound to the concrete initial position inside an [`AnyGame`].
///
/// ```
/// use zerosum_games::{registry::parse_game, with_game, Game};
/// let game = parse_game("connect4:rows=5,cols=6").unwrap();
/// let actions = with_game!(game, g => g.num_actions());
/// assert_eq!(actions, 6);
/// ```
#[macro_export]
macro_rules! with_game {
    ($any:expr, $g:ident => $body:expr) => {
        match $any {
            $crate::registry::AnyGame::TicTacToe($g) => $body,
            $crate::registry::AnyGame::ConnectFour($g) => $body,
            $crate::registry::AnyGame::Go($g) => $body,
            $crate::registry::AnyGame::Chess($g) => $body,
            $crate::registry::AnyGame::Gomoku($g) => $body,
            $crate::registry::AnyGame::Oware($g) => $body,
            $crate::registry::AnyGame::PushFight($g) => $body,
        }
    };
}

/// The `key=value` pairs of a parameter list (`rows=6, cols=7`), trimmed, empty entries
/// skipped; an entry without `=` comes back with no value.
pub fn param_pairs(text: &str) -> impl Iterator<Item = (&str, Option<&str>)> {
    text.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|part| match part.split_once('=') {
            Some((key, value)) => (key.trim(), Some(value.trim())),
            None => (part, None),
        })
}

/// Parameters after the colon: `key=value` pairs separated by commas.
pub struct Params {
    game: String,
    values: BTreeMap<String, String>,
}

impl Params {
    fn parse(game: &str, text: &str) -> Result<Params, GameError> {
        let mut values = BTreeMap::new();
        for (key, value) in param_pairs(text) {
            let value = value.ok_or_else(|| GameError::BadParameter {
                game: game.to_string(),
                param: key.to_string(),
                reason: "expected key=value".to_string(),
            })?;
            values.insert(key.to_string(), value.to_string());
        }
        Ok(Params {
            game: game.to_string(),
            values,
        })
    }

    /// Takes parameter `key` parsed as `T`, or `default` when it is absent.
    pub fn take<T: std::str::FromStr>(&mut self, key: &str, default: T) -> Result<T, GameError> {
        match self.values.remove(key) {
            None => Ok(default),
            Some(text) => text.parse().map_err(|_| GameError::BadParameter {
                game: self.game.clone(),
                param: format!("{key}={text}"),
                reason: format!("cannot read '{text}' as a {}", std::any::type_name::<T>()),
            }),
        }
    }

    /// Fails on any parameter that was not taken.
    pub fn finish(self) -> Result<(), GameError> {
        match self.values.into_iter().next() {
            None => Ok(()),
            Some((key, value)) => Err(GameError::BadParameter {
                game: self.game,
                param: format!("{key}={value}"),
                reason: "unknown parameter".to_string(),
            }),
        }
    }

    /// A parameter error for this game.
    pub fn error(&self, param: String, reason: String) -> GameError {
        GameError::BadParameter {
            game: self.game.clone(),
            param,
            reason,
        }
    }
}

/// Builds the initial position named by `spec`, such as `tictactoe` or
/// `connect4:rows=6,cols=7,k=4`.
pub fn parse_game(spec: &str) -> Result<AnyGame, GameError> {
    let (name, params) = spec.trim().split_once(':').unwrap_or((spec.trim(), ""));
    let mut params = Params::parse(name, params)?;
    let game =
        match name {
            "tictactoe" => AnyGame::TicTacToe(TicTacToe::new()),
            "connect4" => {
                let rows = params.take("rows", 6usize)?;
                let cols = params.take("cols", 7usize)?;
                let k = params.take("k", 4usize)?;
                AnyGame::ConnectFour(ConnectFour::try_new(rows, cols, k).map_err(|reason| {
                    params.error(format!("rows={rows},cols={cols},k={k}"), reason)
                })?)
            }
            "go" => {
                let size = params.take("size", 5usize)?;
                let komi = params.take("komi", 0.5f32)?;
                let max_moves = params.take("max_moves", Go::default_max_moves(size))?;
                AnyGame::Go(Go::try_new(size, komi, max_moves).map_err(|reason| {
                    params.error(
                        format!("size={size},komi={komi},max_moves={max_moves}"),
                        reason,
                    )
                })?)
            }
            "gomoku" => {
                let size = params.take("size", crate::gomoku::DEFAULT_SIZE)?;
                AnyGame::Gomoku(
                    Gomoku::try_new(size)
                        .map_err(|reason| params.error(format!("size={size}"), reason))?,
                )
            }
            "oware" => {
                let repetition = params.take("repetition", false)?;
                let max_turns = params.take("max_turns", crate::oware::CODINGAME_MAX_TURNS)?;
                AnyGame::Oware(Oware::with_rules(repetition, max_turns))
            }
            "pushfight" => {
                let max_plies = params.take("max_plies", crate::pushfight::DEFAULT_MAX_PLIES)?;
                AnyGame::PushFight(
                    PushFight::try_new(max_plies)
                        .map_err(|reason| params.error(format!("max_plies={max_plies}"), reason))?,
                )
            }
            "chess" => {
                let max_plies = params.take("max_plies", crate::chess::DEFAULT_MAX_PLIES)?;
                AnyGame::Chess(Chess::new().with_max_plies(max_plies))
            }
            _ => {
                return Err(GameError::UnknownGame {
                    name: name.to_string(),
                    known: GAME_NAMES.join(", "),
                })
            }
        };
    params.finish()?;
    Ok(game)
}

impl AnyGame {
    /// The full registry name of the game, parameters included.
    pub fn name(&self) -> String {
        use crate::Game;
        with_game!(self, g => g.name())
    }

    /// The short registry name (`connect4`), without parameters.
    pub fn short_name(&self) -> &'static str {
        match self {
            AnyGame::TicTacToe(_) => "tictactoe",
            AnyGame::ConnectFour(_) => "connect4",
            AnyGame::Go(_) => "go",
            AnyGame::Chess(_) => "chess",
            AnyGame::Gomoku(_) => "gomoku",
            AnyGame::Oware(_) => "oware",
            AnyGame::PushFight(_) => "pushfight",
        }
    }
}

/// The game named by `spec` with parameter `key` set to `value` (replaced or added), as
/// GTP's `boardsize` and `komi` rebuild a game: `set_param("go:size=5", "size", "7")` is
/// `go:size=7`. Changing Go's `size` drops a `max_moves` that was the old size's default,
/// so the cap follows the board.
pub fn set_param(spec: &str, key: &str, value: &str) -> Result<AnyGame, GameError> {
    let (name, params) = spec.trim().split_once(':').unwrap_or((spec.trim(), ""));
    let mut pairs: Vec<(String, String)> = param_pairs(params)
        .map(|(k, v)| (k.to_string(), v.unwrap_or("").to_string()))
        .collect();
    if name == "go" && key == "size" {
        let old_size = pairs
            .iter()
            .find(|(k, _)| k == "size")
            .map_or(Some(5), |(_, v)| v.parse::<usize>().ok());
        let default_cap = old_size.map(|s| Go::default_max_moves(s).to_string());
        pairs.retain(|(k, v)| !(k == "max_moves" && Some(v) == default_cap.as_ref()));
    }
    match pairs.iter_mut().find(|(k, _)| k == key) {
        Some(pair) => pair.1 = value.to_string(),
        None => pairs.push((key.to_string(), value.to_string())),
    }
    let params: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
    parse_game(&format!("{name}:{}", params.join(",")))
}

/// Gets the concrete game back out of an [`AnyGame`]: generic code over `G` that rebuilds
/// its game from a registry name (GTP's `boardsize`) matches the variant back to `G`.
pub trait FromAnyGame: Sized {
    /// The position inside `any` if it holds this game, else `None`.
    fn from_any(any: AnyGame) -> Option<Self>;
}

macro_rules! from_any_game {
    ($($variant:ident => $type:ty),* $(,)?) => {
        $(
            impl FromAnyGame for $type {
                fn from_any(any: AnyGame) -> Option<Self> {
                    match any {
                        AnyGame::$variant(game) => Some(game),
                        _ => None,
                    }
                }
            }
        )*
    };
}

from_any_game!(
    TicTacToe => TicTacToe,
    ConnectFour => ConnectFour,
    Go => Go,
    Chess => Chess,
    Gomoku => Gomoku,
    Oware => Oware,
    PushFight => PushFight,
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn param_pairs_trim_and_keep_bare_keys() {
        let pairs: Vec<_> = param_pairs(" rows = 6,,cols=7, swap ,k=").collect();
        assert_eq!(
            pairs,
            [
                ("rows", Some("6")),
                ("cols", Some("7")),
                ("swap", None),
                ("k", Some(""))
            ]
        );
    }

    #[test]
    fn names_round_trip() {
        for spec in [
            "tictactoe",
            "connect4",
            "connect4:rows=5,cols=6,k=4",
            "go",
            "go:size=9,komi=7.5",
            "go:size=7,komi=9.5,max_moves=98",
            "chess",
            "chess:max_plies=0",
            "gomoku",
            "gomoku:size=9",
            "oware",
            "oware:repetition=true,max_turns=0",
            "pushfight",
            "pushfight:max_plies=0",
        ] {
            let game = parse_game(spec).unwrap();
            let again = parse_game(&game.name()).unwrap();
            assert_eq!(game.name(), again.name());
        }
    }

    #[test]
    fn set_param_replaces_or_adds_and_go_caps_follow_the_size() {
        use crate::Game;
        let go = |any: AnyGame| Go::from_any(any).unwrap();
        let seven = go(set_param("go", "size", "7").unwrap());
        assert_eq!(seven.name(), "go:size=7,komi=0.5,max_moves=98");
        let nine = go(set_param(&seven.name(), "size", "9").unwrap());
        assert_eq!(nine.name(), "go:size=9,komi=0.5,max_moves=162");
        let capped = go(set_param("go:size=7,max_moves=20", "size", "9").unwrap());
        assert_eq!(capped.max_moves(), 20);
        let komi = go(set_param(&nine.name(), "komi", "7.5").unwrap());
        assert_eq!(komi.name(), "go:size=9,komi=7.5,max_moves=162");
        let gomoku = set_param("gomoku", "size", "9").unwrap();
        assert_eq!(gomoku.name(), "gomoku:size=9");
        assert!(Chess::from_any(gomoku).is_none());
        assert!(set_param("go", "size", "4").is_err());
        assert!(set_param("tictactoe", "size", "4").is_err());
    }

    #[test]
    fn bad_names_are_one_line_errors() {
        for spec in [
            "chezz",
            "connect4:rows=x",
            "connect4:depth=3",
            "connect4:rows",
            "connect4:rows=2",
        ] {
            let err = parse_game(spec).unwrap_err().to_string();
            assert!(!err.contains('\n'), "{err}");
        }
        assert!(matches!(
            parse_game("chezz"),
            Err(GameError::UnknownGame { .. })
        ));
    }
}
