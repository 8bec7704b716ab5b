//! Rules of two-player, zero-sum, perfect-information games behind one contract.
//!
//! - [`Game`] is the contract: player to move, legal actions, apply, outcome, observation,
//!   symmetries, hash and move notation. Its docs state the invariants that
//!   [`testing::check_game`] verifies for every game.
//! - [`Player`] and [`Outcome`]; values between points of view convert with [`value_for`].
//! - [`Game::standard_record`] writes a game in its standard format (SGF for Go, PGN for
//!   chess) with a [`RecordTags`] header; [`Game::final_score`] is the counted score where a
//!   game has one.
//! - [`registry`] is the one game table (name, parameters, default config) and turns a name
//!   like `connect4:rows=6,cols=7` into an [`registry::AnyGame`]; a game known only at run
//!   time is a [`registry::DynGame`].
//! - [`layout`]: the grid a board drawer shows ([`Game::layout`], [`Game::move_cells`]).
//! - One module per game: [`tic_tac_toe`], [`connect_four`], [`go`], [`chess`], [`gomoku`], [`oware`],
//!   [`pushfight`].
//!
//! ```
//! use zerosum_games::{Game, Outcome, Player, tic_tac_toe::TicTacToe};
//! let mut game = TicTacToe::new();
//! for mv in ["a1", "b1", "a2", "b2", "a3"] {
//!     game.play_notation(mv).unwrap();
//! }
//! assert_eq!(game.outcome(), Some(Outcome::Win(Player::FIRST)));
//! ```
#![warn(missing_docs)]

pub mod chess;
pub mod connect_four;
mod dyn_game;
pub mod error;
mod game;
pub mod go;
pub mod gomoku;
pub mod layout;
pub mod outcome;
pub mod oware;
pub mod pushfight;
pub mod records;
pub mod registry;
pub mod testing;
pub mod tic_tac_toe;
pub mod zobrist;

pub use error::GameError;
pub use game::{square_cell_symmetries, Game, Symmetry};
pub use outcome::{value_for, Action, Outcome, Player};
pub use records::RecordTags;
