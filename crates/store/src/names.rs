//! What a run's objects are called: the one place that names them (docs/run-directory.md
//! describes the same layout for people).
//!
//! ```text
//! run.json                               what made the run: format, game, zerosum version
//! config.toml                            the resolved config (replaced when the learner starts)
//! checkpoints/gen-0005.safetensors       weights of generation 5 (put once)
//! checkpoints/gen-0005.optimizer.safetensors  the learner's optimizer state with it
//! checkpoints/gen-0005.json              its metadata; a checkpoint counts once this exists
//! checkpoints/latest                     pointer to the newest published checkpoint (the one
//!                                        object rewritten during a run)
//! games/gen-0005/0003.jsonl              synchronous runs: batch 3 of generation 5's games
//! games/actors/ACTOR/000012-g0004.jsonl  asynchronous runs: batch 12 of ACTOR, played by
//!                                        checkpoint gen-0004
//! ingested/gen-0005.json                 the actor batches the learner's generation 5 read
//! gating/gen-0005.json                   gating's decision on generation 5 and the best so far
//! metrics/gen-0005-2-learn.json          one event each; read back in name order
//! ```
//!
//! Every batch is JSON Lines, one [`crate::GameRecord`] per line, as `zerosum arena --save`
//! writes. `run.json` names the format ([`FORMAT`]); a run of another format is refused.

/// Identity of the run: checked by every role that joins it.
pub const RUN: &str = "run.json";
/// The resolved config.
pub const CONFIG: &str = "config.toml";
/// The folder of checkpoints.
pub const CHECKPOINTS: &str = "checkpoints";
/// The pointer to the newest published checkpoint.
pub const LATEST: &str = "checkpoints/latest";
/// The folder of game batches.
pub const GAMES: &str = "games";
/// The folder of asynchronous actors' batches.
pub const ACTOR_GAMES: &str = "games/actors";
/// The folder of asynchronous learners' generation manifests.
pub const INGESTED: &str = "ingested";
/// The folder of gating's decisions.
pub const GATING: &str = "gating";
/// The folder of events.
pub const METRICS: &str = "metrics";
/// The version of the run format, in [`RUN`]: this build reads runs of this format only,
/// and refuses others in one line.
pub const FORMAT: u32 = 3;

/// Gating's decision on checkpoint `generation`, with what a resumed learner needs of it.
pub fn gate(generation: u64) -> String {
    format!("{GATING}/{}.json", generation_name(generation))
}

/// What generation `generation` is called in every name of the run and in what it prints:
/// `gen-0005`.
pub fn generation_name(generation: u64) -> String {
    format!("gen-{generation:04}")
}

/// Checkpoint `generation`'s base name (add [`weights`] or [`sidecar`]).
pub fn checkpoint(generation: u64) -> String {
    format!("{CHECKPOINTS}/{}", generation_name(generation))
}

/// The weights object of checkpoint `base`.
pub fn weights(base: &str) -> String {
    format!("{base}.safetensors")
}

/// The metadata object of checkpoint `base`.
pub fn sidecar(base: &str) -> String {
    format!("{base}.json")
}

/// The learner's optimizer state for checkpoint `base` (safetensors: momentum or Adam's
/// moments), so that a resumed learner steps on as it would have.
pub fn optimizer(base: &str) -> String {
    format!("{base}.optimizer.safetensors")
}

/// The generation of a `gen-0005.json` name within its folder: a checkpoint's sidecar in
/// [`CHECKPOINTS`], a manifest in [`INGESTED`].
pub fn json_generation(name: &str) -> Option<u64> {
    name.strip_prefix("gen-")?
        .strip_suffix(".json")?
        .parse()
        .ok()
}

/// The folder of a synchronous generation's batches.
pub fn generation_games(generation: u64) -> String {
    format!("{GAMES}/{}", generation_name(generation))
}

/// Batch `index` of a synchronous generation.
pub fn generation_batch(generation: u64, index: usize) -> String {
    format!("{}/{index:04}.jsonl", generation_games(generation))
}

/// Batch `index` of `actor`, played by checkpoint `checkpoint`.
pub fn actor_batch(actor: &str, index: u64, checkpoint: u64) -> String {
    format!("{}/{index:06}-g{checkpoint:04}.jsonl", actor_games(actor))
}

/// The folder of `actor`'s batches.
pub fn actor_games(actor: &str) -> String {
    format!("{ACTOR_GAMES}/{actor}")
}

/// The index of an actor batch, from its name (with or without its folders).
pub fn actor_batch_index(name: &str) -> Option<u64> {
    name.rsplit('/').next()?.split_once("-g")?.0.parse().ok()
}

/// The checkpoint generation that played an actor batch, from its name.
pub fn batch_checkpoint(name: &str) -> Option<u64> {
    let file = name.rsplit('/').next()?;
    file.strip_suffix(".jsonl")?
        .split_once("-g")?
        .1
        .parse()
        .ok()
}

/// The list of actor batches generation `generation` of an asynchronous learner read.
pub fn ingested(generation: u64) -> String {
    format!("{INGESTED}/{}.json", generation_name(generation))
}

/// Event `kind` of `generation`; `order` sorts a generation's events as the loop makes
/// them (self-play 1, learn 2, gate 3, evaluate 4, generation 5).
pub fn event(generation: u64, order: u8, kind: &str) -> String {
    format!(
        "{METRICS}/{}-{order}-{kind}.json",
        generation_name(generation)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back() {
        assert_eq!(json_generation("gen-0012.json"), Some(12));
        assert_eq!(json_generation("gen-0012.safetensors"), None);
        assert_eq!(json_generation("latest"), None);
        let batch = actor_batch("host-7-ab12", 3, 41);
        assert_eq!(batch, "games/actors/host-7-ab12/000003-g0041.jsonl");
        assert_eq!(batch_checkpoint(&batch), Some(41));
        assert_eq!(batch_checkpoint("games/gen-0001/0003.jsonl"), None);
        assert!(event(2, 1, "self_play") < event(2, 2, "learn"));
        assert!(event(2, 5, "generation") < event(10, 1, "self_play"));
    }
}
