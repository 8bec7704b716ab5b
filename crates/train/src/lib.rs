//! Self-play, replay, learner and evaluation: the AlphaZero loop for any game.
//!
//! - [`RunConfig`] composes one config per concern ([`SelfPlayConfig`], [`ReplayConfig`],
//!   [`ArenaConfig`], and the search, model and learner configs of the other crates).
//! - [`train`] runs the roles: actors ([`actor`]: [`self_play`] in batches), the learner
//!   ([`learner`]: [`ReplayBuffer`], gradient steps, checkpoints, gating) and the evaluator
//!   ([`evaluator`]), synchronously or not, sharing one [`RunStore`] (a local path or object
//!   storage, laid out by [`layout`]); it resumes from whatever the run holds. Each step
//!   returns a typed [`Report`] to one [`Sink`], whose [`Handler`]s (the run's event log,
//!   the log, a caller's progress bars) listen.
//! - [`Agent`] is one player interface for the arena, `play` and the protocols; players are
//!   named by [`PlayerSpec`] (`checkpoint:PATH`, `mcts:N`, `random`, `perfect`, `human`).
//! - [`play_match`] alternates colours and reports a [`MatchReport`] with a 95% interval
//!   and the Elo difference; [`run_ladder`] rates a run's checkpoints against fixed
//!   anchors on one Elo scale (Bradley-Terry, `random` = 0).
//! - [`RunHistory`] reads a run's metrics back for reports; [`playback`] reads game record
//!   files and steps through a game.
//!
//! ```
//! use zerosum_train::{arena::play_match, players::{PerfectAgent, RandomAgent}};
//! use zerosum_games::tic_tac_toe::TicTacToe;
//! use rand::{SeedableRng, rngs::SmallRng};
//! let mut rng = SmallRng::seed_from_u64(1);
//! let report = play_match(&TicTacToe::new(), &mut PerfectAgent::new(10_000), &mut RandomAgent, 10, &mut rng, |_, _| {}).unwrap();
//! assert_eq!(report.losses, 0);
//! ```
#![warn(missing_docs)]

pub mod accuracy;
pub mod actor;
pub mod arena;
pub mod checkpoints;
pub mod compare;
pub mod config;
pub mod distill;
pub mod durable;
pub mod engine_process;
pub mod error;
pub mod evaluator;
pub mod events;
pub mod gating;
pub mod gtp_client;
pub mod history;
pub mod inbox;
pub mod ladder;
pub mod layout;
pub mod learner;
pub mod metrics;
pub mod perfect;
pub mod playback;
pub mod players;
pub mod record;
pub mod replay;
pub mod run;
pub mod self_play;
pub mod shipped;
pub mod sink;
pub mod store;
pub mod uci_client;

pub use actor::{run_self_play, Actor, ActorEvent, ActorOptions, ActorSummary, Lineup};
pub use arena::{
    match_torch_threads, play_game, play_match, play_match_with_openings, MatchReport, Thinking,
};
pub use config::{
    ArenaConfig, Inference, Mode, OpeningPlies, PlayConfig, ReplayConfig, ResolvedConfig,
    RunConfig, SelfPlayConfig, CUDA_MAX_BATCH,
};
pub use error::TrainError;
pub use history::RunHistory;
pub use ladder::{run_ladder, LadderOptions, LadderReport};
pub use learner::RunIdentity;
pub use players::{build_agent, Agent, Choice, MctsAgent, PlayerSpec, Tuning};
pub use record::{GameRecord, MoveStats};
pub use replay::ReplayBuffer;
pub use run::{train, train_with, RunSummary, TrainOptions};
pub use self_play::self_play;
pub use sink::{GenerationReport, Handler, Log, Moment, Phase, Report, Silent, Sink};
pub use store::{Put, RunStore};
