//! The roles of an AlphaZero run and what they share: actors play games ([`actor`],
//! [`self_play`]), the learner trains on a window of them ([`learner`], [`replay`]) and
//! gates its checkpoints ([`gating`]), the evaluator and the ladder measure them
//! ([`evaluator`], [`ladder`]), and [`train`] runs them together, synchronously or not,
//! over one run store. Each step returns a typed report ([`reports`]) to one [`Sink`],
//! whose [`Handler`]s listen: the run's event log, the log, a caller's progress bars. A run
//! is opened by [`open_run`], whoever opens it. Beside
//! the loop: [`compare`] (one config's runs side by side) and [`distill`].
//!
//! The config is `zerosum-config`'s, the run's objects `zerosum-store`'s and the players
//! `zerosum-players`'.
#![warn(missing_docs)]

pub mod actor;
pub mod compare;
pub mod distill;
pub mod error;
pub mod evaluation;
pub mod gating;
pub mod history;
pub mod inbox;
pub mod ladder;
pub mod learner;
pub mod open;
pub mod replay;
pub mod reports;
pub mod run;
pub mod self_play;
pub mod sink;

pub use actor::{run_self_play, Actor, ActorOptions, ActorSummary, Lineup};
pub use error::TrainError;
pub use history::RunHistory;
pub use ladder::{run_ladder, LadderOptions};
pub use learner::RunIdentity;
pub use open::{open_run, NewRun, OpenRequest, OpenRun, Opening};
pub use replay::ReplayBuffer;
pub use reports::GenerationReport;
pub use reports::{ActorEvent, LadderReport};
pub use run::{train, train_with, RunSummary, TrainOptions};
pub use self_play::self_play;
pub use sink::{step_line, Handler, Log, Moment, Phase, Report, Silent, Sink};
