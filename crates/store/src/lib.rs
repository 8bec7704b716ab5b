//! A run's objects and nothing else: where they are kept ([`RunStore`], a local path or
//! object storage), what they are called ([`names`]), checkpoints as bytes
//! ([`checkpoints`]), game records ([`GameRecord`], read back by [`playback`]), the event
//! log ([`events`], one object per [`EventKind`] and generation) and files that survive a
//! power loss ([`durable`]). It knows no training: the roles of `zerosum-train` decide what
//! to write and when.
#![warn(missing_docs)]

pub mod checkpoints;
pub mod durable;
pub mod error;
pub mod events;
pub mod names;
pub mod playback;
pub mod record;
pub mod store;

pub use error::StoreError;
pub use events::EventKind;
pub use record::{GameRecord, MoveStats};
pub use store::{is_url, Put, Requests, RunStore};
