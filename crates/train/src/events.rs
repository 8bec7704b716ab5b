//! The run's event log. Object storage cannot append, so each event is an object of its
//! own, named by its generation and kind ([`layout::event`]) and written once: a role that
//! repeats a step after a restart finds its event already there and adds none. Reading
//! lists the objects and returns their lines in name order (the order the loop made them),
//! after the lines of a `metrics.jsonl` written before events were objects.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::TrainError;
use crate::layout;
use crate::metrics::event_line;
use crate::sink::{Handler, Moment, Report};
use crate::store::{Put, RunStore};

/// The handler that writes each report of a generation to the run's event log, once.
pub struct EventLog<'a> {
    store: &'a RunStore,
}

impl<'a> EventLog<'a> {
    /// The event log of the run in `store`.
    pub fn new(store: &'a RunStore) -> EventLog<'a> {
        EventLog { store }
    }
}

impl Handler for EventLog<'_> {
    fn reported(&mut self, at: Moment, report: Report<'_>) -> Result<(), TrainError> {
        if let Some((kind, fields)) = report.event() {
            record(self.store, kind, at.generation, at.step, fields)?;
        }
        Ok(())
    }
}

/// Where each kind of event sorts within its generation.
fn order(kind: &str) -> u8 {
    match kind {
        "self_play" => 1,
        "learn" => 2,
        "gate" => 3,
        "evaluate" => 4,
        "generation" => 5,
        _ => 9,
    }
}

/// Records event `kind` of `generation` unless it is recorded already.
pub fn record(
    store: &RunStore,
    kind: &str,
    generation: u64,
    step: u64,
    fields: Value,
) -> Result<Put, TrainError> {
    let line = event_line(kind, generation, step, fields);
    store.put_once(
        &layout::event(generation, order(kind), kind),
        line.as_bytes(),
    )
}

/// Records a line that belongs to no generation (a ladder's ratings) as
/// `metrics/{name}.json`, unless one of that name exists.
pub fn record_named(store: &RunStore, name: &str, line: &str) -> Result<Put, TrainError> {
    store.put_once(&format!("{}/{name}.json", layout::METRICS), line.as_bytes())
}

/// Whether event `kind` of `generation` is recorded.
pub fn recorded(store: &RunStore, kind: &str, generation: u64) -> Result<bool, TrainError> {
    Ok(store
        .get(&layout::event(generation, order(kind), kind))?
        .is_some())
}

/// The fields of event `kind` of `generation` read back as the report `T` they were
/// written from; `None` where it is not recorded or does not read as `T` (an event is a
/// record for people and charts, never a reason to stop a run).
pub fn read_report<T: DeserializeOwned>(
    store: &RunStore,
    kind: &str,
    generation: u64,
) -> Result<Option<T>, TrainError> {
    Ok(store
        .get(&layout::event(generation, order(kind), kind))?
        .and_then(|bytes| serde_json::from_slice(&bytes).ok()))
}

/// The whole log as JSON Lines text: a legacy `metrics.jsonl` first, then every event
/// object in name order.
pub fn read_text(store: &RunStore) -> Result<String, TrainError> {
    let mut text = store.get_text(layout::LEGACY_METRICS)?.unwrap_or_default();
    for name in store.list(layout::METRICS)? {
        if let Some(event) = store.get_text(&format!("{}/{name}", layout::METRICS))? {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(event.trim_end());
            text.push('\n');
        }
    }
    Ok(text)
}

/// The parsed events of the log, skipping lines that are not JSON.
pub fn read(store: &RunStore) -> Result<Vec<Value>, TrainError> {
    Ok(read_text(store)?
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect())
}
