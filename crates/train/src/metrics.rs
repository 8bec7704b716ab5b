//! Typed reports of the training loop's steps, and the JSON line an event is written as.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use zerosum_nn::Losses;

use crate::arena::MatchReport;

/// What one generation of self-play produced.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SelfPlayReport {
    /// Games finished this generation (resumed ones included).
    pub games: usize,
    /// Moves played: every position of every game, a training sample or not.
    pub moves: usize,
    /// Mean game length in plies.
    pub mean_length: f64,
    /// Shortest and longest game.
    pub min_length: usize,
    /// Longest game.
    pub max_length: usize,
    /// Share of games won by the first player, drawn, won by the second.
    pub first_wins: f64,
    /// Share of draws.
    pub draws: f64,
    /// Share of games won by the second player.
    pub second_wins: f64,
    /// Recorded positions (training samples) per second of self-play wall time: fewer than
    /// the moves played under playout cap randomization, which records only the fully
    /// searched moves. Asynchronous runs: recorded positions reaching the learner per second
    /// of the generation (from the end of the one before).
    pub positions_per_second: f64,
    /// Simulations per second.
    pub simulations_per_second: f64,
    /// Network evaluations per second.
    pub evaluations_per_second: f64,
    /// Mean batch size of the network calls.
    pub mean_batch: f64,
    /// Share of leaf evaluations answered by the cache.
    pub cache_hit_rate: f64,
    /// Seconds spent.
    pub seconds: f64,
    /// Asynchronous runs: the actors whose batches this generation read.
    pub actors: usize,
    /// Asynchronous runs: batches passed over as played by too old a checkpoint.
    pub stale_batches: usize,
}

/// What the learner did in one generation.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct LearnerReport {
    /// Gradient steps this generation.
    pub steps: u64,
    /// Total gradient steps so far.
    pub total_steps: u64,
    /// Positions in the replay window.
    pub window_positions: usize,
    /// Positions this generation added to the window.
    pub new_positions: usize,
    /// Training samples drawn per new position (capped by `replay.reuse`).
    pub samples_per_new_position: f64,
    /// The mean of each loss term over the generation's steps.
    pub losses: Losses,
    /// The losses of the last tenth of the steps.
    pub final_losses: Losses,
    /// The learning rate in force at the end.
    pub learning_rate: f64,
    /// Seconds spent.
    pub seconds: f64,
}

/// Evaluation results of one checkpoint.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct EvalReport {
    /// One match per opponent.
    pub matches: Vec<MatchReport>,
    /// Seconds spent.
    pub seconds: f64,
}

/// This process's resident memory in MiB, from /proc (Linux); `None` elsewhere.
pub fn resident_memory_mib() -> Option<f64> {
    process_status_mib("VmRSS:")
}

/// This process's peak resident memory so far in MiB, from /proc (Linux); `None` elsewhere.
pub fn peak_memory_mib() -> Option<f64> {
    process_status_mib("VmHWM:")
}

/// A size in KiB from /proc/self/status, in MiB.
fn process_status_mib(field: &str) -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kib: f64 = status
        .lines()
        .find(|l| l.starts_with(field))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    Some(kib / 1024.0)
}

/// Builds the JSON line of an event: `event`, `generation`, `step`, `time` (seconds since
/// the Unix epoch), then the fields.
pub fn event_line(event: &str, generation: u64, step: u64, fields: Value) -> String {
    let time = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0);
    let mut line = json!({ "event": event, "generation": generation, "step": step, "time": time });
    if let (Some(line), Value::Object(fields)) = (line.as_object_mut(), fields) {
        line.extend(fields);
    }
    line.to_string()
}
