//! The asynchronous learner's view of the actors' batches: which it has read, which it
//! passed over, and the wait for a generation's worth of new games.
//!
//! Batch names begin with their upload time ([`names::actor_batch`]), so each look at the
//! store lists only the batches uploaded since the newest one the learner has taken, less
//! a slack for writes still under way: a wait costs requests in proportion to the batches
//! that arrive, not to the length of the run.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use crate::actor::read_batch;
use crate::error::TrainError;
use crate::learner::Manifest;
use crate::sink::{Handler, Phase};
use zerosum_config::RunConfig;
use zerosum_store::names;
use zerosum_store::record::GameRecord;
use zerosum_store::store::RunStore;
use zerosum_store::StoreError;

/// How far before the newest batch taken each look at the store begins (ms). A batch's
/// stamp is taken on its actor's clock as its one write begins, so a write that takes
/// longer, or an actor whose clock lags the others', lands behind batches already taken.
pub const LISTING_SLACK: u64 = 3_000;
/// How far back a look goes once every [`LATE_EVERY`] (ms): a write that took up to a
/// minute and a half (object storage's request timeout and retries) or an actor's clock a
/// few minutes behind.
pub const LATE_SLACK: u64 = 300_000;
/// How often a look goes back [`LATE_SLACK`].
pub const LATE_EVERY: Duration = Duration::from_secs(60);

/// The actor batches an asynchronous learner has not read yet.
pub struct Inbox<'a> {
    store: &'a RunStore,
    /// Identities ([`names::batch_identity`]) of the batches read or passed over by
    /// earlier generations: a batch uploaded again under a new stamp is the same batch.
    taken: HashSet<String>,
    /// The newest upload stamp among them.
    newest: u64,
    /// When a look last went back [`LATE_SLACK`].
    looked_late: Option<Instant>,
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
        let mut inbox = Inbox {
            store,
            taken: HashSet::new(),
            newest: 0,
            looked_late: None,
        };
        for name in store.list(names::INGESTED)? {
            let Some(generation) = names::json_generation(&name) else {
                continue;
            };
            if let Some(manifest) = crate::learner::manifest(store, generation)? {
                inbox.mark(&manifest);
            }
        }
        Ok(inbox)
    }

    /// Counts `manifest`'s batches as taken.
    pub fn mark(&mut self, manifest: &Manifest) {
        for name in manifest.batches.iter().chain(&manifest.stale) {
            if let Some(identity) = names::batch_identity(name) {
                self.taken.insert(identity.to_string());
            }
            self.newest = self.newest.max(names::batch_stamp(name).unwrap_or(0));
        }
    }

    /// Waits until unread batches hold `games_per_generation` games, then takes every
    /// unread batch, newest first: those played by checkpoints more than
    /// `replay.max_staleness` generations old and those whose games fail `check` are passed
    /// over, and so, unread, are those older than what fills both the generation and the
    /// largest replay window of the run (more actors than the learner can train on cost it
    /// a listing of their batches, not their reading). The wait fails once
    /// `actor_stopped` says an actor that was to feed it has stopped.
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
        let window =
            config.replay.window_positions as f64 * config.schedule.window_positions.largest();
        let oldest_fresh = newest_published.saturating_sub(config.replay.max_staleness);
        let mut manifest = Manifest::default();
        let mut records = Vec::new();
        let mut positions = 0;
        let mut judged = HashSet::new();
        let mut newest = self.newest;
        progress.phase_started(generation, Phase::Collect, wanted as u64);
        while records.len() < wanted {
            let since = listing_floor(newest, self.slack());
            let mut unread = Vec::new();
            for name in self.store.list_after(names::ACTOR_GAMES, &since)? {
                let name = format!("{}/{name}", names::ACTOR_GAMES);
                let Some(identity) = names::batch_identity(&name) else {
                    continue;
                };
                if self.taken.contains(identity) || !judged.insert(identity.to_string()) {
                    continue;
                }
                newest = newest.max(names::batch_stamp(&name).unwrap_or(0));
                unread.push(name);
            }
            let mut read = Vec::new();
            let mut games = records.len();
            for name in unread.into_iter().rev() {
                if games >= wanted && positions as f64 >= window {
                    manifest.stale.push(name);
                    continue;
                }
                match self.judge(&name, oldest_fresh, check)? {
                    Verdict::Read(batch) => {
                        games += batch.len();
                        positions += batch.iter().map(GameRecord::samples).sum::<usize>();
                        read.push((name, batch));
                    }
                    Verdict::SetAside => manifest.stale.push(name),
                }
            }
            // Each look's batches in the order they were uploaded: a window too small for
            // them keeps the newest.
            for (name, batch) in read.into_iter().rev() {
                progress.phase_advanced(batch.len() as u64);
                records.extend(batch);
                manifest.batches.push(name);
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

    /// The slack of the next look at the store: [`LATE_SLACK`] once every [`LATE_EVERY`],
    /// the first look included, [`LISTING_SLACK`] between.
    fn slack(&mut self) -> u64 {
        if self.looked_late.is_some_and(|at| at.elapsed() < LATE_EVERY) {
            return LISTING_SLACK;
        }
        self.looked_late = Some(Instant::now());
        LATE_SLACK
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

/// Where a look at the store begins: `slack` ms before the newest stamp taken, or before
/// this machine's clock if that is earlier (an actor whose clock runs ahead must not make
/// the learner pass over the others' batches).
fn listing_floor(newest: u64, slack: u64) -> String {
    names::actor_batches_since(newest.min(names::stamp_now()).saturating_sub(slack))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::actor::{Actor, ActorOptions};
    use crate::run::tests::{scratch, tiny};
    use crate::sink::Silent;
    use std::sync::atomic::AtomicBool;

    /// A run of tic-tac-toe with one generation trained and one actor's batches uploaded
    /// (at least two: a round of 8 games in batches of 3).
    fn run_with_batches(name: &str) -> (std::path::PathBuf, RunStore, RunConfig, Vec<String>) {
        let (dir, store) = scratch(name);
        let game = zerosum_games::tic_tac_toe::TicTacToe::new();
        crate::run::train(&game, &tiny("generations = 1"), &store, &mut Silent).unwrap();
        let mut config = (*tiny("generations = 3")).clone();
        config.mode = zerosum_config::Mode::Async;
        let options = ActorOptions {
            id: "twice".to_string(),
            outbox: dir.join("outbox"),
            max_batches: 1,
        };
        let mut actor = Actor::new(&game, store.clone(), &config, options).unwrap();
        actor.run(&AtomicBool::new(false), &mut Silent).unwrap();
        let names = store.list(names::ACTOR_GAMES).unwrap();
        let uploaded = names
            .iter()
            .map(|n| format!("{}/{n}", names::ACTOR_GAMES))
            .collect();
        (dir, store, config, uploaded)
    }

    fn check(record: &GameRecord) -> Result<(), String> {
        record.check(&zerosum_games::tic_tac_toe::TicTacToe::new())
    }

    /// Batches beyond what the generation and the window need are passed over unread,
    /// the oldest first.
    #[test]
    fn batches_past_the_window_are_passed_over_unread() {
        let (dir, store, mut config, uploaded) = run_with_batches("inbox-surplus");
        assert!(uploaded.len() >= 2);
        config.self_play.games_per_generation = 1;
        config.replay.window_positions = 1;
        let mut inbox = Inbox::open(&store).unwrap();
        let (manifest, records) = inbox
            .collect(&config, 2, 1, &|| true, &check, &mut Silent)
            .unwrap();
        let (older, newest) = uploaded.split_at(uploaded.len() - 1);
        assert_eq!(manifest.batches, newest);
        let mut passed_over = manifest.stale.clone();
        passed_over.sort();
        assert_eq!(passed_over, older);
        let newest_games = crate::actor::read_batch(&store, &newest[0])
            .unwrap()
            .unwrap();
        assert_eq!(records, newest_games);
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// A batch uploaded a second time under a later stamp (its actor killed between the
    /// write and clearing its outbox) is read once; a look at the store lists only what
    /// came after the newest batch taken, less the slack.
    #[test]
    fn a_batch_uploaded_twice_is_read_once_and_listings_start_from_the_newest() {
        let (dir, store, mut config, uploaded) = run_with_batches("inbox-twice");
        let listed = |after: &str| -> Vec<String> {
            let names = store.list_after(names::ACTOR_GAMES, after).unwrap();
            names
                .iter()
                .map(|n| format!("{}/{n}", names::ACTOR_GAMES))
                .collect()
        };
        // The same games stamped `shift` ms away, under actor `actor`.
        let moved = |name: &str, shift: i64, actor: &str| {
            let stamp = names::batch_stamp(name).unwrap();
            let file = name.split_once('-').unwrap().1.replacen("twice", actor, 1);
            names::actor_batch(stamp.checked_add_signed(shift).unwrap(), &file)
        };
        let copy = |from: &str, to: &str| {
            let bytes = store.get(from).unwrap().unwrap();
            store.put_once(to, &bytes).unwrap();
        };
        let mut games = 0;
        let (mut earlier, mut again) = (Vec::new(), Vec::new());
        for name in &uploaded {
            games += crate::actor::read_batch(&store, name)
                .unwrap()
                .unwrap()
                .len();
            // Another actor's batch from before the slack; this one's uploaded again.
            earlier.push(moved(name, -400_000, "early"));
            again.push(moved(name, 300_000, "twice"));
            copy(name, earlier.last().unwrap());
            copy(name, again.last().unwrap());
        }
        config.self_play.games_per_generation = 2 * games;
        let mut inbox = Inbox::open(&store).unwrap();
        let stopped = || true;
        let (manifest, records) = inbox
            .collect(&config, 2, 1, &stopped, &check, &mut Silent)
            .unwrap();
        assert_eq!(records.len(), 2 * games);
        assert_eq!(
            manifest.batches,
            [earlier.clone(), uploaded.clone()].concat()
        );
        inbox.mark(&manifest);
        // Nothing new: the later copies are batches read already.
        config.self_play.games_per_generation = 1;
        let nothing_new = inbox.collect(&config, 3, 1, &stopped, &check, &mut Silent);
        assert!(nothing_new.is_err());
        // A batch that lands after newer ones were taken (its write slow, its actor's
        // clock behind) is listed by the look that goes back further, not by the others;
        // none lists a batch from before its slack.
        let late: Vec<String> = uploaded.iter().map(|n| moved(n, -60_000, "late")).collect();
        for (from, to) in uploaded.iter().zip(&late) {
            copy(from, to);
        }
        let since = listing_floor(inbox.newest, LISTING_SLACK);
        assert_eq!(listed(&since), [uploaded.clone(), again.clone()].concat());
        let since = listing_floor(inbox.newest, LATE_SLACK);
        assert_eq!(listed(&since), [late.clone(), uploaded, again].concat());
        // The learner restarts, knowing the batches its generation 2 took.
        store
            .put_once(&names::ingested(2), &serde_json::to_vec(&manifest).unwrap())
            .unwrap();
        config.self_play.games_per_generation = games;
        let (manifest, _) = Inbox::open(&store)
            .unwrap()
            .collect(&config, 3, 1, &stopped, &check, &mut Silent)
            .unwrap();
        assert_eq!(manifest.batches, late);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
