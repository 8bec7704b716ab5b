//! The asynchronous learner's view of the actors' batches: which it has read, which it
//! passed over, and the wait for a generation's worth of new games.

use std::collections::BTreeSet;
use std::time::Duration;

use crate::actor::read_batch;
use crate::error::TrainError;
use crate::learner::Manifest;
use crate::sink::{Handler, Phase};
use zerosum_config::RunConfig;
use zerosum_store::names;
use zerosum_store::record::GameRecord;
use zerosum_store::store::RunStore;
use zerosum_store::StoreError;

/// The actor batches an asynchronous learner has not read yet.
pub struct Inbox<'a> {
    store: &'a RunStore,
    /// Batches read (or passed over) by earlier generations.
    taken: BTreeSet<String>,
}

/// What became of one unread batch.
enum Verdict {
    /// Its games are for this generation.
    Read(Vec<GameRecord>),
    /// Played by too old a checkpoint, or not what an actor of this build writes.
    SetAside,
}

impl<'a> Inbox<'a> {
    /// The inbox of the run in `store`, knowing every batch its manifests name.
    pub fn open(store: &'a RunStore) -> Result<Inbox<'a>, TrainError> {
        let mut taken = BTreeSet::new();
        for name in store.list(names::INGESTED)? {
            let Some(generation) = names::json_generation(&name) else {
                continue;
            };
            if let Some(manifest) = crate::learner::manifest(store, generation)? {
                taken.extend(manifest.batches);
                taken.extend(manifest.stale);
            }
        }
        Ok(Inbox { store, taken })
    }

    /// Counts `manifest`'s batches as taken.
    pub fn mark(&mut self, manifest: &Manifest) {
        self.taken.extend(manifest.batches.iter().cloned());
        self.taken.extend(manifest.stale.iter().cloned());
    }

    /// Waits until unread batches hold `games_per_generation` games, then takes every
    /// unread batch (fast actors leave nothing unread; `replay.reuse` bounds how often each
    /// position is trained on), passing over those played by checkpoints more than
    /// `replay.max_staleness` generations old and those whose games fail `check`. The wait
    /// fails once `actor_stopped` says an actor that was to feed it has stopped.
    pub fn collect(
        &mut self,
        config: &RunConfig,
        generation: u64,
        newest_published: u64,
        actor_stopped: &dyn Fn() -> bool,
        check: &dyn Fn(&GameRecord) -> Result<(), String>,
        progress: &mut dyn Handler,
    ) -> Result<(Manifest, Vec<GameRecord>), TrainError> {
        let wanted = config.self_play.games_per_generation;
        let oldest_fresh = newest_published.saturating_sub(config.replay.max_staleness);
        let mut manifest = Manifest::default();
        let mut records = Vec::new();
        progress.phase_started(generation, Phase::Collect, wanted as u64);
        while records.len() < wanted {
            for name in self.store.list(names::ACTOR_GAMES)? {
                let name = format!("{}/{name}", names::ACTOR_GAMES);
                let seen = |list: &[String]| list.contains(&name);
                if self.taken.contains(&name) || seen(&manifest.batches) || seen(&manifest.stale) {
                    continue;
                }
                match self.judge(&name, oldest_fresh, check)? {
                    Verdict::Read(batch) => {
                        progress.phase_advanced(batch.len() as u64);
                        records.extend(batch);
                        manifest.batches.push(name);
                    }
                    Verdict::SetAside => manifest.stale.push(name),
                }
            }
            if records.len() < wanted {
                if actor_stopped() {
                    return Err(StoreError::Location {
                        location: self.store.location().to_string(),
                        reason: "an actor thread stopped".into(),
                    }
                    .into());
                }
                std::thread::sleep(Duration::from_millis(500));
            }
        }
        Ok((manifest, records))
    }

    /// Reads batch `name` unless it was played by a checkpoint older than `oldest_fresh`;
    /// a batch no actor of this build could have written (cut, edited, another game's) is
    /// set aside with a warning, never trained on.
    fn judge(
        &self,
        name: &str,
        oldest_fresh: u64,
        check: &dyn Fn(&GameRecord) -> Result<(), String>,
    ) -> Result<Verdict, TrainError> {
        if names::batch_checkpoint(name).unwrap_or(0) < oldest_fresh {
            return Ok(Verdict::SetAside);
        }
        let batch = match read_batch(self.store, name) {
            Ok(batch) => batch.unwrap_or_default(),
            Err(e @ StoreError::BadRecord { .. }) => {
                tracing::warn!("{e}; the batch is set aside");
                return Ok(Verdict::SetAside);
            }
            Err(e) => return Err(e.into()),
        };
        let broken = batch
            .iter()
            .enumerate()
            .find_map(|(i, record)| check(record).err().map(|why| (i + 1, why)));
        if let Some((game, why)) = broken {
            tracing::warn!(
                "{}: game {game}: {why}; the batch is set aside",
                self.store.display(name)
            );
            return Ok(Verdict::SetAside);
        }
        Ok(Verdict::Read(batch))
    }
}
