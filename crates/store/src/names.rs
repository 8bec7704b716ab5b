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
//! games/actors/1764250000123-ACTOR.5f3a9c01.000012-g0004.jsonl
//!                                        asynchronous runs: uploaded at that Unix time in
//!                                        ms, batch 12 of ACTOR's session 5f3a9c01, played
//!                                        by checkpoint gen-0004
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
pub const FORMAT: u32 = 4;

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

/// Batch `index` of `actor`'s session `session`, played by checkpoint `checkpoint`, as
/// it waits in the actor's outbox: the batch's identity and checkpoint, without the time
/// of its upload. A session is one start of an actor process, so that an actor restarted
/// under an earlier one's id (a requeued job) never names a batch as that one did.
pub fn actor_batch_file(actor: &str, session: u32, index: u64, checkpoint: u64) -> String {
    format!("{actor}.{session:08x}.{index:06}-g{checkpoint:04}.jsonl")
}

/// The name in the store of the outbox's batch `file`, uploaded at `stamp` (Unix time in
/// ms). The stamp comes first, so that the names of a run's batches sort by upload time
/// and a learner lists only those after the ones it has seen ([`actor_batches_since`]).
pub fn actor_batch(stamp: u64, file: &str) -> String {
    format!("{ACTOR_GAMES}/{stamp:013}-{file}")
}

/// The stamp of an upload beginning now: this machine's clock, in ms since the Unix epoch.
pub fn stamp_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_millis() as u64)
}

/// The listing offset before every actor batch uploaded at `stamp` or later.
pub fn actor_batches_since(stamp: u64) -> String {
    format!("{ACTOR_GAMES}/{stamp:013}")
}

/// The upload time of an actor batch (Unix ms), from its name.
pub fn batch_stamp(name: &str) -> Option<u64> {
    Some(stamped(name)?.0)
}

/// What stays of an actor batch's name when it is uploaded again under a new stamp:
/// actor, session and index (`ACTOR.5f3a9c01.000012`). Read from the right, as actor ids
/// may hold `-`, `.` and `-g`.
pub fn batch_identity(name: &str) -> Option<&str> {
    let (_, rest) = stamped(name)?;
    let (identity, _) = rest.strip_suffix(".jsonl")?.rsplit_once("-g")?;
    Some(identity)
}

/// The actor that played a stored actor batch, from its name.
pub fn batch_actor(name: &str) -> Option<&str> {
    batch_identity(name)?.rsplitn(3, '.').nth(2)
}

/// The checkpoint generation that played an actor batch, from its name (stored or in an
/// outbox).
pub fn batch_checkpoint(name: &str) -> Option<u64> {
    let file = name.rsplit('/').next()?;
    file.strip_suffix(".jsonl")?
        .rsplit_once("-g")?
        .1
        .parse()
        .ok()
}

/// A stored actor batch's stamp and the outbox file name after it.
fn stamped(name: &str) -> Option<(u64, &str)> {
    let file = name.strip_prefix(ACTOR_GAMES)?.strip_prefix('/')?;
    let (stamp, rest) = file.split_once('-')?;
    let digits = stamp.len() == 13 && stamp.bytes().all(|b| b.is_ascii_digit());
    Some((stamp.parse().ok().filter(|_| digits)?, rest))
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
        let file = actor_batch_file("my-gpu.host-7", 0x5f3a9c01, 3, 41);
        assert_eq!(file, "my-gpu.host-7.5f3a9c01.000003-g0041.jsonl");
        let batch = actor_batch(1_764_250_000_123, &file);
        assert_eq!(
            batch,
            "games/actors/1764250000123-my-gpu.host-7.5f3a9c01.000003-g0041.jsonl"
        );
        assert_eq!(batch_checkpoint(&batch), Some(41));
        assert_eq!(batch_checkpoint(&file), Some(41));
        assert_eq!(batch_stamp(&batch), Some(1_764_250_000_123));
        assert_eq!(batch_actor(&batch), Some("my-gpu.host-7"));
        assert_eq!(
            batch_identity(&batch),
            Some("my-gpu.host-7.5f3a9c01.000003")
        );
        assert!(actor_batches_since(1_764_250_000_123) < batch);
        assert!(batch < actor_batches_since(1_764_250_000_124));
        assert_eq!(batch_checkpoint("games/gen-0001/0003.jsonl"), None);
        assert_eq!(batch_stamp("games/gen-0001/0003.jsonl"), None);
        let earlier_layout = "games/actors/host-7-ab12/000003-g0041.jsonl";
        assert_eq!(batch_identity(earlier_layout), None);
        assert!(event(2, 1, "self_play") < event(2, 2, "learn"));
        assert!(event(2, 5, "generation") < event(10, 1, "self_play"));
    }
}
