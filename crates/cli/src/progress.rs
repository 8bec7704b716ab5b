//! Progress bars for the training loop (only the binary draws them).

use indicatif::{ProgressBar, ProgressStyle};
use zerosum_train::Progress;

/// Draws one bar per phase on stderr and prints a summary line per phase on stdout.
pub struct Bars {
    bar: Option<ProgressBar>,
    generation: u64,
    phase: String,
}

impl Bars {
    pub fn new() -> Bars {
        Bars {
            bar: None,
            generation: 0,
            phase: String::new(),
        }
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

impl Progress for Bars {
    fn start(&mut self, generation: u64, phase: &str, total: u64) {
        let bar = ProgressBar::new(total);
        bar.set_style(
            ProgressStyle::with_template("{prefix:>18} [{bar:30}] {pos}/{len} {per_sec} eta {eta}")
                .expect("the template is valid")
                .progress_chars("=> "),
        );
        bar.set_prefix(format!("gen {generation} {phase}"));
        self.bar = Some(bar);
        self.generation = generation;
        self.phase = phase.to_string();
    }

    fn advance(&mut self, done: u64) {
        if let Some(bar) = &self.bar {
            bar.inc(done);
        }
    }

    fn finish(&mut self, summary: &str) {
        let elapsed = self
            .bar
            .as_ref()
            .map(|b| b.elapsed().as_secs_f64())
            .unwrap_or(0.0);
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        println!(
            "gen {:>3} {:<9} {:>6.1}s  {}",
            self.generation, self.phase, elapsed, summary
        );
    }
}
