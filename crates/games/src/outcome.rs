//! Who moves and how a game ends: actions, the two players, outcomes, and the one
//! function that turns a value from one player's view into the other's.

use std::fmt;

/// An index into a game's fixed action space, `0..num_actions()`.
///
/// The policy head of a network has one logit per action; a position's legal actions are a
/// subset of the space.
pub type Action = usize;

/// One of the two players. `Player::FIRST` moves first (black in Go, white in chess, `x` in
/// tic-tac-toe); protocols call it `b` and the second player `w`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Player(u8);

impl Player {
    /// The player who moves first.
    pub const FIRST: Player = Player(0);
    /// The player who moves second.
    pub const SECOND: Player = Player(1);
    /// Both players, in index order.
    pub const ALL: [Player; 2] = [Player::FIRST, Player::SECOND];
    /// How many players there are.
    pub const NUM: usize = 2;

    /// `0` for the first player, `1` for the second.
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The player with this index; `None` unless `index < 2`.
    pub fn try_from_index(index: usize) -> Option<Player> {
        (index < Self::NUM).then_some(Player(index as u8))
    }

    /// The other player.
    pub fn opponent(self) -> Player {
        Player(1 - self.0)
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0 == 0 { "first" } else { "second" })
    }
}

/// How a finished game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// This player won.
    Win(Player),
    /// Nobody won.
    Draw,
}

impl Outcome {
    /// The result from `player`'s point of view: `1.0` win, `0.0` draw, `-1.0` loss.
    pub fn value_for(self, player: Player) -> f32 {
        match self {
            Outcome::Win(winner) if winner == player => 1.0,
            Outcome::Win(_) => -1.0,
            Outcome::Draw => 0.0,
        }
    }

    /// `1-0`, `0-1` or `1/2-1/2`, as PGN and SGF-style records write results.
    pub fn score_string(self) -> &'static str {
        match self {
            Outcome::Win(Player::FIRST) => "1-0",
            Outcome::Win(_) => "0-1",
            Outcome::Draw => "1/2-1/2",
        }
    }
}

/// Converts a value seen by `from` into the value seen by `to`.
///
/// This is the one place that turns values between points of view: turns need not
/// alternate (Push Fight moves twice in a row), so nothing negates per ply.
#[inline]
pub fn value_for(value: f32, from: Player, to: Player) -> f32 {
    if from == to {
        value
    } else {
        -value
    }
}
