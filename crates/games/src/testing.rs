//! Conformance checks that every game must pass, and perft.
//!
//! [`check_game`] plays uniformly random games and, at every position reached, checks the
//! invariants stated on [`Game`]; each game's tests call it, and so does
//! `zerosum check-game`. [`perft`] counts the leaves of the game tree, for comparing move
//! generation with published tables.
//!
//! ```
//! use zerosum_games::{testing::check_game, tic_tac_toe::TicTacToe};
//! let report = check_game(&TicTacToe::new(), 1, 20).unwrap();
//! assert_eq!(report.games, 20);
//! ```

use std::fmt;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::game::{Game, Symmetry};
use crate::outcome::{Action, Outcome};
use crate::registry;

/// A game that has not ended after this many plies is reported as a failure.
pub const MAX_PLIES: usize = 100_000;

/// What [`check_game`] saw.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckReport {
    /// Games played to the end.
    pub games: usize,
    /// Positions checked, terminal ones included.
    pub positions: usize,
    /// The longest game, in plies.
    pub max_game_length: usize,
    /// Games won by each player, indexed by [`Player::index`](crate::Player::index).
    pub wins: [usize; 2],
    /// Drawn games.
    pub draws: usize,
    /// Transformed positions checked against their symmetry.
    pub symmetry_images: usize,
}

impl fmt::Display for CheckReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} games, {} positions, longest {} plies; first won {}, second won {}, {} drawn; \
             {} symmetric images checked",
            self.games,
            self.positions,
            self.max_game_length,
            self.wins[0],
            self.wins[1],
            self.draws,
            self.symmetry_images
        )
    }
}

/// Plays `num_games` uniformly random games from `initial` with an RNG seeded by `seed`, and
/// checks the [`Game`] contract at every position:
///
/// - the legal actions are sorted, unique, `< num_actions()`, and empty exactly when
///   `outcome()` is some; `legal_actions` clears its buffer first;
/// - `apply` on a clone leaves the original equal, with the same hash;
/// - every legal action's notation parses back to it, and garbage (`zz9`, the empty
///   string) does not parse;
/// - `try_apply` refuses an action outside the space, an illegal one, and any action once
///   the game is over, and leaves the position unchanged when it refuses;
/// - `observe` writes all `obs_len()` values (finite), and the symmetries are
///   permutations of the right lengths with the identity first, the same at every position;
/// - for every symmetry with a `transformed` image: the image's legal mask and observation
///   are the symmetry applied to this position's, the image has the same mover and outcome,
///   and playing the mapped action from the image gives the image of the child;
/// - replaying the actions so far from `initial` gives an equal position with an equal hash;
/// - `registry::parse_game(name())` knows the game and gives back the same name;
/// - at the end of each game, a `final_score` agrees in sign with the outcome, and a
///   `standard_record` of the game is non-empty text ending in a line break.
///
/// On failure the error names the broken invariant, shows the position and lists the
/// actions played since `initial`.
pub fn check_game<G: Game>(
    initial: &G,
    seed: u64,
    num_games: usize,
) -> Result<CheckReport, String> {
    let checker = Checker::new(initial)?;
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut report = CheckReport::default();
    for _ in 0..num_games {
        let mut game = initial.clone();
        let mut history: Vec<Action> = Vec::new();
        loop {
            report.symmetry_images += checker.check_position(&game, &history)?;
            report.positions += 1;
            if game.is_terminal() {
                break;
            }
            if history.len() >= MAX_PLIES {
                return Err(checker.failure(&game, &history, "the game ends", "it is still going"));
            }
            let legal = game.legal_action_vec();
            let action = legal[rng.random_range(0..legal.len())];
            checker.check_child(&game, &history, action)?;
            game.apply(action);
            history.push(action);
        }
        checker.check_end(&game, &history)?;
        match game
            .outcome()
            .expect("the loop ends only at a terminal position")
        {
            Outcome::Win(player) => report.wins[player.index()] += 1,
            Outcome::Draw => report.draws += 1,
        }
        report.games += 1;
        report.max_game_length = report.max_game_length.max(history.len());
    }
    Ok(report)
}

/// The number of leaves of the game tree at exactly `depth` plies below `game`; positions
/// where the game ended sooner are not extended and count nothing.
pub fn perft<G: Game>(game: &G, depth: usize) -> u64 {
    fn go<G: Game>(game: &G, depth: usize, buffers: &mut [Vec<Action>]) -> u64 {
        let (buffer, deeper) = buffers.split_first_mut().expect("one buffer per ply");
        game.legal_actions(buffer);
        if depth == 1 {
            return buffer.len() as u64;
        }
        let mut count = 0;
        for &action in buffer.iter() {
            let mut child = game.clone();
            child.apply(action);
            count += go(&child, depth - 1, deeper);
        }
        count
    }
    if depth == 0 {
        return 1;
    }
    let mut buffers = vec![Vec::new(); depth];
    go(game, depth, &mut buffers)
}

/// The facts fixed for the game under test, and scratch space.
struct Checker<G: Game> {
    initial: G,
    num_actions: usize,
    obs_len: usize,
    symmetries: Vec<Symmetry>,
}

impl<G: Game> Checker<G> {
    /// The checks on a finished game: its score and its record.
    fn check_end(&self, game: &G, history: &[Action]) -> Result<(), String> {
        if let (Some(score), Some(outcome)) = (game.final_score(), game.outcome()) {
            let agrees = match outcome {
                Outcome::Win(crate::Player::FIRST) => score > 0.0,
                Outcome::Win(_) => score < 0.0,
                Outcome::Draw => score == 0.0,
            };
            if !agrees {
                return Err(self.failure(
                    game,
                    history,
                    "final_score() agrees in sign with outcome()",
                    &format!("{score} with {outcome:?}"),
                ));
            }
        }
        if let Some((extension, text)) = self
            .initial
            .standard_record(history, &crate::RecordTags::default())
        {
            if extension.is_empty() || text.trim().is_empty() || !text.ends_with('\n') {
                return Err(self.failure(
                    game,
                    history,
                    "standard_record() is non-empty text ending in a line break",
                    &format!("{extension}: {text:?}"),
                ));
            }
        }
        Ok(())
    }

    fn new(initial: &G) -> Result<Checker<G>, String> {
        let num_actions = initial.num_actions();
        let obs_len = initial.obs_len();
        let symmetries = initial.symmetries();
        let checker = Checker {
            initial: initial.clone(),
            num_actions,
            obs_len,
            symmetries,
        };
        let fail = |what: &str, got: String| Err(checker.failure(initial, &[], what, &got));
        if num_actions == 0 {
            return fail("num_actions() > 0", "0".into());
        }
        if obs_len == 0 {
            return fail("obs_len() > 0", format!("shape {:?}", initial.obs_shape()));
        }
        let name = initial.name();
        match registry::parse_game(&name) {
            Ok(game) if game.name() == name => {}
            Ok(game) => return fail("registry::parse_game(name()).name() == name()", game.name()),
            Err(err) => return fail("registry::parse_game(name()) succeeds", err.to_string()),
        }
        if checker.symmetries.is_empty() {
            return fail(
                "symmetries() starts with the identity",
                "no symmetries".into(),
            );
        }
        if checker.symmetries[0] != Symmetry::identity(obs_len, num_actions) {
            return fail(
                "symmetries()[0] is the identity",
                format!("{:?}", checker.symmetries[0]),
            );
        }
        for (i, symmetry) in checker.symmetries.iter().enumerate() {
            if !is_permutation(&symmetry.obs_source, obs_len) {
                return fail(
                    &format!("symmetry {i}: obs_source is a permutation of 0..obs_len"),
                    format!("{:?}", symmetry.obs_source),
                );
            }
            if !is_permutation(&symmetry.action_source, num_actions) {
                return fail(
                    &format!("symmetry {i}: action_source is a permutation of 0..num_actions"),
                    format!("{:?}", symmetry.action_source),
                );
            }
        }
        Ok(checker)
    }

    /// A failure message: the invariant, what was seen instead, the position and the line.
    fn failure(&self, game: &G, history: &[Action], invariant: &str, got: &str) -> String {
        let mut replay = self.initial.clone();
        let mut moves = Vec::with_capacity(history.len());
        for &action in history {
            moves.push(format!("{} ({action})", replay.format_action(action)));
            if replay.is_legal(action) {
                replay.apply(action);
            }
        }
        format!(
            "{}: invariant broken: {invariant}; got {got}\nposition after [{}]:\n{game}",
            self.initial.name(),
            moves.join(" ")
        )
    }

    /// Checks everything that can be checked at `game`, reached by `history`; returns how
    /// many transformed images it compared.
    fn check_position(&self, game: &G, history: &[Action]) -> Result<usize, String> {
        let (legal, outcome) = self.check_legal_actions(game, history)?;
        self.check_notation(game, history, &legal)?;
        self.check_refusals(game, history, &legal, outcome)?;
        let obs = self.check_observation(game, history)?;
        let images_checked = self.check_images(game, history, &obs, outcome)?;
        self.check_replay(game, history)?;
        Ok(images_checked)
    }

    /// Checks the legal actions against the outcome and the action space; returns both.
    fn check_legal_actions(
        &self,
        game: &G,
        history: &[Action],
    ) -> Result<(Vec<Action>, Option<Outcome>), String> {
        let fail = |what: &str, got: String| Err(self.failure(game, history, what, &got));
        let mut legal = vec![usize::MAX; 3];
        game.legal_actions(&mut legal);
        let outcome = game.outcome();
        if legal.is_empty() != outcome.is_some() {
            return fail(
                "legal_actions is empty exactly when outcome() is some",
                format!("legal {legal:?}, outcome {outcome:?}"),
            );
        }
        if game.is_terminal() != outcome.is_some() {
            return fail(
                "is_terminal() == outcome().is_some()",
                format!("{}", game.is_terminal()),
            );
        }
        if !legal.windows(2).all(|w| w[0] < w[1]) {
            return fail(
                "legal actions are sorted and unique (buffer cleared first)",
                format!("{legal:?}"),
            );
        }
        if legal.iter().any(|&a| a >= self.num_actions) {
            return fail("legal actions are < num_actions()", format!("{legal:?}"));
        }
        if game.num_actions() != self.num_actions || game.obs_len() != self.obs_len {
            return fail(
                "num_actions() and obs_shape() are fixed for the game",
                format!(
                    "{} actions, shape {:?}",
                    game.num_actions(),
                    game.obs_shape()
                ),
            );
        }
        Ok((legal, outcome))
    }

    /// Checks that every legal action's notation parses back to it, and garbage does not.
    fn check_notation(&self, game: &G, history: &[Action], legal: &[Action]) -> Result<(), String> {
        let fail = |what: &str, got: String| Err(self.failure(game, history, what, &got));
        for &action in legal {
            let text = game.format_action(action);
            if game.parse_action(&text) != Ok(action) {
                return fail(
                    &format!("parse_action(format_action({action})) == {action}"),
                    format!("'{text}' -> {:?}", game.parse_action(&text)),
                );
            }
            if !game.is_legal(action) {
                return fail(
                    &format!("is_legal({action}) for a legal action"),
                    "false".into(),
                );
            }
        }
        for garbage in ["zz9", ""] {
            if let Ok(action) = game.parse_action(garbage) {
                return fail(
                    &format!("parse_action({garbage:?}) is an error"),
                    action.to_string(),
                );
            }
        }
        Ok(())
    }

    /// Checks that `try_apply` refuses an action outside the space, an illegal one, and any
    /// once the game is over, changing nothing when it refuses.
    fn check_refusals(
        &self,
        game: &G,
        history: &[Action],
        legal: &[Action],
        outcome: Option<Outcome>,
    ) -> Result<(), String> {
        let fail = |what: &str, got: String| Err(self.failure(game, history, what, &got));
        let mut refused = vec![self.num_actions];
        if outcome.is_some() {
            refused.push(0);
        } else if let Some(illegal) =
            (0..self.num_actions).find(|a| legal.binary_search(a).is_err())
        {
            refused.push(illegal);
        }
        for action in refused {
            let mut copy = game.clone();
            if copy.try_apply(action).is_ok() {
                return fail(&format!("try_apply({action}) is refused"), "Ok".into());
            }
            if copy != *game {
                return fail(
                    &format!("a refused try_apply({action}) changes nothing"),
                    format!("\n{copy}"),
                );
            }
        }
        Ok(())
    }

    /// Checks that the observation is all written and finite and the symmetries are the
    /// game's; returns the observation.
    fn check_observation(&self, game: &G, history: &[Action]) -> Result<Vec<f32>, String> {
        let fail = |what: &str, got: String| Err(self.failure(game, history, what, &got));
        let obs = observe(game, self.obs_len);
        if let Some(i) = obs.iter().position(|v| !v.is_finite()) {
            return fail(
                "observe writes every value, all finite",
                format!("obs[{i}] = {}", obs[i]),
            );
        }
        if game.symmetries() != self.symmetries {
            return fail(
                "symmetries() is the same at every position",
                "a different set".into(),
            );
        }
        Ok(obs)
    }

    /// Checks each symmetric image of `game` (observation `obs`) against the symmetry
    /// applied to `game`; returns how many images it compared.
    fn check_images(
        &self,
        game: &G,
        history: &[Action],
        obs: &[f32],
        outcome: Option<Outcome>,
    ) -> Result<usize, String> {
        let fail = |what: &str, got: String| Err(self.failure(game, history, what, &got));
        let mask = game.legal_mask();
        let mut mapped_mask = vec![false; self.num_actions];
        let mut mapped_obs = vec![0.0; self.obs_len];
        let mut images_checked = 0;
        for (i, symmetry) in self.symmetries.iter().enumerate() {
            let Some(image) = game.transformed(i) else {
                if i == 0 {
                    return fail("transformed(0) is the position itself", "None".into());
                }
                continue;
            };
            images_checked += 1;
            if i == 0 && (image != *game || zobrist(&image) != zobrist(game)) {
                return fail(
                    "transformed(0) equals the position, with its hash",
                    format!("\n{image}"),
                );
            }
            symmetry.map_policy(&mask, &mut mapped_mask);
            if image.legal_mask() != mapped_mask {
                return fail(
                    &format!("legal_mask(transformed({i})) == s.map_policy(legal_mask)"),
                    format!("image legal {:?}\n{image}", image.legal_action_vec()),
                );
            }
            symmetry.map_obs(obs, &mut mapped_obs);
            if observe(&image, self.obs_len) != mapped_obs {
                return fail(
                    &format!("observe(transformed({i})) == s.map_obs(observe)"),
                    format!("a different observation for image\n{image}"),
                );
            }
            if image.outcome() != outcome
                || (outcome.is_none() && image.to_move() != game.to_move())
            {
                return fail(
                    &format!("transformed({i}) has the same mover and outcome"),
                    format!(
                        "{:?} to move, outcome {:?}",
                        image.to_move(),
                        image.outcome()
                    ),
                );
            }
        }
        Ok(images_checked)
    }

    /// Checks that equal positions hash equal, by replaying the line from the start.
    fn check_replay(&self, game: &G, history: &[Action]) -> Result<(), String> {
        let mut replay = self.initial.clone();
        for &action in history {
            replay.apply(action);
        }
        if replay != *game || zobrist(&replay) != zobrist(game) {
            return Err(self.failure(
                game,
                history,
                "replaying the actions gives an equal position with an equal hash",
                &format!(
                    "hash {:#x} vs {:#x}, replayed\n{replay}",
                    zobrist(&replay),
                    zobrist(game)
                ),
            ));
        }
        Ok(())
    }

    /// Checks `apply(action)` on a clone: the original is untouched, and the child's
    /// symmetric images are the images' children.
    fn check_child(&self, game: &G, history: &[Action], action: Action) -> Result<(), String> {
        let fail = |what: &str, got: String| Err(self.failure(game, history, what, &got));
        let (before, hash) = (game.clone(), zobrist(game));
        let mut child = game.clone();
        child.apply(action);
        if *game != before || zobrist(game) != hash {
            return fail(
                "apply on a clone leaves the original unchanged",
                String::new(),
            );
        }
        let mut tried = game.clone();
        if let Err(err) = tried.try_apply(action) {
            return fail(
                &format!("try_apply({action}) accepts a legal action"),
                err.to_string(),
            );
        }
        if tried != child {
            return fail(
                "try_apply and apply give the same position",
                format!("\n{tried}"),
            );
        }
        for (i, symmetry) in self.symmetries.iter().enumerate() {
            if let (Some(image), Some(child_image)) = (game.transformed(i), child.transformed(i)) {
                let mut image_child = image.clone();
                image_child.apply(symmetry.map_action(action));
                if image_child != child_image || zobrist(&image_child) != zobrist(&child_image) {
                    let name = game.format_action(action);
                    return fail(
                        &format!(
                            "symmetry {i} commutes with playing {name} ({action}): \
                             transformed({i}) + mapped action == (+ {name}).transformed({i})"
                        ),
                        format!("\n{image_child}\nvs\n{child_image}"),
                    );
                }
            }
        }
        Ok(())
    }
}

/// [`Game::hash`]; a method call would be ambiguous with `std::hash::Hash::hash` for a
/// generic `G: Game`.
fn zobrist<G: Game>(game: &G) -> u64 {
    Game::hash(game)
}

/// `game`'s observation, with NaN wherever `observe` wrote nothing.
fn observe<G: Game>(game: &G, obs_len: usize) -> Vec<f32> {
    let mut obs = vec![f32::NAN; obs_len];
    game.observe(&mut obs);
    obs
}

/// Whether `source` holds each of `0..len` exactly once.
fn is_permutation(source: &[u32], len: usize) -> bool {
    let mut seen = vec![false; len];
    source.len() == len
        && source.iter().all(|&s| {
            let s = s as usize;
            s < len && !std::mem::replace(&mut seen[s], true)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::connect_four::ConnectFour;
    use crate::tic_tac_toe::TicTacToe;

    #[test]
    fn permutations() {
        assert!(is_permutation(&[2, 0, 1], 3));
        assert!(!is_permutation(&[0, 0, 1], 3));
        assert!(!is_permutation(&[0, 1], 3));
        assert!(!is_permutation(&[0, 1, 3], 3));
    }

    #[test]
    fn perft_of_tic_tac_toe() {
        // Leaves by depth, games that ended sooner not extended (known totals: 255168 games).
        let counts: Vec<u64> = (0..=9).map(|d| perft(&TicTacToe::new(), d)).collect();
        assert_eq!(
            counts,
            [1, 9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872]
        );
    }

    #[test]
    fn report_counts_add_up() {
        let report = check_game(&ConnectFour::try_new(4, 4, 3).unwrap(), 3, 40).unwrap();
        assert_eq!(report.games, 40);
        assert_eq!(report.wins[0] + report.wins[1] + report.draws, 40);
        assert!(report.positions > 40);
        assert!(!report.to_string().contains('\n'));
    }
}
