//! One sink for everything the roles report. Each step of a role (a generation's games, the
//! learner's training, a gate, an evaluation, an actor's batch) returns a typed [`Report`];
//! the loop hands it to a [`Handler`], and whatever listens (the run's event log, the
//! command line's progress bars, the log) is one handler among those a [`Sink`] fans out to,
//! as the loop of AlphaZero.jl reports to its handlers.

use serde::Serialize;
use serde_json::Value;

use zerosum_store::{events, names, EventKind, RunStore};

use crate::error::TrainError;
use crate::reports::{
    ActorEvent, EvalReport, GateReport, GenerationReport, LadderReport, LearnerReport,
    SelfPlayReport,
};

/// A stretch of work that reports progress as it goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// A synchronous generation's games, played here.
    SelfPlay,
    /// An asynchronous generation's games, read from the actors' batches.
    Collect,
    /// Gradient steps.
    Learn,
    /// Evaluation games.
    Evaluate,
    /// A ladder's games.
    Ladder,
}

impl Phase {
    /// A short name for progress bars.
    pub fn name(self) -> &'static str {
        match self {
            Phase::SelfPlay => "self-play",
            Phase::Collect => "games",
            Phase::Learn => "learn",
            Phase::Evaluate => "evaluate",
            Phase::Ladder => "ladder",
        }
    }
}

/// Where a report belongs: the generation it is part of and the learner's step count then.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Moment {
    /// The generation (for an actor, that of the checkpoint it plays).
    pub generation: u64,
    /// Gradient steps taken in all.
    pub step: u64,
}

/// A finished step of a role.
#[derive(Clone, Copy, Debug)]
pub enum Report<'a> {
    /// A generation's games, played here or read from actors.
    SelfPlay(&'a SelfPlayReport),
    /// The learner's steps of a generation.
    Learn(&'a LearnerReport),
    /// A gating decision.
    Gate(&'a GateReport),
    /// A checkpoint's evaluation.
    Evaluate(&'a EvalReport),
    /// The end of a generation.
    Generation(&'a GenerationReport),
    /// A ladder's ratings.
    Ladder(&'a LadderReport),
    /// Something an actor did.
    Actor(&'a ActorEvent),
}

impl Report<'_> {
    /// The report's kind in the run's event log, and its fields there; `None` for the
    /// reports the log does not keep per generation (ladders write their own lines, actors
    /// write batches).
    pub fn event(&self) -> Option<(EventKind, Value)> {
        Some(match self {
            Report::SelfPlay(report) => (EventKind::SelfPlay, fields(*report)),
            Report::Learn(report) => (EventKind::Learn, fields(*report)),
            Report::Gate(report) => (EventKind::Gate, fields(*report)),
            Report::Evaluate(report) => (EventKind::Evaluate, fields(*report)),
            Report::Generation(report) => (EventKind::Generation, fields(*report)),
            Report::Ladder(_) | Report::Actor(_) => return None,
        })
    }
}

impl Report<'_> {
    /// The name of the step a report closes, for its line; `None` for a generation's
    /// games, which are named by their phase (`self-play` here, `games` from actors).
    pub fn step(&self) -> Option<&'static str> {
        match self {
            Report::Learn(_) => Some(EventKind::Learn.name()),
            Report::Gate(_) => Some(EventKind::Gate.name()),
            Report::Evaluate(_) => Some(EventKind::Evaluate.name()),
            Report::Ladder(_) => Some(EventKind::Ladder.name()),
            Report::SelfPlay(_) | Report::Generation(_) | Report::Actor(_) => None,
        }
    }

    /// The report as one line for people: a generation's games, losses, match scores, an
    /// actor's batch; `None` for the end of a generation, which adds nothing to its steps.
    pub fn summary(&self) -> Option<String> {
        Some(match self {
            Report::SelfPlay(report) => self_play_line(report),
            Report::Learn(report) => {
                let losses = &report.final_losses;
                format!(
                    "{} steps, loss {:.3} (policy {:.3}, value {:.3}), policy entropy {:.3}",
                    report.steps, losses.total, losses.policy, losses.value, losses.policy_entropy
                )
            }
            Report::Gate(gate) => {
                let verdict = if gate.promoted {
                    "promoted"
                } else {
                    "kept the best"
                };
                let matches: Vec<String> = gate
                    .matches
                    .iter()
                    .map(|m| format!("{:.0}% vs {}", 100.0 * m.score(), m.opponent))
                    .collect();
                format!("{verdict} ({})", matches.join(", "))
            }
            Report::Evaluate(eval) => {
                let matches: Vec<String> = eval
                    .matches
                    .iter()
                    .map(|m| {
                        let score = 100.0 * m.score();
                        let elo = zerosum_players::arena::signed_elo(m.elo());
                        format!("vs {}: {score:.0}% (Elo {elo})", m.opponent)
                    })
                    .collect();
                matches.join(", ")
            }
            Report::Ladder(ladder) => ladder.headline().unwrap_or_default(),
            Report::Actor(event) => actor_line(event),
            Report::Generation(_) => return None,
        })
    }
}

fn self_play_line(report: &SelfPlayReport) -> String {
    // Who won shows a run whose self-play has become one-sided (every value target the
    // same), which no loss curve makes plain.
    let outcomes = format!(
        "first player won {:.0}%, drawn {:.0}%",
        100.0 * report.first_wins,
        100.0 * report.draws
    );
    if report.actors > 0 || report.stale_batches > 0 {
        return format!(
            "{} games from {} actors ({outcomes}), {:.1} plies/game, {:.0} positions/s ({} stale batches passed over)",
            report.games,
            report.actors,
            report.mean_length,
            report.positions_per_second,
            report.stale_batches
        );
    }
    format!(
        "{} games ({outcomes}), {:.1} plies/game, {:.0} positions/s, {:.0} evals/s",
        report.games,
        report.mean_length,
        report.positions_per_second,
        report.evaluations_per_second
    )
}

fn actor_line(event: &ActorEvent) -> String {
    match event {
        ActorEvent::Loaded { generation } => format!(
            "playing with checkpoint {}",
            names::generation_name(*generation)
        ),
        ActorEvent::Batch {
            name,
            games,
            positions_per_second,
        } => format!("{name}: {games} games, {positions_per_second:.0} positions/s"),
        ActorEvent::Waiting {
            batches,
            reason,
            retry_in,
        } => format!(
            "{reason}; {batches} batches wait in the outbox, next try in {:.1} s",
            retry_in.as_secs_f64()
        ),
        ActorEvent::Uploaded { batches } => format!("uploaded {batches} batches from the outbox"),
        ActorEvent::RunComplete => "the run has trained its last generation".to_string(),
    }
}

fn fields<T: Serialize>(report: &T) -> Value {
    serde_json::to_value(report).expect("reports serialise")
}

/// Listens to the roles. Every method ignores what it is told unless a handler says
/// otherwise, so a handler names only what it listens to.
pub trait Handler {
    /// `phase` of `generation` begins, with `total` units of work.
    fn phase_started(&mut self, _generation: u64, _phase: Phase, _total: u64) {}
    /// `done` more units of the phase finished.
    fn phase_advanced(&mut self, _done: u64) {}
    /// A step finished; an error (the event log could not be written) stops the run.
    fn reported(&mut self, _at: Moment, _report: Report<'_>) -> Result<(), TrainError> {
        Ok(())
    }
}

/// The handler that listens to nothing.
pub struct Silent;

impl Handler for Silent {}

/// Writes each report to the log (`tracing`): generations' steps at info level, actors'
/// doings at debug level. `ZEROSUM_LOG=info` shows them.
pub struct Log;

impl Handler for Log {
    fn reported(&mut self, at: Moment, report: Report<'_>) -> Result<(), TrainError> {
        match (report, report.event()) {
            (Report::Actor(event), _) => tracing::debug!(generation = at.generation, ?event),
            (Report::Ladder(ladder), _) => {
                tracing::info!(ladder = ladder.ladder, headline = ?ladder.headline())
            }
            (_, Some((kind, fields))) => {
                tracing::info!(generation = at.generation, step = at.step, kind = kind.name(), %fields)
            }
            (_, None) => {}
        }
        Ok(())
    }
}

/// Hands everything to each of its handlers in turn; the first error stops the report there
/// and is returned.
#[derive(Default)]
pub struct Sink<'a> {
    handlers: Vec<&'a mut dyn Handler>,
}

impl<'a> Sink<'a> {
    /// A sink with no handlers.
    pub fn new() -> Sink<'a> {
        Sink::default()
    }

    /// The sink with `handler` listening after those already there.
    pub fn with(mut self, handler: &'a mut dyn Handler) -> Sink<'a> {
        self.handlers.push(handler);
        self
    }
}

impl Handler for Sink<'_> {
    fn phase_started(&mut self, generation: u64, phase: Phase, total: u64) {
        for handler in &mut self.handlers {
            handler.phase_started(generation, phase, total);
        }
    }

    fn phase_advanced(&mut self, done: u64) {
        for handler in &mut self.handlers {
            handler.phase_advanced(done);
        }
    }

    fn reported(&mut self, at: Moment, report: Report<'_>) -> Result<(), TrainError> {
        self.handlers
            .iter_mut()
            .try_for_each(|handler| handler.reported(at, report))
    }
}

/// The line a finished step is shown as, on the command line and in Python alike:
/// `gen  12 learn       3.2s  400 steps, loss 1.234 ...`.
pub fn step_line(generation: u64, step: &str, seconds: f64, summary: &str) -> String {
    format!("gen {generation:>3} {step:<9} {seconds:>6.1}s  {summary}")
}

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
            events::record(self.store, kind, at.generation, at.step, fields)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Remembers what it heard, one line per call.
    #[derive(Default)]
    struct Heard(Vec<String>);

    impl Handler for Heard {
        fn phase_started(&mut self, generation: u64, phase: Phase, total: u64) {
            self.0
                .push(format!("start {generation} {} {total}", phase.name()));
        }
        fn phase_advanced(&mut self, done: u64) {
            self.0.push(format!("advance {done}"));
        }
        fn reported(&mut self, at: Moment, report: Report<'_>) -> Result<(), TrainError> {
            let kind = report.event().map_or("other", |(kind, _)| kind.name());
            self.0.push(format!("{kind} {} {}", at.generation, at.step));
            Ok(())
        }
    }

    /// Fails every report.
    struct Broken;

    impl Handler for Broken {
        fn reported(&mut self, _: Moment, _: Report<'_>) -> Result<(), TrainError> {
            Err(zerosum_store::StoreError::Location {
                location: "memory".into(),
                reason: "the log is full".into(),
            }
            .into())
        }
    }

    #[test]
    fn a_sink_hands_everything_to_each_handler_in_order() {
        let (mut first, mut second) = (Heard::default(), Heard::default());
        let mut sink = Sink::new().with(&mut first).with(&mut second);
        sink.phase_started(3, Phase::Learn, 10);
        sink.phase_advanced(4);
        let at = Moment {
            generation: 3,
            step: 40,
        };
        sink.reported(at, Report::Learn(&LearnerReport::default()))
            .unwrap();
        sink.reported(at, Report::Actor(&ActorEvent::RunComplete))
            .unwrap();
        drop(sink);
        let expected = ["start 3 learn 10", "advance 4", "learn 3 40", "other 3 40"];
        assert_eq!(first.0, expected);
        assert_eq!(second.0, expected);
    }

    #[test]
    fn the_self_play_line_says_who_won() {
        let report = SelfPlayReport {
            games: 64,
            first_wins: 0.03125,
            draws: 0.0,
            second_wins: 0.96875,
            mean_length: 110.0,
            ..SelfPlayReport::default()
        };
        let line = Report::SelfPlay(&report).summary().unwrap();
        assert!(
            line.starts_with("64 games (first player won 3%, drawn 0%), 110.0 plies/game"),
            "{line}"
        );
    }

    #[test]
    fn the_first_failing_handler_stops_the_report() {
        let (mut broken, mut after) = (Broken, Heard::default());
        let mut sink = Sink::new().with(&mut broken).with(&mut after);
        let report = SelfPlayReport::default();
        let result = sink.reported(Moment::default(), Report::SelfPlay(&report));
        assert!(result.unwrap_err().to_string().contains("the log is full"));
        drop(sink);
        assert!(after.0.is_empty());
    }

    #[test]
    fn events_carry_the_reports_fields() {
        let report = SelfPlayReport {
            games: 7,
            ..SelfPlayReport::default()
        };
        let (kind, fields) = Report::SelfPlay(&report).event().unwrap();
        assert_eq!(kind, EventKind::SelfPlay);
        assert_eq!(fields["games"], 7);
        assert!(Report::Actor(&ActorEvent::RunComplete).event().is_none());
    }
}
