//! Oware Abapa as played on CodinGame, with the repetition rule of OpenSpiel as an option.
//!
//! # Rules
//!
//! Two rows of six houses, four seeds in each; the first player owns the bottom row `A`..`F`
//! (left to right), the second the top row `a`..`f` (left to right from its own side, so
//! `a` faces `F`). A move takes every seed from one of the mover's houses and sows them one
//! by one counter-clockwise (`A` → `F` → `a` → `f` → `A`), skipping the house it emptied
//! when there are 12 or more. If the last seed lands in an opponent's house and makes it 2
//! or 3, those seeds are captured, and so are the houses before it (going back towards the
//! opponent's `a`/`A`) while they also hold 2 or 3. A move that would capture every seed
//! of the opponent is legal but captures nothing (grand slam). When the opponent's row is
//! empty the mover must sow into it (feeding); a move that does not is illegal.
//!
//! The game ends when a player has captured more than 24 seeds, when both have 24, when
//! the player to move has no legal move (the opponent is empty and cannot be fed), after
//! `max_turns` moves of either player (CodinGame: 200; 0 = no limit), and, with
//! `repetition`, when a board (houses and mover) repeats since the last capture. However
//! it ends, each player then adds the seeds left on their own row to their score, and the
//! higher score wins; equal scores are a draw. This is OpenSpiel's convention for every
//! end, and it gives the feeding end of CodinGame's statement (the mover, who holds every
//! remaining seed, takes them). For the turn limit CodinGame's statement does not say
//! what happens to seeds still on the board; we let each side keep its row, as the other
//! ends do (CGZero's simulator compares captures only).
//!
//! # Encoding
//!
//! Actions `0..6` are the mover's houses from its left (`A`..`F` or `a`..`f`), the
//! oracle's ids. Notation is the house letter in the mover's case; the other case is
//! refused with an error saying whose houses those are.
//!
//! The observation is `[30, 2, 6]`, from the mover's side of the board: row 0 is the
//! mover's houses left to right, row 1 the opponent's houses facing them (column `c` holds
//! the opponent's house `5 - c`), so the sowing ring runs along row 0 and back along row
//! 1 and every step of it joins neighbouring cells. Planes:
//!
//! | plane | value in each cell |
//! |---|---|
//! | 0 | seeds / 12 |
//! | 1 + k, k = 0..=24 | 1 where the house holds exactly k seeds |
//! | 26 | 1 where the house holds 25 or more |
//! | 27 | the mover's score / 25 (every cell) |
//! | 28 | the opponent's score / 25 |
//! | 29 | moves played / `max_turns` (0 without a limit) |
//!
//! The counts are one-hot because where the last seed lands, and so every capture, depends
//! on the exact count (house `c` with `k` seeds ends `k` steps along the ring): a lookup
//! that a dense network reads straight from a one-hot. CodinGame's strongest Oware
//! networks use one-hot counts for this reason.
//!
//! Oware has no board symmetry: only the identity.
//!
//! ```
//! use zerosum_games::{oware::Oware, Game};
//! let mut game = Oware::new();
//! game.play_notation("C").unwrap();
//! assert_eq!(game.seeds(1, 0), 5); // the second player's `a` got a seed
//! assert!(game.parse_action("C").is_err()); // the second player's houses are a..f
//! assert_eq!(game.parse_action("c"), Ok(2));
//! ```

mod history;
mod layout;

use std::fmt;

use crate::error::GameError;
use crate::game::Game;
use crate::outcome::{Action, Outcome, Player};
use crate::zobrist::{cell_key, extra_key};
use history::{mix, BoardKey, Seen};

/// Houses in each player's row, and actions.
pub const HOUSES: usize = 6;
/// Seeds in the game.
pub const TOTAL_SEEDS: u8 = 48;
/// Seeds a player must capture to win outright (more than half).
pub const WINNING_SCORE: u8 = TOTAL_SEEDS / 2 + 1;
/// CodinGame's limit on the number of moves in a game.
pub const CODINGAME_MAX_TURNS: u32 = 200;
/// Seed counts below this get a one-hot plane each; larger ones share one plane.
const EXACT_COUNTS: usize = 25;
/// Observation planes: seeds / 12, the one-hot counts, the large-count flag, two scores
/// and the move clock.
const PLANES: usize = 1 + EXACT_COUNTS + 1 + 3;

/// An Oware Abapa position with its rule parameters; see the [module docs](self).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Oware {
    /// Houses `0..6` are the first player's `A`..`F`, `6..12` the second's `a`..`f`:
    /// sowing goes up the indices, wrapping from 11 to 0.
    seeds: [u8; 2 * HOUSES],
    /// Seeds captured by each player.
    scores: [u8; 2],
    to_move: Player,
    /// Moves played so far.
    num_turns: u32,
    /// The game ends after this many moves; 0 = never.
    max_turns: u32,
    /// Whether a repeated board since the last capture ends the game.
    repetition: bool,
    /// Set when the game ends.
    outcome: Option<Outcome>,
    /// With `repetition`: the boards since the last capture, the current one included.
    seen: Seen,
}

impl Oware {
    /// CodinGame's game: no repetition rule, 200 moves at most.
    pub fn new() -> Oware {
        Oware::with_rules(false, CODINGAME_MAX_TURNS)
    }

    /// The initial position under the given rules: `repetition` ends the game on a board
    /// repeated since the last capture, and `max_turns` (0 = no limit) caps the moves.
    /// OpenSpiel's game is `with_rules(true, 0)`.
    pub fn with_rules(repetition: bool, max_turns: u32) -> Oware {
        Oware::from_board(
            [4; 2 * HOUSES],
            [0, 0],
            Player::FIRST,
            repetition,
            max_turns,
        )
        .expect("the initial board holds 48 seeds and has moves")
    }

    /// A position with `seeds` in the houses (`A`..`F`, then `a`..`f`), `scores` captured
    /// and `player` to move, no move played yet. Seeds and scores must add up to 48. If
    /// the position is already over (a score above 24, 24 each, or no legal move) it is
    /// finished as after a move.
    pub fn from_board(
        seeds: [u8; 2 * HOUSES],
        scores: [u8; 2],
        to_move: Player,
        repetition: bool,
        max_turns: u32,
    ) -> Result<Oware, GameError> {
        let total: u32 = seeds.iter().chain(&scores).map(|&s| u32::from(s)).sum();
        if total != u32::from(TOTAL_SEEDS) {
            return Err(GameError::BadPosition {
                text: format!("seeds {seeds:?}, scores {scores:?}"),
                reason: format!("seeds and scores add up to {total}, not {TOTAL_SEEDS}"),
            });
        }
        let mut game = Oware {
            seeds,
            scores,
            to_move,
            num_turns: 0,
            max_turns,
            repetition,
            outcome: None,
            seen: Seen::default(),
        };
        game.settle(false);
        Ok(game)
    }

    /// Seeds in `player`'s house `house` (`0..6` from that player's left).
    pub fn seeds(&self, player: usize, house: usize) -> u8 {
        self.seeds[player * HOUSES + house]
    }

    /// Seeds captured by `player` (once the game is over, with the seeds left on that
    /// player's row).
    pub fn score(&self, player: usize) -> u8 {
        self.scores[player]
    }

    /// Moves played so far.
    pub fn num_turns(&self) -> u32 {
        self.num_turns
    }

    /// The move limit; 0 = none.
    pub fn max_turns(&self) -> u32 {
        self.max_turns
    }

    /// Whether the repetition rule is on.
    pub fn repetition(&self) -> bool {
        self.repetition
    }

    /// Seeds on `player`'s row.
    fn row_seeds(&self, player: usize) -> u8 {
        self.seeds[player * HOUSES..(player + 1) * HOUSES]
            .iter()
            .sum()
    }

    /// The legal actions as bits `0..6`, ignoring whether the game is over.
    #[inline]
    fn legal_bits(&self) -> u8 {
        let me = self.to_move.index();
        let row = &self.seeds[me * HOUSES..(me + 1) * HOUSES];
        let must_feed = self.row_seeds(1 - me) == 0;
        let mut bits = 0;
        for (house, &seeds) in row.iter().enumerate() {
            // Feeding: the sowing must pass the end of the row (HOUSES - 1 - house away).
            let needed = if must_feed { HOUSES - house } else { 1 };
            if usize::from(seeds) >= needed {
                bits |= 1 << house;
            }
        }
        bits
    }

    /// The board as the repetition rule compares it.
    fn board_key(&self) -> BoardKey {
        let mut key = [0; 13];
        key[..12].copy_from_slice(&self.seeds);
        key[12] = self.to_move.index() as u8;
        key
    }

    /// After a move (or on construction): records the board for the repetition rule and
    /// ends the game if it is over.
    fn settle(&mut self, captured: bool) {
        if self.repetition {
            if captured {
                self.seen.clear();
            }
            let key = self.board_key();
            if self.seen.contains(&key) {
                self.finish();
                return;
            }
            self.seen.push(key);
        }
        let [first, second] = self.scores;
        let half = TOTAL_SEEDS / 2;
        if first > half
            || second > half
            || (first == half && second == half)
            || self.legal_bits() == 0
            || (self.max_turns > 0 && self.num_turns >= self.max_turns)
        {
            self.finish();
        }
    }

    /// Ends the game: each player takes the seeds on their row; the higher score wins.
    fn finish(&mut self) {
        for player in 0..2 {
            self.scores[player] += self.row_seeds(player);
        }
        self.seeds = [0; 2 * HOUSES];
        let [first, second] = self.scores;
        self.outcome = Some(match first.cmp(&second) {
            std::cmp::Ordering::Greater => Outcome::Win(Player::FIRST),
            std::cmp::Ordering::Less => Outcome::Win(Player::SECOND),
            std::cmp::Ordering::Equal => Outcome::Draw,
        });
    }

    /// The Zobrist key number `index` (`< 2048`).
    fn key(index: usize) -> u64 {
        cell_key(index / 512, index % 512)
    }
}

impl Default for Oware {
    fn default() -> Oware {
        Oware::new()
    }
}

impl Game for Oware {
    fn name(&self) -> String {
        format!(
            "oware:repetition={},max_turns={}",
            self.repetition, self.max_turns
        )
    }

    fn num_actions(&self) -> usize {
        HOUSES
    }

    fn obs_shape(&self) -> [usize; 3] {
        [PLANES, 2, HOUSES]
    }

    fn to_move(&self) -> Player {
        self.to_move
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        if self.outcome.is_some() {
            return;
        }
        let bits = self.legal_bits();
        out.extend((0..HOUSES).filter(|&house| bits >> house & 1 == 1));
    }

    fn apply(&mut self, action: Action) {
        debug_assert!(
            self.outcome.is_none() && action < HOUSES && self.legal_bits() >> action & 1 == 1,
            "illegal action {action} in\n{self}"
        );
        let me = self.to_move.index();
        let origin = me * HOUSES + action;
        let count = self.seeds[origin];
        self.seeds[origin] = 0;
        // Every full lap puts one seed in each of the other 11 houses.
        let (laps, rest) = (count / 11, usize::from(count % 11));
        if laps > 0 {
            for (house, seeds) in self.seeds.iter_mut().enumerate() {
                if house != origin {
                    *seeds += laps;
                }
            }
        }
        for step in 1..=rest {
            self.seeds[(origin + step) % 12] += 1;
        }
        let last = (origin + if rest == 0 { 11 } else { rest }) % 12;

        let mut captured = false;
        let opponent = 1 - me;
        if last / HOUSES == opponent {
            let lowest = opponent * HOUSES;
            let mut take = 0;
            let mut house = last;
            while matches!(self.seeds[house], 2 | 3) {
                take += self.seeds[house];
                if house == lowest {
                    break;
                }
                house -= 1;
            }
            // Taking every seed of the opponent is a grand slam: the capture is forfeited.
            if take > 0 && take < self.row_seeds(opponent) {
                let mut house = last;
                while matches!(self.seeds[house], 2 | 3) {
                    self.seeds[house] = 0;
                    if house == lowest {
                        break;
                    }
                    house -= 1;
                }
                self.scores[me] += take;
                captured = true;
            }
        }
        self.to_move = self.to_move.opponent();
        self.num_turns += 1;
        self.settle(captured);
    }

    fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    fn observe(&self, out: &mut [f32]) {
        let cells = 2 * HOUSES;
        out[..PLANES * cells].fill(0.0);
        let me = self.to_move.index();
        let opponent = 1 - me;
        for col in 0..HOUSES {
            for (row, house) in [(0, me * HOUSES + col), (1, opponent * HOUSES + 5 - col)] {
                let cell = row * HOUSES + col;
                let seeds = self.seeds[house];
                out[cell] = f32::from(seeds) / 12.0;
                let count_plane = 1 + usize::from(seeds).min(EXACT_COUNTS);
                out[count_plane * cells + cell] = 1.0;
            }
        }
        let progress = if self.max_turns > 0 {
            self.num_turns as f32 / self.max_turns as f32
        } else {
            0.0
        };
        let scale = f32::from(WINNING_SCORE);
        let first_scalar = 2 + EXACT_COUNTS;
        for (plane, value) in [
            (first_scalar, f32::from(self.scores[me]) / scale),
            (first_scalar + 1, f32::from(self.scores[opponent]) / scale),
            (first_scalar + 2, progress),
        ] {
            out[plane * cells..(plane + 1) * cells].fill(value);
        }
    }

    fn hash(&self) -> u64 {
        // Keys: 49 per house (seed counts 0..=48), then 49 per score.
        let mut hash = 0;
        for (house, &seeds) in self.seeds.iter().enumerate() {
            hash ^= Oware::key(house * 49 + usize::from(seeds));
        }
        for (player, &score) in self.scores.iter().enumerate() {
            hash ^= Oware::key((12 + player) * 49 + usize::from(score));
        }
        if self.to_move == Player::SECOND {
            hash ^= extra_key(0);
        }
        if self.outcome.is_some() {
            hash ^= extra_key(1);
        }
        // What else decides the future: the moves left, and the boards seen.
        if self.max_turns > 0 {
            hash ^= mix(u64::from(self.num_turns) ^ extra_key(2));
        }
        if self.repetition {
            hash ^= mix(self.seen.set_hash() ^ extra_key(3));
        }
        hash
    }

    fn format_action(&self, action: Action) -> String {
        let base = if self.to_move == Player::FIRST {
            b'A'
        } else {
            b'a'
        };
        char::from(base + action as u8).to_string()
    }

    fn parse_action(&self, text: &str) -> Result<Action, GameError> {
        let first = self.to_move == Player::FIRST;
        let bad = |expected: String| GameError::BadNotation {
            text: text.to_string(),
            expected,
        };
        let (own, other) = if first {
            ("A..F", "a..f are the second player's houses")
        } else {
            ("a..f", "A..F are the first player's houses")
        };
        match text.trim().as_bytes() {
            &[letter @ (b'A'..=b'F' | b'a'..=b'f')] => {
                if letter.is_ascii_uppercase() == first {
                    Ok(usize::from(letter.to_ascii_lowercase() - b'a'))
                } else {
                    Err(bad(format!(
                        "{other}; the {} player moves one of {own}",
                        self.to_move
                    )))
                }
            }
            _ => Err(bad(format!("a house letter {own}"))),
        }
    }

    fn layout(&self) -> Option<crate::layout::BoardLayout> {
        Some(layout::board(self))
    }

    fn move_cells(&self, action: Action) -> crate::layout::MoveCells {
        layout::move_cells(self, action)
    }
}

impl fmt::Display for Oware {
    /// The second player's row on top (`f` to `a`), the first player's below (`A` to `F`),
    /// with the scores and the move count.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let marker = |player: Player| {
            if self.outcome.is_none() && self.to_move == player {
                " (to move)"
            } else {
                ""
            }
        };
        writeln!(f, "second {}{}", self.scores[1], marker(Player::SECOND))?;
        writeln!(f, "  f  e  d  c  b  a")?;
        for house in (HOUSES..2 * HOUSES).rev() {
            write!(f, "{:3}", self.seeds[house])?;
        }
        writeln!(f)?;
        for house in 0..HOUSES {
            write!(f, "{:3}", self.seeds[house])?;
        }
        writeln!(f)?;
        writeln!(f, "  A  B  C  D  E  F")?;
        write!(f, "first {}{}", self.scores[0], marker(Player::FIRST))?;
        match self.outcome {
            Some(outcome) => write!(
                f,
                "; over after {} moves: {}",
                self.num_turns,
                outcome.score_string()
            ),
            None if self.max_turns > 0 => {
                write!(f, "; move {} of {}", self.num_turns + 1, self.max_turns)
            }
            None => write!(f, "; move {}", self.num_turns + 1),
        }
    }
}

#[cfg(test)]
mod tests;
