//! What the command line shows of the roles' work: a progress bar per phase on stderr and a
//! line per finished step on stdout, both drawn from the reports the roles hand their sink.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use indicatif::{ProgressBar, ProgressStyle};
use zerosum_train::{step_line, ActorEvent, Handler, Moment, Phase, Report, TrainError};

/// The command line's [`Handler`]: bars while a phase runs, one summary line when it ends.
pub struct Console {
    bar: Option<ProgressBar>,
    generation: u64,
    phase: &'static str,
    stop: Option<Arc<AtomicBool>>,
    told_of_stop: bool,
}

impl Console {
    pub fn new() -> Console {
        Console {
            bar: None,
            generation: 0,
            phase: "",
            stop: None,
            told_of_stop: false,
        }
    }

    /// Says once, when `stop` is set, that the run ends after the generation under way is
    /// saved (the loop stops it; a Ctrl-C loses none of its work).
    pub fn noting_stop(self, stop: Arc<AtomicBool>) -> Console {
        Console {
            stop: Some(stop),
            ..self
        }
    }

    /// The last generation whose report came.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Says once that a stop was asked for, and what it will do.
    fn note_stop(&mut self) {
        let asked = self
            .stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed));
        if asked && !self.told_of_stop {
            self.told_of_stop = true;
            let line = format!(
                "note: stopping once generation {} is saved (Ctrl-C again stops at once and loses it)",
                self.generation
            );
            match &self.bar {
                Some(bar) => bar.suspend(|| eprintln!("{line}")),
                None => eprintln!("{line}"),
            }
        }
    }

    /// Ends the phase's bar and prints `summary` after its generation, name and duration.
    fn finish(&mut self, generation: u64, phase: &str, summary: &str) {
        let mut elapsed = 0.0;
        if let Some(bar) = self.bar.take() {
            elapsed = bar.elapsed().as_secs_f64();
            bar.finish_and_clear();
        }
        println!("{}", step_line(generation, phase, elapsed, summary));
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
        self.note_stop();
        if let Some(bar) = &self.bar {
            bar.inc(done);
        }
    }

    fn reported(&mut self, at: Moment, report: Report<'_>) -> Result<(), TrainError> {
        if let Some(summary) = report.summary() {
            match report {
                Report::Actor(ActorEvent::Waiting { .. }) => eprintln!("warning: {summary}"),
                Report::Actor(_) => println!("{summary}"),
                _ => {
                    let phase = report.step().unwrap_or(self.phase);
                    self.finish(at.generation, phase, &summary);
                }
            }
        }
        if matches!(report, Report::Generation(_)) {
            self.generation = at.generation;
            self.note_stop();
        }
        Ok(())
    }
}

/// Bars for the phases of a command's work outside a run (`distill`): one at a time, each
/// cleared once its work is done, so that the lines printed between phases stay readable.
#[derive(Default)]
pub struct Phases {
    bar: Option<ProgressBar>,
}

impl Handler for Phases {
    fn phase_started(&mut self, _generation: u64, phase: Phase, total: u64) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        self.bar = Some(job_bar(total, phase.name()));
    }

    fn phase_advanced(&mut self, done: u64) {
        if let Some(bar) = &self.bar {
            bar.inc(done);
            if bar.length().is_some_and(|length| bar.position() >= length) {
                bar.finish_and_clear();
                self.bar = None;
            }
        }
    }
}
