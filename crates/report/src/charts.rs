//! What to draw: each plot of the report as plain data, built from a [`RunHistory`].

use zerosum_players::arena::signed_elo;
use zerosum_train::history::RunHistory;
use zerosum_train::reports::LearnerReport;

/// A line through points, with optional 95% intervals drawn as error bars.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// The legend entry.
    pub label: String,
    /// `(x, y)` in data units.
    pub points: Vec<(f64, f64)>,
    /// `(low, high)` per point, or empty for none.
    pub intervals: Vec<(f64, f64)>,
    /// A reference drawn dashed, not a measurement.
    pub dashed: bool,
}

/// A shaded range: `(x, low, high)` per point.
#[derive(Clone, Debug, PartialEq)]
pub struct Band {
    /// The legend entry.
    pub label: String,
    /// `(x, low, high)` in data units.
    pub points: Vec<(f64, f64, f64)>,
}

/// A horizontal reference line at a fixed value (an anchor's rating, 50%).
#[derive(Clone, Debug, PartialEq)]
pub struct Level {
    /// The legend entry.
    pub label: String,
    /// The value.
    pub y: f64,
}

/// One plot.
#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    /// The file stem (`losses` gives `losses.png` and `losses.svg`).
    pub name: &'static str,
    /// The title drawn above the plot.
    pub title: String,
    /// The x axis, with its unit.
    pub x_label: String,
    /// The y axis, with its unit.
    pub y_label: String,
    /// Whether x takes whole numbers only (generations), for tick labels.
    pub x_integer: bool,
    /// A fixed y range, or `None` to fit the data.
    pub y_range: Option<(f64, f64)>,
    /// The lines.
    pub series: Vec<Series>,
    /// Shaded ranges, drawn under the lines.
    pub bands: Vec<Band>,
    /// Reference lines.
    pub levels: Vec<Level>,
    /// A sentence or two for the page: what is drawn and how to read it.
    pub caption: String,
}

impl Chart {
    fn new(name: &'static str, title: &str, x_label: &str, y_label: &str) -> Chart {
        Chart {
            name,
            title: title.to_string(),
            x_label: x_label.to_string(),
            y_label: y_label.to_string(),
            x_integer: x_label.starts_with("generation"),
            y_range: None,
            series: Vec::new(),
            bands: Vec::new(),
            levels: Vec::new(),
            caption: String::new(),
        }
    }

    fn line(&mut self, label: &str, points: Vec<(f64, f64)>) -> &mut Series {
        self.series.push(Series {
            label: label.to_string(),
            points: points
                .into_iter()
                .filter(|p| p.0.is_finite() && p.1.is_finite())
                .collect(),
            intervals: Vec::new(),
            dashed: false,
        });
        self.series.last_mut().expect("pushed just above")
    }

    /// Whether there is nothing measured to draw.
    pub fn is_empty(&self) -> bool {
        self.series.iter().all(|s| s.points.is_empty() || s.dashed)
            && self.bands.iter().all(|b| b.points.is_empty())
    }
}

/// The report's plots, in the order the page shows them.
pub fn charts(history: &RunHistory) -> Vec<Chart> {
    vec![
        losses(history),
        entropy(history),
        win_rates(history),
        elo(history),
        speed(history),
        game_lengths(history),
        replay_window(history),
        memory(history),
    ]
}

fn losses(history: &RunHistory) -> Chart {
    let mut chart = Chart::new(
        "losses",
        "Training loss",
        "optimizer step",
        "loss (policy: nats, value: squared error)",
    );
    let at = |f: fn(&LearnerReport) -> f64| -> Vec<(f64, f64)> {
        history
            .learn
            .iter()
            .map(|p| (p.report.total_steps as f64, f(&p.report)))
            .collect()
    };
    chart.line("policy (cross-entropy)", at(|l| l.final_losses.policy));
    chart.line("value (mean squared error)", at(|l| l.final_losses.value));
    chart.line("total (with L2 penalty)", at(|l| l.final_losses.total));
    chart.caption = "The learner's losses over the last tenth of each generation's optimizer \
        steps, plotted at the step count where the generation ended. Policy: cross-entropy of \
        the network's policy against the search's visit distribution, in nats. Value: mean \
        squared error against the game's outcome (values lie in [-1, 1]). Total: their sum \
        plus the L2 penalty."
        .to_string();
    chart
}

fn entropy(history: &RunHistory) -> Chart {
    let mut chart = Chart::new(
        "entropy",
        "Policy entropy",
        "optimizer step",
        "entropy (nats)",
    );
    let points = |f: fn(&LearnerReport) -> f64| -> Vec<(f64, f64)> {
        history
            .learn
            .iter()
            .map(|p| (p.report.total_steps as f64, f(&p.report)))
            .collect()
    };
    chart.line("network policy", points(|l| l.final_losses.policy_entropy));
    chart
        .line(
            "search targets (floor of the policy loss)",
            points(|l| l.final_losses.target_entropy),
        )
        .dashed = true;
    chart.caption = "How spread out the network's move probabilities are (entropy over the \
        legal moves, in nats), beside the entropy of the search's targets it learns from. A \
        falling curve is a network growing sure of its moves; the gap between policy loss and \
        target entropy is what it has left to learn."
        .to_string();
    chart
}

/// Groups matches by opponent: all previous checkpoints (`gen-0003`, ...) become one
/// series, "previous checkpoint".
fn opponent_series(opponent: &str) -> String {
    let is_checkpoint = opponent
        .strip_prefix("gen-")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    if is_checkpoint {
        "previous checkpoint".to_string()
    } else {
        format!("vs {opponent}")
    }
}

/// Per opponent series: `(label, generation, value, (low, high))` points.
fn per_opponent(
    history: &RunHistory,
    value: impl Fn(&zerosum_players::MatchReport) -> (f64, (f64, f64)),
) -> Vec<Series> {
    let mut series: Vec<Series> = Vec::new();
    for eval in &history.evaluations {
        for m in &eval.report.matches {
            let label = opponent_series(&m.opponent);
            let (y, interval) = value(m);
            let index = match series.iter().position(|s| s.label == label) {
                Some(index) => index,
                None => {
                    series.push(Series {
                        label,
                        points: Vec::new(),
                        intervals: Vec::new(),
                        dashed: false,
                    });
                    series.len() - 1
                }
            };
            series[index].points.push((eval.generation as f64, y));
            series[index].intervals.push(interval);
        }
    }
    series
}

fn win_rates(history: &RunHistory) -> Chart {
    let mut chart = Chart::new(
        "win_rates",
        "Evaluation score against each baseline",
        "generation",
        "score (%, a draw counts half)",
    );
    chart.series = per_opponent(history, |m| {
        let (low, high) = m.score_interval();
        (100.0 * m.score(), (100.0 * low, 100.0 * high))
    });
    chart.y_range = Some((0.0, 100.0));
    chart.levels.push(Level {
        label: "even (50%)".to_string(),
        y: 50.0,
    });
    chart.caption = "The newest checkpoint's score in the evaluation matches of each \
        generation (arena.every), with 95% intervals: wins plus half the draws, over games \
        with colours alternating."
        .to_string();
    chart
}

fn elo(history: &RunHistory) -> Chart {
    if history.ladder.is_empty() {
        let mut chart = Chart::new(
            "elo",
            "Elo difference against each baseline",
            "generation",
            "Elo difference (points)",
        );
        chart.series = per_opponent(history, |m| (m.elo(), m.elo_interval()));
        chart.levels.push(Level {
            label: "equal strength".to_string(),
            y: 0.0,
        });
        chart.caption = "Elo differences implied by each evaluation match's score, with 95% \
            intervals (clamped at ±800 for perfect scores). Run `zerosum ladder` for one \
            rating scale across all checkpoints, anchored at random play."
            .to_string();
        return chart;
    }
    let mut chart = Chart::new(
        "elo",
        "Elo rating per generation (ladder)",
        "generation",
        "Elo (random play = 0)",
    );
    let checkpoints: Vec<_> = history
        .ladder
        .iter()
        .filter(|p| p.generation.is_some())
        .collect();
    chart
        .line(
            "checkpoint",
            checkpoints
                .iter()
                .map(|p| (p.generation.unwrap_or(0) as f64, p.rating.elo))
                .collect(),
        )
        .intervals = checkpoints
        .iter()
        .map(|p| (p.rating.low, p.rating.high))
        .collect();
    for p in history.ladder.iter().filter(|p| p.generation.is_none()) {
        chart.levels.push(Level {
            label: format!("{} ({})", p.rating.player, signed_elo(p.rating.elo)),
            y: p.rating.elo,
        });
    }
    chart.caption = format!(
        "Ratings from `zerosum ladder` (ladder {}): checkpoints played each other and fixed \
        anchors, fitted by maximum likelihood (Bradley-Terry, draws as half wins) with 95% \
        intervals; dashed lines are the anchors.",
        history.ladder[0].rating.ladder
    );
    chart
}

fn speed(history: &RunHistory) -> Chart {
    let mut chart = Chart::new(
        "speed",
        "Self-play speed",
        "generation",
        "positions per second",
    );
    chart.line(
        "self-play positions/s",
        history
            .self_play
            .iter()
            .map(|p| (p.generation as f64, p.report.positions_per_second))
            .collect(),
    );
    chart.caption = "Positions (moves) played per second of self-play wall time, all \
        self-play threads together."
        .to_string();
    chart
}

fn game_lengths(history: &RunHistory) -> Chart {
    let mut chart = Chart::new(
        "game_lengths",
        "Self-play game length",
        "generation",
        "game length (plies)",
    );
    chart.bands.push(Band {
        label: "shortest to longest".to_string(),
        points: history
            .self_play
            .iter()
            .map(|p| {
                let report = &p.report;
                let (min, max) = (report.min_length as f64, report.max_length as f64);
                (p.generation as f64, min, max)
            })
            .filter(|p| p.1.is_finite() && p.2.is_finite())
            .collect(),
    });
    chart.line(
        "mean",
        history
            .self_play
            .iter()
            .map(|p| (p.generation as f64, p.report.mean_length))
            .collect(),
    );
    chart.caption =
        "Plies per self-play game in each generation: the mean, and the shortest to the longest."
            .to_string();
    chart
}

fn replay_window(history: &RunHistory) -> Chart {
    let mut chart = Chart::new(
        "replay_window",
        "Replay window",
        "generation",
        "positions in the window",
    );
    chart.line(
        "positions",
        history
            .learn
            .iter()
            .map(|p| (p.generation as f64, p.report.window_positions as f64))
            .collect(),
    );
    chart.caption = "Positions the learner sampled from in each generation: the replay \
        window of recent self-play (replay.window_positions)."
        .to_string();
    chart
}

fn memory(history: &RunHistory) -> Chart {
    let mut chart = Chart::new(
        "memory",
        "Memory",
        "training time (minutes)",
        "resident memory (MiB)",
    );
    chart.line(
        "training process",
        history
            .generations
            .iter()
            .map(|p| {
                let memory = p.report.memory_mib.unwrap_or(f64::NAN);
                (p.report.train_seconds / 60.0, memory)
            })
            .filter(|p| p.0.is_finite() && p.1.is_finite())
            .collect(),
    );
    chart.caption = "The training process's resident memory at the end of each generation. \
        Once the replay window is full it should stay level: a line that keeps rising is a \
        leak."
        .to_string();
    chart
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn previous_checkpoints_share_a_series() {
        assert_eq!(opponent_series("gen-0004"), "previous checkpoint");
        assert_eq!(opponent_series("mcts:50"), "vs mcts:50");
        assert_eq!(opponent_series("gen-"), "vs gen-");
    }
}
