//! Who plays: player specs and the agents they build ([`PlayerSpec`], [`Agent`]), matches
//! between two of them ([`arena`]), Elo ratings on one scale ([`ratings`]), accuracy
//! against solved positions ([`accuracy`], [`perfect`]), the models shipped with zerosum
//! ([`shipped`]), resignation for the front ends ([`resign`]) and programs outside zerosum
//! over GTP and UCI ([`gtp_client`], [`uci_client`], [`engine_process`]).
//!
//! ```
//! use zerosum_players::{arena::play_match, players::{PerfectAgent, RandomAgent}};
//! use zerosum_games::tic_tac_toe::TicTacToe;
//! use rand::{SeedableRng, rngs::SmallRng};
//! let mut rng = SmallRng::seed_from_u64(1);
//! let report = play_match(&TicTacToe::new(), &mut PerfectAgent::new(10_000), &mut RandomAgent, 10, &mut rng, |_, _| {}).unwrap();
//! assert_eq!(report.losses, 0);
//! ```
#![warn(missing_docs)]

pub mod accuracy;
pub mod agent;
pub mod arena;
pub mod engine_process;
pub mod error;
pub mod gtp_client;
pub mod perfect;
pub mod players;
pub mod ratings;
pub mod resign;
pub mod shipped;
pub mod uci_client;

pub use agent::{Agent, Choice};
pub use arena::{
    match_torch_threads, play_game, play_match, play_match_with_openings, MatchReport, Thinking,
};
pub use error::PlayError;
pub use players::{build_agent, MctsAgent, PlayerSpec, Tuning};
