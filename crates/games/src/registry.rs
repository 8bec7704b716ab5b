//! The one game table: every game's name and parameters, and the one place that
//! turns a name like `connect4:rows=6,cols=7` into a game. (Each game's default config is
//! `zerosum-config`'s.)
//!
//! Generic code is written once over `G: Game`; [`AnyGame`] holds the initial position of
//! whichever game was named, and [`with_game!`](crate::with_game) calls generic code with
//! the concrete type. Adding a game is its module plus one entry in [`game_table!`]'s
//! invocation below, which makes the [`AnyGame`] variant, its `with_game!` arm and its
//! [`GameEntry`]. A game whose type is not known at compile time (one written in Python)
//! is an [`AnyGame::Dynamic`] behind a [`DynGame`], with an entry added by [`register`].

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::{Arc, LazyLock, RwLock};

use crate::chess::Chess;
use crate::connect_four::ConnectFour;
pub use crate::dyn_game::{DynGame, DynPosition};
use crate::error::GameError;
use crate::go::Go;
use crate::gomoku::Gomoku;
use crate::oware::Oware;
use crate::pushfight::PushFight;
use crate::tic_tac_toe::TicTacToe;

/// Builds a game's initial position from its parameters ([`Params::take`] each, the table
/// calls [`Params::finish`]).
pub type Build = Arc<dyn Fn(&mut Params) -> Result<AnyGame, GameError> + Send + Sync>;

/// One row of the game table.
#[derive(Clone)]
pub struct GameEntry {
    /// The registry name (`connect4`), typed before any parameters.
    pub name: Cow<'static, str>,
    /// The parameters it takes, for help text (`rows=R,cols=C,k=K`); empty for none.
    pub params: Cow<'static, str>,
    /// The initial position for a parameter list.
    pub build: Build,
}

impl std::fmt::Debug for GameEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GameEntry")
            .field("name", &self.name)
            .field("params", &self.params)
            .finish_non_exhaustive()
    }
}

/// Writes the game table: the [`AnyGame`] enum, [`with_game!`](crate::with_game), the
/// [`FromAnyGame`] impls and the built-in [`GameEntry`] rows, all from one list.
macro_rules! game_table {
    ($(
        $(#[$doc:meta])*
        $variant:ident($type:ty) {
            name: $name:literal,
            params: $params:literal,
            build: $build:expr $(,)?
        }
    ),* $(,)?) => {
        /// The initial position of a game named on the command line or in a config.
        // Built once per name, so a large variant (chess keeps ~1 KB of repetition history)
        // costs nothing; boxing it would hand `with_game!` bodies a `Box` instead of the
        // game type.
        #[allow(clippy::large_enum_variant)]
        #[derive(Clone, Debug)]
        pub enum AnyGame {
            $($(#[$doc])* $variant($type),)*
            /// A game registered at run time ([`register`]), such as one written in Python.
            Dynamic(DynGame),
        }

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

        /// The games built into this crate, in the order help lists them.
        fn built_in() -> Vec<GameEntry> {
            vec![$(GameEntry {
                name: Cow::Borrowed($name),
                params: Cow::Borrowed($params),
                build: Arc::new(|params: &mut Params| {
                    let build: fn(&mut Params) -> Result<$type, GameError> = $build;
                    build(params).map(AnyGame::$variant)
                }),
            }),*]
        }

        impl FromAnyGame for DynGame {
            fn from_any(any: AnyGame) -> Option<Self> {
                match any {
                    AnyGame::Dynamic(game) => Some(game),
                    _ => None,
                }
            }
        }

        game_table!(@with_game ($) $($variant)*);
    };
    (@with_game ($d:tt) $($variant:ident)*) => {
        /// Calls `$body` with `$g` bound to the concrete initial position inside an
        /// [`AnyGame`](crate::registry::AnyGame).
        ///
        /// ```
        /// use zerosum_games::{registry::parse_game, with_game, Game};
        /// let game = parse_game("connect4:rows=5,cols=6").unwrap();
        /// let actions = with_game!(game, g => g.num_actions());
        /// assert_eq!(actions, 6);
        /// ```
        #[macro_export]
        macro_rules! with_game {
            ($d any:expr, $d g:ident => $d body:expr) => {
                match $d any {
                    $($crate::registry::AnyGame::$variant($d g) => $d body,)*
                    $crate::registry::AnyGame::Dynamic($d g) => $d body,
                }
            };
        }
    };
}

game_table! {
    /// `tictactoe`
    TicTacToe(TicTacToe) {
        name: "tictactoe",
        params: "",
        build: |_| Ok(TicTacToe::new()),
    },
    /// `connect4[:rows=R,cols=C,k=K]`
    ConnectFour(ConnectFour) {
        name: "connect4",
        params: "rows=R,cols=C,k=K",
        build: |params| {
            let rows = params.take("rows", 6usize)?;
            let cols = params.take("cols", 7usize)?;
            let k = params.take("k", 4usize)?;
            ConnectFour::try_new(rows, cols, k)
                .map_err(|reason| params.error(format!("rows={rows},cols={cols},k={k}"), reason))
        },
    },
    /// `gomoku[:size=N]`
    Gomoku(Gomoku) {
        name: "gomoku",
        params: "size=N",
        build: |params| {
            let size = params.take("size", crate::gomoku::DEFAULT_SIZE)?;
            Gomoku::try_new(size).map_err(|reason| params.error(format!("size={size}"), reason))
        },
    },
    /// `oware[:repetition=B,max_turns=N]`
    Oware(Oware) {
        name: "oware",
        params: "repetition=B,max_turns=N",
        build: |params| {
            let repetition = params.take("repetition", false)?;
            let max_turns = params.take("max_turns", crate::oware::CODINGAME_MAX_TURNS)?;
            Ok(Oware::with_rules(repetition, max_turns))
        },
    },
    /// `go[:size=N,komi=K,max_moves=M]`
    Go(Go) {
        name: "go",
        params: "size=N,komi=K,max_moves=M",
        build: |params| {
            let size = params.take("size", 5usize)?;
            let komi = params.take("komi", 0.5f32)?;
            let max_moves = params.take("max_moves", Go::default_max_moves(size))?;
            Go::try_new(size, komi, max_moves).map_err(|reason| {
                params.error(format!("size={size},komi={komi},max_moves={max_moves}"), reason)
            })
        },
    },
    /// `pushfight[:max_plies=N]`
    PushFight(PushFight) {
        name: "pushfight",
        params: "max_plies=N",
        build: |params| {
            let max_plies = params.take("max_plies", crate::pushfight::DEFAULT_MAX_PLIES)?;
            PushFight::try_new(max_plies)
                .map_err(|reason| params.error(format!("max_plies={max_plies}"), reason))
        },
    },
    /// `chess[:max_plies=N]`
    Chess(Chess) {
        name: "chess",
        params: "max_plies=N",
        build: |params| {
            let max_plies = params.take("max_plies", crate::chess::DEFAULT_MAX_PLIES)?;
            Ok(Chess::new().with_max_plies(max_plies))
        },
    },
}

/// The table: the built-in games, then those registered at run time.
static TABLE: LazyLock<RwLock<Vec<GameEntry>>> = LazyLock::new(|| RwLock::new(built_in()));

/// Every game of the table, in the order help lists them.
pub fn entries() -> Vec<GameEntry> {
    TABLE.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// The registry names, in the order help lists them.
pub fn game_names() -> Vec<String> {
    entries().into_iter().map(|e| e.name.into_owned()).collect()
}

/// The entry named `name` (the part of a spec before any colon).
pub fn entry(name: &str) -> Option<GameEntry> {
    let table = TABLE.read().unwrap_or_else(|e| e.into_inner());
    table.iter().find(|e| e.name == name.trim()).cloned()
}

/// Adds a game to the table at run time (a game written in Python); its `build` returns
/// an [`AnyGame::Dynamic`]. Fails if the name is taken or could not be typed on a command
/// line.
pub fn register(entry: GameEntry) -> Result<(), GameError> {
    let name = entry.name.trim();
    let well_formed = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !well_formed {
        return Err(GameError::BadName {
            name: name.to_string(),
        });
    }
    let mut table = TABLE.write().unwrap_or_else(|e| e.into_inner());
    if table.iter().any(|e| e.name == name) {
        return Err(GameError::NameTaken {
            name: name.to_string(),
        });
    }
    table.push(entry);
    Ok(())
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
            if values.insert(key.to_string(), value.to_string()).is_some() {
                return Err(GameError::BadParameter {
                    game: game.to_string(),
                    param: key.to_string(),
                    reason: "given twice".to_string(),
                });
            }
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
    let name = name.trim();
    let Some(entry) = entry(name) else {
        return Err(GameError::UnknownGame {
            name: name.to_string(),
            known: game_names().join(", "),
        });
    };
    let mut params = Params::parse(name, params)?;
    let game = (entry.build)(&mut params)?;
    params.finish()?;
    Ok(game)
}

impl AnyGame {
    /// The full registry name of the game, parameters included.
    pub fn name(&self) -> String {
        use crate::Game;
        with_game!(self, g => g.name())
    }

    /// The short registry name (`connect4`), without parameters: the name of its entry.
    pub fn short_name(&self) -> String {
        let name = self.name();
        match name.split_once(':') {
            Some((short, _)) => short.to_string(),
            None => name,
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
    fn a_parameter_given_twice_is_refused() {
        let error = parse_game("go:size=5,size=7").err().unwrap().to_string();
        assert!(
            error.contains("'size'") && error.contains("given twice"),
            "{error}"
        );
        assert!(parse_game("go:size=5,komi=7.5").is_ok());
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

    /// Every game of the table has a grid layout for the board drawer that covers every
    /// legal move of a few random plies.
    #[test]
    fn every_entry_has_a_layout() {
        use crate::Game;
        use rand::{rngs::SmallRng, Rng, SeedableRng};
        let mut rng = SmallRng::seed_from_u64(3);
        for entry in entries() {
            let game = parse_game(&entry.name).unwrap();
            with_game!(game, g => {
                let mut g = g;
                for _ in 0..8 {
                    let layout = g.layout().unwrap_or_else(|| panic!("{} has no layout", entry.name));
                    assert_eq!(layout.cells.len(), layout.rows * layout.cols, "{}", entry.name);
                    let legal = g.legal_action_vec();
                    if legal.is_empty() {
                        break;
                    }
                    for &action in &legal {
                        let cells = g.move_cells(action);
                        assert!(cells.cells.iter().chain(&cells.hit).all(|&c| c < layout.cells.len()));
                    }
                    g.apply(legal[rng.random_range(0..legal.len())]);
                }
            });
        }
    }

    /// A game known only at run time joins the table and plays through the same generic
    /// code as a built-in one: here tic-tac-toe behind a `DynGame`, checked against the
    /// game contract.
    #[test]
    fn a_game_registered_at_run_time_is_parsed_and_obeys_the_contract() {
        use crate::Game;
        let entry = GameEntry {
            name: Cow::Borrowed("dyn-tictactoe"),
            params: Cow::Borrowed(""),
            build: Arc::new(|_| Ok(AnyGame::Dynamic(DynGame::from_game(TicTacToe::new())))),
        };
        register(entry.clone()).unwrap();
        assert!(matches!(register(entry), Err(GameError::NameTaken { .. })));
        assert!(matches!(
            register(GameEntry {
                name: Cow::Borrowed("two words"),
                ..entries()[0].clone()
            }),
            Err(GameError::BadName { .. })
        ));
        assert!(game_names().contains(&"dyn-tictactoe".to_string()));
        let game = parse_game("dyn-tictactoe").unwrap();
        let AnyGame::Dynamic(position) = &game else {
            panic!("expected a dynamic game")
        };
        assert!(position.downcast_ref::<TicTacToe>().is_some());
        let report = with_game!(&game, g => crate::testing::check_game(g, 5, 50));
        assert!(report.is_ok(), "{report:?}");
        let mut moved = position.clone();
        moved.play_notation("b2").unwrap();
        assert_ne!(&moved, position);
        assert_eq!(
            moved.layout().unwrap().cells[4].as_ref().unwrap().label,
            "X"
        );
    }
}
