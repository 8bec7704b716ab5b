//! The run's event log. Object storage cannot append, so each event is an object of its
//! own, named by its generation and kind ([`names::event`]) and written once: a role that
//! repeats a step after a restart finds its event already there and adds none. Reading
//! lists the objects and returns their lines in name order (the order the loop made them).

use serde::de::DeserializeOwned;
use serde_json::{json, Value};

use crate::error::StoreError;
use crate::names;
use crate::store::{Put, RunStore};

/// What an event records; its name is the `event` field of its line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// A generation's games, played here or read from actors.
    SelfPlay,
    /// The learner's steps of a generation.
    Learn,
    /// A gating decision.
    Gate,
    /// A checkpoint's evaluation.
    Evaluate,
    /// The end of a generation: the run's clock and the headline numbers.
    Generation,
    /// One player's rating in a ladder.
    Ladder,
}

impl EventKind {
    /// Every kind.
    pub const ALL: [EventKind; 6] = [
        EventKind::SelfPlay,
        EventKind::Learn,
        EventKind::Gate,
        EventKind::Evaluate,
        EventKind::Generation,
        EventKind::Ladder,
    ];

    /// The name in the `event` field and in the object's name.
    pub fn name(self) -> &'static str {
        match self {
            EventKind::SelfPlay => "self_play",
            EventKind::Learn => "learn",
            EventKind::Gate => "gate",
            EventKind::Evaluate => "evaluate",
            EventKind::Generation => "generation",
            EventKind::Ladder => "ladder",
        }
    }

    /// The kind named `name`, if it is one.
    pub fn parse(name: &str) -> Option<EventKind> {
        EventKind::ALL.into_iter().find(|kind| kind.name() == name)
    }

    /// Where the kind sorts within its generation: the order the loop makes them.
    fn order(self) -> u8 {
        match self {
            EventKind::SelfPlay => 1,
            EventKind::Learn => 2,
            EventKind::Gate => 3,
            EventKind::Evaluate => 4,
            EventKind::Generation => 5,
            EventKind::Ladder => 9,
        }
    }

    /// The object holding this kind's event of `generation`.
    pub fn object(self, generation: u64) -> String {
        names::event(generation, self.order(), self.name())
    }
}

impl std::fmt::Display for EventKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Builds the JSON line of an event: `event`, `generation`, `step`, `time` (seconds since
/// the Unix epoch), then the fields.
pub fn event_line(
    kind: EventKind,
    generation: Option<u64>,
    step: Option<u64>,
    fields: Value,
) -> String {
    let mut line = json!({ "event": kind.name(), "generation": generation, "step": step, "time": unix_time() });
    if let (Some(line), Value::Object(fields)) = (line.as_object_mut(), fields) {
        line.extend(fields);
    }
    line.to_string()
}

/// Seconds since the Unix epoch.
fn unix_time() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// Records event `kind` of `generation` unless it is recorded already.
pub fn record(
    store: &RunStore,
    kind: EventKind,
    generation: u64,
    step: u64,
    fields: Value,
) -> Result<Put, StoreError> {
    let line = event_line(kind, Some(generation), Some(step), fields);
    store.put_once(&kind.object(generation), line.as_bytes())
}

/// Records a line that belongs to no generation (a ladder's ratings) as
/// `metrics/{name}.json`, unless one of that name exists.
pub fn record_named(store: &RunStore, name: &str, line: &str) -> Result<Put, StoreError> {
    store.put_once(&format!("{}/{name}.json", names::METRICS), line.as_bytes())
}

/// Whether event `kind` of `generation` is recorded.
pub fn recorded(store: &RunStore, kind: EventKind, generation: u64) -> Result<bool, StoreError> {
    Ok(store.get(&kind.object(generation))?.is_some())
}

/// The fields of event `kind` of `generation` read back as the report `T` they were
/// written from; `None` where it is not recorded or does not read as `T` (an event is a
/// record for people and charts, never a reason to stop a run).
pub fn read_report<T: DeserializeOwned>(
    store: &RunStore,
    kind: EventKind,
    generation: u64,
) -> Result<Option<T>, StoreError> {
    Ok(store
        .get(&kind.object(generation))?
        .and_then(|bytes| serde_json::from_slice(&bytes).ok()))
}

/// The whole log as JSON Lines text: every event object in name order.
pub fn read_text(store: &RunStore) -> Result<String, StoreError> {
    let mut text = String::new();
    for name in store.list(names::METRICS)? {
        if let Some(event) = store.get_text(&format!("{}/{name}", names::METRICS))? {
            text.push_str(event.trim_end());
            text.push('\n');
        }
    }
    Ok(text)
}

/// The parsed events of the log, skipping lines that are not JSON.
pub fn read(store: &RunStore) -> Result<Vec<Value>, StoreError> {
    Ok(read_text(store)?
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect())
}

/// The training time of the run in `store` up to `generation`, as its `generation` event
/// recorded it. A generation cut off after its checkpoint but before that event counts the
/// time up to the generation before it plus the seconds its own recorded steps took, and so
/// does one whose event is damaged. None for generation 0 or a run that never recorded one.
pub fn train_seconds_at(store: &RunStore, generation: u64) -> Result<Option<f64>, StoreError> {
    if generation == 0 {
        return Ok(None);
    }
    let seconds = |event: &serde_json::Value| event["train_seconds"].as_f64();
    if let Some(bytes) = store.get(&EventKind::Generation.object(generation))? {
        match serde_json::from_slice::<serde_json::Value>(&bytes) {
            Ok(event) if seconds(&event).is_some() => return Ok(seconds(&event)),
            // Damaged: counted as a generation cut off before its event, below.
            _ => tracing::warn!(
                "{}: not a generation event; its time is counted from its steps",
                store.display(&EventKind::Generation.object(generation))
            ),
        }
    }
    // Read once: generations cut off add up their steps down to one that recorded its time.
    let events = read(store)?;
    let mut steps = 0.0;
    for generation in (1..=generation).rev() {
        let of_generation = || {
            events
                .iter()
                .filter(move |event| event["generation"].as_u64() == Some(generation))
        };
        if let Some(recorded) = of_generation()
            .filter(|event| event["event"] == EventKind::Generation.name())
            .filter_map(seconds)
            .next_back()
        {
            return Ok(Some(recorded + steps));
        }
        let own: f64 = of_generation()
            .filter_map(|event| event["seconds"].as_f64())
            .sum();
        if own == 0.0 {
            return Ok(None);
        }
        steps += own;
    }
    Ok(Some(steps))
}
