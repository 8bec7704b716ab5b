//! What the command line shows of the roles' work: a progress bar per phase on stderr and a
//! line per finished step on stdout, both drawn from the reports the roles hand their sink.

use indicatif::{ProgressBar, ProgressStyle};
use zerosum_train::metrics::{EvalReport, LearnerReport, SelfPlayReport};
use zerosum_train::{ActorEvent, Handler, Moment, Phase, Report, TrainError};

/// The command line's [`Handler`]: bars while a phase runs, one summary line when it ends.
pub struct Console {
    bar: Option<ProgressBar>,
    generation: u64,
    phase: &'static str,
}

impl Console {
    pub fn new() -> Console {
        Console {
            bar: None,
            generation: 0,
            phase: "",
        }
    }

    /// Ends the phase's bar and prints `summary` after its generation, name and duration.
    fn finish(&mut self, generation: u64, phase: &str, summary: &str) {
        let mut elapsed = 0.0;
        if let Some(bar) = self.bar.take() {
            elapsed = bar.elapsed().as_secs_f64();
            bar.finish_and_clear();
        }
        println!("gen {generation:>3} {phase:<9} {elapsed:>6.1}s  {summary}");
    }
}

/// A bar for one long job of a command (`label` on the left), drawn on stderr.
pub fn job_bar(total: u64, label: &str) -> ProgressBar {
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template("{prefix:>24} [{bar:30}] {pos}/{len} {per_sec} eta {eta}")
            .expect("the template is valid")
            .progress_chars("=> "),
    );
    bar.set_prefix(label.to_string());
    bar
}

impl Handler for Console {
    fn phase_started(&mut self, generation: u64, phase: Phase, total: u64) {
        let bar = ProgressBar::new(total);
        bar.set_style(
            ProgressStyle::with_template("{prefix:>18} [{bar:30}] {pos}/{len} {per_sec} eta {eta}")
                .expect("the template is valid")
                .progress_chars("=> "),
        );
        bar.set_prefix(format!("gen {generation} {}", phase.name()));
        self.bar = Some(bar);
        self.generation = generation;
        self.phase = phase.name();
    }

    fn phase_advanced(&mut self, done: u64) {
        if let Some(bar) = &self.bar {
            bar.inc(done);
        }
    }

    fn reported(&mut self, at: Moment, report: Report<'_>) -> Result<(), TrainError> {
        let generation = at.generation;
        let phase = self.phase;
        match report {
            Report::SelfPlay(games) => self.finish(generation, phase, &self_play_line(games)),
            Report::Learn(learned) => self.finish(generation, "learn", &learn_line(learned)),
            Report::Gate(gate) => {
                let matches = gate
                    .matches
                    .iter()
                    .map(|m| format!("{:.0}% vs {}", 100.0 * m.score(), m.opponent))
                    .collect::<Vec<_>>()
                    .join(", ");
                let verdict = match gate.promoted {
                    true => "promoted",
                    false => "kept the best",
                };
                self.finish(generation, "gate", &format!("{verdict} ({matches})"));
            }
            Report::Evaluate(eval) => self.finish(generation, "evaluate", &evaluate_line(eval)),
            Report::Ladder(ladder) => {
                let headline = ladder.headline().unwrap_or_default();
                self.finish(generation, "ladder", &headline);
            }
            Report::Actor(event) => actor_line(event),
            Report::Generation(_) => {}
        }
        Ok(())
    }
}

fn self_play_line(report: &SelfPlayReport) -> String {
    if report.actors > 0 || report.stale_batches > 0 {
        return format!(
            "{} games from {} actors, {:.1} plies/game, {:.0} positions/s ({} stale batches passed over)",
            report.games,
            report.actors,
            report.mean_length,
            report.positions_per_second,
            report.stale_batches
        );
    }
    format!(
        "{} games, {:.1} plies/game, {:.0} positions/s, {:.0} evals/s",
        report.games,
        report.mean_length,
        report.positions_per_second,
        report.evaluations_per_second
    )
}

fn learn_line(report: &LearnerReport) -> String {
    let losses = &report.final_losses;
    format!(
        "{} steps, loss {:.3} (policy {:.3}, value {:.3}), policy entropy {:.3}",
        report.steps, losses.total, losses.policy, losses.value, losses.policy_entropy
    )
}

fn evaluate_line(report: &EvalReport) -> String {
    report
        .matches
        .iter()
        .map(|m| {
            format!(
                "vs {}: {:.0}% (Elo {:+.0})",
                m.opponent,
                100.0 * m.score(),
                m.elo()
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// An actor's doings: a line each, warnings on stderr.
fn actor_line(event: &ActorEvent) {
    match event {
        ActorEvent::Loaded { generation } => {
            println!("playing with checkpoint gen-{generation:04}")
        }
        ActorEvent::Batch {
            name,
            games,
            positions_per_second,
        } => println!("{name}: {games} games, {positions_per_second:.0} positions/s"),
        ActorEvent::Waiting {
            batches,
            reason,
            retry_in,
        } => eprintln!(
            "warning: {reason}; {batches} batches wait in the outbox, next try in {:.1} s",
            retry_in.as_secs_f64()
        ),
        ActorEvent::Uploaded { batches } => println!("uploaded {batches} batches from the outbox"),
        ActorEvent::RunComplete => println!("the run has trained its last generation"),
    }
}
