//! Typed reports of the roles' steps: what a generation's games, the learner, a gate, an
//! evaluation, a ladder and an actor did. The run's event log keeps them as they serialise.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use zerosum_nn::Losses;
use zerosum_players::arena::MatchReport;
use zerosum_players::players::PlayerSpec;
use zerosum_players::ratings::{headline, Rating};
use zerosum_store::store::Requests;

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
    /// How many different sequences of moves the generation's games played: how much
    /// self-play explores (the same few games over and over teach little).
    pub distinct_games: usize,
    /// Asynchronous runs: how many generations older than the checkpoint the learner had
    /// published the checkpoints that played the generation's batches were, on average.
    pub checkpoint_age: f64,
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
    /// New positions dropped untrained because more arrived than the window holds.
    pub discarded_positions: usize,
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

/// What closes a generation: the headline numbers of its steps, the run's clock and the
/// process's footprint.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct GenerationReport {
    /// Training wall time so far, all sessions of the run together.
    pub train_seconds: f64,
    /// Games the generation trained on.
    pub games: usize,
    /// Recorded positions per second (see [`SelfPlayReport::positions_per_second`]).
    pub positions_per_second: f64,
    /// Mean game length in plies.
    pub mean_length: f64,
    /// The losses of the last tenth of the generation's steps.
    pub loss: Losses,
    /// Positions in the replay window.
    pub window_positions: usize,
    /// The generation's evaluation, if it had one.
    pub evaluation: Option<EvalReport>,
    /// Storage requests made during the generation.
    pub store_requests: Requests,
    /// This process's resident memory at the end, in MiB (Linux).
    pub memory_mib: Option<f64>,
}

/// What one gating decision saw.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GateReport {
    /// The candidate's matches: against the best, then the second best.
    pub matches: Vec<MatchReport>,
    /// Whether the candidate became the best.
    pub promoted: bool,
}

/// What an actor reports as it goes.
#[derive(Clone, Debug)]
pub enum ActorEvent {
    /// Playing with checkpoint `generation` from now on.
    Loaded {
        /// The checkpoint's generation.
        generation: u64,
    },
    /// A batch was written to the outbox.
    Batch {
        /// Its object name.
        name: String,
        /// Games in it.
        games: usize,
        /// Positions recorded per second while playing it.
        positions_per_second: f64,
    },
    /// The store could not take the outbox's batches; the next try is after `retry_in`.
    Waiting {
        /// Batches in the outbox.
        batches: usize,
        /// Why.
        reason: String,
        /// When the next upload is tried.
        retry_in: Duration,
    },
    /// The store took the batches that had waited in the outbox.
    Uploaded {
        /// Batches uploaded.
        batches: usize,
    },
    /// The learner has finished the run's last generation; the actor stops.
    RunComplete,
}

/// One player of the ladder.
#[derive(Clone, Debug, PartialEq)]
pub struct LadderPlayer {
    /// Its name in reports: `gen-0012` for checkpoints, the spec for anchors.
    pub name: String,
    /// How to build it.
    pub spec: PlayerSpec,
    /// The checkpoint's generation; `None` for an anchor.
    pub generation: Option<u64>,
    /// The checkpoint's optimizer step; `None` for an anchor.
    pub step: Option<u64>,
}

/// A player's fitted rating.
#[derive(Clone, Debug, PartialEq)]
pub struct LadderEntry {
    /// The player.
    pub player: LadderPlayer,
    /// Its rating and 95% interval, `random` = 0.
    pub rating: Rating,
    /// Games it played.
    pub games: u32,
}

/// A finished ladder.
#[derive(Clone, Debug)]
pub struct LadderReport {
    /// Which ladder of the run this was (1, 2, ...).
    pub ladder: u64,
    /// Every player's rating, anchors first, then checkpoints by generation.
    pub entries: Vec<LadderEntry>,
    /// Every match, from the first-named player's view.
    pub matches: Vec<MatchReport>,
}

impl LadderReport {
    /// One line for the newest checkpoint: `generation 12: +840 Elo over random (95%: +790
    /// to +890)`.
    pub fn headline(&self) -> Option<String> {
        let newest = self
            .entries
            .iter()
            .rfind(|e| e.player.generation.is_some())?;
        Some(headline(
            newest.player.generation.unwrap_or(0),
            &newest.rating,
        ))
    }
}

/// One player's rating in a ladder, as its `ladder` event records it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LadderRating {
    /// Which ladder of the run (1 for the first `zerosum ladder`, and so on).
    pub ladder: u64,
    /// The player (`gen-0012`, `random`, `mcts:100`).
    pub player: String,
    /// The checkpoint as the run names it (`checkpoints/gen-0012`); `None` for an anchor.
    pub checkpoint: Option<String>,
    /// The rating, with `random` at 0.
    pub elo: f64,
    /// The lower end of the 95% interval.
    pub low: f64,
    /// The upper end of the 95% interval.
    pub high: f64,
    /// Games the player played in the ladder.
    pub games: u64,
    /// Games of each match.
    pub games_per_match: usize,
    /// Simulations per move of the checkpoints' search.
    pub simulations: usize,
    /// Random moves opening each pair of games.
    pub opening_plies: usize,
    /// The ladder's seed.
    pub seed: u64,
    /// The player rated 0.
    pub anchor: String,
}
