//! The actor role: self-play games with the newest published network, written to the run
//! in batches.
//!
//! - [`run_self_play`] plays a synchronous generation's games on the learner's machine,
//!   one worker thread per `self_play.threads`.
//! - [`Actor`] is an asynchronous actor: on its own thread or in a `zerosum actor` process
//!   on any machine, sharing nothing with the learner but the store. Between batches it
//!   looks for a newer checkpoint; each batch goes to a local outbox on disk first and is
//!   uploaded from there, so a store that cannot be reached delays batches but loses none
//!   (retried with exponential backoff and jitter while the actor plays on).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use zerosum_games::Game;
use zerosum_nn::{InferenceServer, Model, NetEvaluator, NnError};
use zerosum_search::Evaluator;

use crate::error::TrainError;
use crate::reports::ActorEvent;
use crate::self_play::{self_play_lineup, self_play_until, SelfPlayCounters};
use crate::sink::{Handler, Moment, Report};
use zerosum_config::{derive_seed, stream, RunConfig};
use zerosum_store::checkpoints::{self, Pointer};
use zerosum_store::events;
use zerosum_store::names;
use zerosum_store::record::GameRecord;
use zerosum_store::store::{Put, RunStore};
use zerosum_store::EventKind;
use zerosum_store::StoreError;

/// The networks of a generation's self-play and who plays whom: the newest (or best)
/// against itself, or under gating CGZero's lineup of the best against itself, the second
/// best and an older generation.
pub struct Lineup {
    /// Each network with the name its games record.
    pub networks: Vec<(String, Model)>,
    /// One entry per game: the networks playing first and second.
    pub seats: Vec<[usize; 2]>,
}

impl Lineup {
    /// `games` games of `model` against itself.
    pub fn alone(model: &Model, games: usize) -> Result<Lineup, TrainError> {
        Ok(Lineup {
            networks: vec![("self-play".to_string(), model.try_clone()?)],
            seats: vec![[0, 0]; games],
        })
    }
}

/// Plays the games of `lineup` on `config.self_play.threads` threads; `on_game` runs on this
/// thread for each finished game. The threads reach each network through one inference
/// server per network (`self_play.inference`), or each through a copy of its own (the last
/// worker with the lineup's own), in the run's inference precision either way. Setting
/// `stop` abandons the games in progress (a benchmark's time is up).
pub fn run_self_play<G: Game>(
    initial: &G,
    config: &RunConfig,
    lineup: Lineup,
    rng: &mut SmallRng,
    stop: &AtomicBool,
    on_game: impl FnMut(GameRecord) -> Result<(), TrainError>,
) -> Result<SelfPlayCounters, TrainError> {
    let games = lineup.seats.len();
    if games == 0 {
        return Ok(SelfPlayCounters::default());
    }
    let threads = config.self_play.threads.min(games).max(1);
    let base_seed: u64 = rng.random();
    let Lineup { networks, seats } = lineup;
    let device = networks[0].1.device();
    let precision = config.inference_precision(device);
    let graphs = config.uses_cuda_graphs(device);
    let networks: Vec<(String, Model)> = networks
        .into_iter()
        .map(|(name, model)| {
            Ok((
                name,
                model.for_inference(precision).with_cuda_graphs(graphs)?,
            ))
        })
        .collect::<Result<_, NnError>>()?;
    let served = config.self_play.uses_server(device);
    let learner_threads = zerosum_nn::torch_threads();
    // The learner's intra-op threads would oversubscribe the cores once per worker: each
    // worker with a network of its own gets its share for this phase (measured on 2 cores:
    // 2 workers x 1 thread play 1.5x the positions per second of 1 worker x 2 threads).
    // A server on CUDA gets one: its own tensor work is small, and intra-op threads
    // spinning beside every busy self-play thread would only take cores from the trees.
    zerosum_nn::set_torch_threads(match served {
        true if device.is_cuda() => 1,
        true => learner_threads,
        false => learner_threads / threads,
    });
    let result = (|| {
        let mut servers = Vec::new();
        let workers: Vec<Vec<(String, ThreadEvaluator<G>)>> = if served {
            let max_batch = config.self_play.server_batch(device, threads);
            for (name, model) in networks {
                servers.push((name, InferenceServer::start(model, max_batch)?));
            }
            (0..threads)
                .map(|_| {
                    servers
                        .iter()
                        .map(|(name, server)| (name.clone(), boxed(server.evaluator::<G>())))
                        .collect()
                })
                .collect()
        } else {
            let mut copies = (1..threads)
                .map(|_| clone_networks(&networks))
                .collect::<Result<Vec<_>, _>>()?;
            copies.push(networks);
            copies
                .into_iter()
                .map(|copy| {
                    copy.into_iter()
                        .map(|(name, model)| (name, boxed(NetEvaluator::new(model, initial))))
                        .collect()
                })
                .collect()
        };
        let mut counters = play_on_threads(
            initial, config, workers, &seats, base_seed, rng, stop, on_game,
        )?;
        if served {
            counters.network_calls = servers.iter().map(|(_, s)| s.counters().calls).sum();
        }
        Ok(counters)
    })();
    zerosum_nn::set_torch_threads(learner_threads);
    result
}

/// A self-play thread's evaluator of one network: a copy of its own or a server's handle.
type ThreadEvaluator<G> = Box<dyn Evaluator<G> + Send>;

fn boxed<G: Game>(evaluator: impl Evaluator<G> + Send + 'static) -> ThreadEvaluator<G> {
    Box::new(evaluator)
}

fn clone_networks(networks: &[(String, Model)]) -> Result<Vec<(String, Model)>, TrainError> {
    networks
        .iter()
        .map(|(name, model)| Ok((name.clone(), model.try_clone()?)))
        .collect()
}

/// Plays the games of `seats` with the evaluators of `lineup` on this thread.
fn play_lineup<G: Game, E: Evaluator<G>>(
    initial: &G,
    config: &RunConfig,
    mut evaluators: Vec<(String, E)>,
    seats: &[[usize; 2]],
    rng: &mut SmallRng,
    stop: &AtomicBool,
    on_game: impl FnMut(GameRecord),
) -> SelfPlayCounters {
    let mut lineup: Vec<(String, &mut E)> = evaluators
        .iter_mut()
        .map(|(name, evaluator)| (name.clone(), evaluator))
        .collect();
    self_play_lineup(
        initial,
        &mut lineup,
        seats,
        &config.search,
        &config.self_play,
        rng,
        stop,
        on_game,
    )
}

/// Plays the games of `seats` on one worker thread per entry of `workers` (its evaluators
/// of the lineup's networks), the games shared out evenly, each worker seeded from
/// `base_seed`; `on_game` runs on this thread as games finish. A single worker plays on
/// this thread with `rng`.
#[allow(clippy::too_many_arguments)]
fn play_on_threads<G: Game, E: Evaluator<G> + Send>(
    initial: &G,
    config: &RunConfig,
    workers: Vec<Vec<(String, E)>>,
    seats: &[[usize; 2]],
    base_seed: u64,
    rng: &mut SmallRng,
    stop: &AtomicBool,
    mut on_game: impl FnMut(GameRecord) -> Result<(), TrainError>,
) -> Result<SelfPlayCounters, TrainError> {
    let threads = workers.len();
    let games = seats.len();
    if threads == 1 {
        let evaluators = workers.into_iter().next().expect("one worker");
        let mut failure = None;
        let counters = play_lineup(initial, config, evaluators, seats, rng, stop, |record| {
            if failure.is_none() {
                failure = on_game(record).err();
            }
        });
        return failure.map_or(Ok(counters), Err);
    }
    let (sender, receiver) = mpsc::channel::<GameRecord>();
    std::thread::scope(|scope| {
        let mut first = 0;
        let handles: Vec<_> = workers
            .into_iter()
            .enumerate()
            .map(|(worker, evaluators)| {
                let sender = sender.clone();
                let share = games / threads + usize::from(worker < games % threads);
                let seats = &seats[first..first + share];
                first += share;
                let seed = derive_seed(base_seed, stream::GENERATION, worker as u64 + 1);
                scope.spawn(move || {
                    let mut rng = SmallRng::seed_from_u64(seed);
                    play_lineup(
                        initial,
                        config,
                        evaluators,
                        seats,
                        &mut rng,
                        stop,
                        |record| {
                            // The receiver outlives the workers; a send fails only if it gave up.
                            let _ = sender.send(record);
                        },
                    )
                })
            })
            .collect();
        drop(sender);
        let mut failure = None;
        for record in receiver {
            if failure.is_none() {
                failure = on_game(record).err();
            }
        }
        let mut counters = SelfPlayCounters::default();
        for handle in handles {
            counters.merge(&handle.join().expect("self-play workers do not panic"));
        }
        failure.map_or(Ok(counters), Err)
    })
}

/// A batch as stored: JSON Lines, one record per line.
pub fn batch_text(records: &[GameRecord]) -> String {
    records
        .iter()
        .map(|r| serde_json::to_string(r).expect("records serialise") + "\n")
        .collect()
}

/// The records of a stored batch; `origin` names it in errors.
pub fn parse_batch(text: &str, origin: &str) -> Result<Vec<GameRecord>, StoreError> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            serde_json::from_str(line).map_err(|e| StoreError::BadRecord {
                path: PathBuf::from(origin),
                line: i + 1,
                reason: e.to_string(),
            })
        })
        .collect()
}

/// Reads the batch object `name`; `None` if it is not there. Bytes that are not UTF-8 are
/// a bad record, as a line that is not JSON is.
pub fn read_batch(store: &RunStore, name: &str) -> Result<Option<Vec<GameRecord>>, StoreError> {
    let Some(bytes) = store.get(name)? else {
        return Ok(None);
    };
    let origin = store.display(name);
    match String::from_utf8(bytes) {
        Ok(text) => parse_batch(&text, &origin).map(Some),
        Err(e) => {
            let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
            Err(StoreError::BadRecord {
                path: PathBuf::from(origin),
                line: 1 + valid.iter().filter(|&&b| b == b'\n').count(),
                reason: "not UTF-8 text".to_string(),
            })
        }
    }
}

/// How an asynchronous actor runs.
#[derive(Clone, Debug)]
pub struct ActorOptions {
    /// Names the actor's batches; unique among the run's actors.
    pub id: String,
    /// The local folder where batches wait until the store has them.
    pub outbox: PathBuf,
    /// Stop after this many batches (0 = until stopped).
    pub max_batches: u64,
}

/// The name an actor gets unless told otherwise: host, process and a random tag, so that
/// actors started at once on many machines (or restarted) never share one.
pub fn default_actor_id() -> String {
    let host = std::env::var("HOSTNAME")
        .ok()
        .or_else(|| std::fs::read_to_string("/etc/hostname").ok())
        .unwrap_or_else(|| "host".to_string());
    let host: String = host
        .trim()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '-'
            }
        })
        .take(40)
        .collect();
    let tag = (zerosum_store::store::unseeded_fraction() * 65536.0) as u16;
    format!("{host}-{}-{tag:04x}", std::process::id())
}

/// The outbox folder for the run at `location` under `base`: one per run, so that actors
/// of two runs on one machine never upload each other's batches.
pub fn outbox_for(base: &std::path::Path, location: &str) -> PathBuf {
    let name: String = location
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    base.join(name)
}

/// What an actor did, for its final line.
#[derive(Clone, Debug, Default)]
pub struct ActorSummary {
    /// This start of the actor ([`names::actor_batch_file`]): its batches are numbered
    /// from 0 within it, apart from those of earlier starts under the same id.
    pub session: u32,
    /// Batches written to the outbox.
    pub batches: u64,
    /// Games in them.
    pub games: u64,
    /// Batches still in the outbox when it stopped (the store unreachable).
    pub waiting: usize,
    /// Storage requests it made.
    pub requests: zerosum_store::store::Requests,
}

/// An asynchronous actor of one run.
pub struct Actor<'a, G: Game> {
    initial: &'a G,
    store: RunStore,
    config: &'a RunConfig,
    options: ActorOptions,
    session: u32,
    outbox: Outbox,
}

impl<'a, G: Game> Actor<'a, G> {
    /// An actor of the run in `store` playing `initial`'s game with the run's `config`.
    pub fn new(
        initial: &'a G,
        store: RunStore,
        config: &'a RunConfig,
        options: ActorOptions,
    ) -> Result<Self, TrainError> {
        let outbox = Outbox::open(options.outbox.clone())?;
        Ok(Actor {
            initial,
            // One attempt per request: the outbox and its backoff do the retrying, while
            // the actor plays on.
            store: store.with_patience(Duration::ZERO).with_own_counters(),
            config,
            options,
            session: (zerosum_store::store::unseeded_fraction() * f64::from(u32::MAX)) as u32,
            outbox,
        })
    }

    /// Plays batches until `stop` is set (or `max_batches` are written): waits for a first
    /// published checkpoint, takes each newer one between batches, and uploads through the
    /// outbox, reporting each [`ActorEvent`] to `handler`. On stop, the batch in progress is
    /// given up and the outbox gets one more try.
    pub fn run(
        &mut self,
        stop: &AtomicBool,
        handler: &mut dyn Handler,
    ) -> Result<ActorSummary, TrainError> {
        let mut report = reporter(handler);
        let mut summary = ActorSummary {
            session: self.session,
            ..ActorSummary::default()
        };
        let mut rounds = 0;
        let mut current: Option<(Pointer, NetEvaluator<G>)> = None;
        let mut upload = Backoff::default();
        let device = zerosum_nn::parse_device(&self.config.device)?;
        // Batches left by an earlier actor on this machine go first.
        self.flush(&mut upload, &mut report);
        while !stop.load(Ordering::Relaxed)
            && (self.options.max_batches == 0 || summary.batches < self.options.max_batches)
        {
            let refreshed = self.refresh(&mut current, device, &mut report);
            if let Ok(Freshness::RunComplete) = refreshed {
                report(ActorEvent::RunComplete);
                break;
            }
            if let Err(error) = refreshed {
                // Without a network there is nothing to play: wait for the store. With one,
                // play on with it; the outbox keeps what is played.
                if current.is_none() {
                    self.wait_for_store(&error, &mut upload, &mut report, stop);
                }
            }
            let Some((pointer, evaluator)) = current.as_mut() else {
                sleep_unless_stopped(Duration::from_millis(500), stop);
                continue;
            };
            // A session seeds its rounds apart from an earlier start under the same id,
            // which would otherwise replay the same games.
            let round = rounds | u64::from(self.session) << 32;
            self.play_round(
                evaluator,
                pointer,
                round,
                stop,
                &mut summary,
                &mut upload,
                &mut report,
            )?;
            rounds += 1;
        }
        // One last try, whatever the backoff says: a preempted machine may not come back.
        self.flush(&mut upload, &mut report);
        summary.waiting = self.outbox.pending()?.len();
        summary.requests = self.store.requests();
        Ok(summary)
    }

    /// A round of games with one network, `batch_games` in lockstep as in synchronous
    /// self-play, every `games_per_batch` finished games kept as a batch and the outbox
    /// flushed when its backoff allows; played with the run's schedule where `network` was
    /// published. A round cut short by `stop` keeps the batches it finished.
    #[allow(clippy::too_many_arguments)]
    fn play_round(
        &self,
        evaluator: &mut NetEvaluator<G>,
        network: &Pointer,
        round: u64,
        stop: &AtomicBool,
        summary: &mut ActorSummary,
        upload: &mut Backoff,
        report: &mut impl FnMut(ActorEvent),
    ) -> Result<(), TrainError> {
        let generation = network.generation;
        let scheduled = self.config.at(network.budget_used);
        let self_play = &scheduled.self_play;
        let games = self_play.games_per_batch.max(2 * self_play.batch_games);
        let mut rng = SmallRng::seed_from_u64(derive_seed(
            self.config.seed,
            stream::ACTOR,
            fnv1a(&self.options.id) ^ round,
        ));
        let mut pending = Vec::new();
        let mut failure = None;
        let mut since = Instant::now();
        let mut write = |pending: &mut Vec<GameRecord>, summary: &mut ActorSummary| {
            let name = names::actor_batch_file(
                &self.options.id,
                self.session,
                summary.batches,
                generation,
            );
            self.outbox.keep(&name, batch_text(pending).as_bytes())?;
            summary.batches += 1;
            summary.games += pending.len() as u64;
            let positions: usize = pending.iter().map(GameRecord::samples).sum();
            report(ActorEvent::Batch {
                name,
                games: pending.len(),
                positions_per_second: positions as f64 / since.elapsed().as_secs_f64().max(1e-9),
            });
            since = Instant::now();
            pending.clear();
            if upload.due() {
                self.flush(upload, report);
            }
            Ok::<(), TrainError>(())
        };
        self_play_until(
            self.initial,
            evaluator,
            &scheduled.search,
            self_play,
            games,
            &mut rng,
            stop,
            |record| {
                pending.push(record);
                if failure.is_none() && pending.len() >= self_play.games_per_batch {
                    failure = write(&mut pending, summary).err();
                }
            },
        );
        if let Some(error) = failure {
            return Err(error);
        }
        if !stop.load(Ordering::Relaxed) && !pending.is_empty() {
            write(&mut pending, summary)?;
        }
        Ok(())
    }

    /// Reports that the store failed with `error` and sleeps until the next try.
    fn wait_for_store(
        &self,
        error: &TrainError,
        upload: &mut Backoff,
        report: &mut impl FnMut(ActorEvent),
        stop: &AtomicBool,
    ) {
        let retry_in = upload.failed();
        report(ActorEvent::Waiting {
            batches: self.outbox.pending().map_or(0, |p| p.len()),
            reason: error.to_string(),
            retry_in,
        });
        sleep_unless_stopped(retry_in, stop);
    }

    /// Takes the newest published checkpoint if it is newer than `current`.
    fn refresh(
        &self,
        current: &mut Option<(Pointer, NetEvaluator<G>)>,
        device: zerosum_nn::Device,
        report: &mut impl FnMut(ActorEvent),
    ) -> Result<Freshness, TrainError> {
        if events::recorded(
            &self.store,
            EventKind::Generation,
            self.config.generations as u64,
        )? {
            return Ok(Freshness::RunComplete);
        }
        let Some(newest) = checkpoints::published(&self.store)? else {
            return Ok(Freshness::Current);
        };
        if current
            .as_ref()
            .is_none_or(|(p, _)| p.generation < newest.generation)
        {
            let generation = newest.generation;
            let model = checkpoints::load(&self.store, generation, self.initial, device)?;
            *current = Some((newest, NetEvaluator::new(model, self.initial)));
            report(ActorEvent::Loaded { generation });
        }
        Ok(Freshness::Current)
    }

    /// Uploads the outbox, oldest batch first; on failure schedules the next try.
    fn flush(&self, upload: &mut Backoff, report: &mut impl FnMut(ActorEvent)) {
        let recovering = upload.failures > 0;
        match self.outbox.upload(&self.store) {
            Ok(batches) => {
                upload.succeeded();
                if recovering || batches > 1 {
                    report(ActorEvent::Uploaded { batches });
                }
            }
            Err(error) => {
                let retry_in = upload.failed();
                report(ActorEvent::Waiting {
                    batches: self.outbox.pending().map_or(0, |p| p.len()),
                    reason: error.to_string(),
                    retry_in,
                });
            }
        }
    }
}

/// `handler` as an actor's report: each event at the generation of the checkpoint it plays.
fn reporter(handler: &mut dyn Handler) -> impl FnMut(ActorEvent) + '_ {
    let mut playing = 0;
    move |event| {
        if let ActorEvent::Loaded { generation } = event {
            playing = generation;
        }
        let at = Moment {
            generation: playing,
            step: 0,
        };
        // What an actor reports informs; a listener that fails does not stop its play.
        if let Err(error) = handler.reported(at, Report::Actor(&event)) {
            tracing::warn!("{error}");
        }
    }
}

/// Whether an actor has a network worth playing.
enum Freshness {
    /// The newest published one (or none yet).
    Current,
    /// The learner has trained the run's last generation: nothing more will be read.
    RunComplete,
}

/// Sleeps `wait`, waking early when `stop` is set.
fn sleep_unless_stopped(wait: Duration, stop: &AtomicBool) {
    let end = Instant::now() + wait;
    while !stop.load(Ordering::Relaxed) && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(50).min(end - Instant::now()));
    }
}

/// The end of the name of a batch an uploader has taken ([`Outbox::take`]).
const TAKEN: &str = ".uploading";

/// The batch file and the process id of a taken batch's name.
fn taken_by(name: &str) -> Option<(&str, u32)> {
    let (file, pid) = name.strip_suffix(TAKEN)?.rsplit_once('.')?;
    Some((file, pid.parse().ok()?))
}

/// FNV-1a of a name: a stable number for an actor's seed stream.
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// When to try the store again: exponential backoff with full jitter, so that many actors
/// cut off together do not all come back in the same second.
#[derive(Default)]
struct Backoff {
    failures: u32,
    next: Option<Instant>,
}

impl Backoff {
    fn due(&self) -> bool {
        self.next.is_none_or(|next| Instant::now() >= next)
    }

    fn succeeded(&mut self) {
        self.failures = 0;
        self.next = None;
    }

    fn failed(&mut self) -> Duration {
        self.failures += 1;
        let ceiling = Duration::from_secs(1) * 2u32.pow(self.failures.min(6));
        let wait = ceiling.mul_f64(zerosum_store::store::unseeded_fraction());
        self.next = Some(Instant::now() + wait);
        wait
    }
}

/// Batches on local disk waiting for the store. Each is a file named by
/// [`names::actor_batch_file`], written to a temporary name, synced and renamed, so that
/// only whole batches are ever uploaded, and removed only once the store has it.
pub struct Outbox {
    dir: PathBuf,
}

impl Outbox {
    /// Opens (and creates) the outbox folder `dir`.
    pub fn open(dir: PathBuf) -> Result<Outbox, TrainError> {
        std::fs::create_dir_all(&dir).map_err(|source| StoreError::Io {
            path: dir.clone(),
            source,
        })?;
        Ok(Outbox { dir })
    }

    /// Keeps batch `file` until [`Outbox::upload`] has stored it: written whole and synced,
    /// so that a power loss keeps every batch the actor finished.
    pub fn keep(&self, file: &str, bytes: &[u8]) -> Result<(), TrainError> {
        let path = self.dir.join(file);
        Ok(zerosum_store::durable::write_file(&path, bytes)
            .map_err(|source| StoreError::Io { path, source })?)
    }

    /// Removes batches that a killed actor was still writing (`.tmp` files a minute old: a
    /// live actor writes and renames one in milliseconds). They were never finished. And
    /// gives back the batches a killed actor had taken to upload: those of a process no
    /// longer running here, or taken ten minutes ago.
    fn sweep(&self) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let age = |limit: u64| {
                entry
                    .metadata()
                    .and_then(|m| m.modified())
                    .is_ok_and(|t| t.elapsed().is_ok_and(|age| age.as_secs() > limit))
            };
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.extension().is_some_and(|e| e == "tmp") && age(60) {
                let _ = std::fs::remove_file(path);
            } else if let Some((file, pid)) = taken_by(&name) {
                let gone = !std::path::Path::new(&format!("/proc/{pid}")).exists();
                if gone || age(600) {
                    let _ = std::fs::rename(&path, self.dir.join(file));
                }
            }
        }
    }

    /// Takes batch `file` for this process to upload, so that no other actor sharing the
    /// outbox uploads it too: renamed to `FILE.PID.uploading`, dated now. `None` when
    /// another took it first.
    fn take(&self, file: &str) -> Result<Option<PathBuf>, TrainError> {
        let path = self.dir.join(file);
        let taken = self
            .dir
            .join(format!("{file}.{}{TAKEN}", std::process::id()));
        match std::fs::rename(&path, &taken) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(StoreError::Io { path, source }.into()),
        }
        if let Ok(file) = std::fs::File::options().write(true).open(&taken) {
            let _ = file.set_modified(std::time::SystemTime::now());
        }
        Ok(Some(taken))
    }

    /// The batches waiting, each session's oldest first.
    pub fn pending(&self) -> Result<Vec<String>, TrainError> {
        let entries = std::fs::read_dir(&self.dir).map_err(|source| StoreError::Io {
            path: self.dir.clone(),
            source,
        })?;
        let mut names: Vec<String> = entries
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            // A `%` named an object path in outboxes of run format 3, whose runs this build
            // refuses to join.
            .filter(|name| name.ends_with(".jsonl") && !name.contains('%'))
            .collect();
        names.sort();
        Ok(names)
    }

    /// Uploads every waiting batch, each named by the time its write begins
    /// ([`names::actor_batch`]), removing each once stored; returns how many went, or the
    /// first failure. A batch whose write landed unanswered, or whose actor was killed
    /// before removing it, goes up again under a later stamp: the learner reads one batch
    /// of an identity.
    pub fn upload(&self, store: &RunStore) -> Result<usize, TrainError> {
        self.sweep();
        let mut uploaded = 0;
        for file in self.pending()? {
            let Some(path) = self.take(&file)? else {
                continue;
            };
            let bytes = std::fs::read(&path).map_err(|source| StoreError::Io {
                path: path.clone(),
                source,
            })?;
            let name = names::actor_batch(names::stamp_now(), &file);
            match store.put_once(&name, &bytes) {
                Ok(Put::Written) => uploaded += 1,
                Ok(Put::AlreadyThere) => {}
                Err(error) => {
                    let _ = std::fs::rename(&path, self.dir.join(&file));
                    return Err(error.into());
                }
            }
            match std::fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(source) => return Err(StoreError::Io { path, source }.into()),
            }
        }
        Ok(uploaded)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::tests::{scratch, tiny};
    use crate::sink::Silent;

    /// A batch another live uploader has taken is left to it; one taken by a process that
    /// is gone goes back to the outbox and up.
    #[test]
    fn a_batch_goes_up_once_from_an_outbox_shared_by_uploaders() {
        let (dir, store) = scratch("outbox-taken");
        let outbox = Outbox::open(dir.join("outbox")).unwrap();
        let files = [
            "a.0000000f.000000-g0001.jsonl",
            "a.0000000f.000001-g0001.jsonl",
        ];
        for file in files {
            outbox.keep(file, b"{}\n").unwrap();
        }
        let taken = outbox.take(files[1]).unwrap().unwrap();
        assert_eq!(outbox.take(files[1]).unwrap(), None);
        assert_eq!(outbox.upload(&store).unwrap(), 1);
        assert!(outbox.pending().unwrap().is_empty());
        let stored = || store.list(names::ACTOR_GAMES).unwrap();
        assert_eq!(stored().len(), 1);
        // Its uploader killed: a pid no process has.
        let orphan = dir
            .join("outbox")
            .join(format!("{}.4294967295{TAKEN}", files[1]));
        std::fs::rename(taken, orphan).unwrap();
        assert_eq!(outbox.upload(&store).unwrap(), 1);
        let mut uploaded: Vec<String> = stored()
            .iter()
            .map(|name| {
                names::batch_identity(&format!("{}/{name}", names::ACTOR_GAMES))
                    .unwrap()
                    .to_string()
            })
            .collect();
        uploaded.sort();
        assert_eq!(uploaded, ["a.0000000f.000000", "a.0000000f.000001"]);
        assert_eq!(std::fs::read_dir(dir.join("outbox")).unwrap().count(), 0);
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// Two actors in turn under one id (a requeued job) store every batch, under
    /// identities of their own, and play different games.
    #[test]
    fn an_actor_taking_up_an_earlier_actors_id_names_and_plays_batches_of_its_own() {
        let (dir, store) = scratch("actor-id");
        let game = zerosum_games::tic_tac_toe::TicTacToe::new();
        crate::run::train(&game, &tiny("generations = 1"), &store, &mut Silent).unwrap();
        // The same run, not yet complete for the actors.
        let mut config = (*tiny("generations = 3")).clone();
        config.mode = zerosum_config::Mode::Async;
        let options = ActorOptions {
            id: "re-queued.gpu".to_string(),
            outbox: dir.join("outbox"),
            max_batches: 1,
        };
        let never = AtomicBool::new(false);
        let mut summaries = Vec::new();
        let before = names::stamp_now();
        for _ in 0..2 {
            let mut actor = Actor::new(&game, store.clone(), &config, options.clone()).unwrap();
            summaries.push(actor.run(&never, &mut Silent).unwrap());
        }
        assert_ne!(summaries[0].session, summaries[1].session);
        let stored: Vec<String> = store
            .list(names::ACTOR_GAMES)
            .unwrap()
            .into_iter()
            .map(|name| format!("{}/{name}", names::ACTOR_GAMES))
            .collect();
        // A round's batches all go out, so each wrote one or more, all stored.
        let written: u64 = summaries.iter().map(|summary| summary.batches).sum();
        assert!(summaries.iter().all(|summary| summary.batches >= 1));
        assert_eq!(stored.len() as u64, written);
        let mut expected = Vec::new();
        for summary in &summaries {
            expected.extend(
                (0..summary.batches)
                    .map(|index| format!("re-queued.gpu.{:08x}.{index:06}", summary.session)),
            );
        }
        let mut identities: Vec<&str> = stored
            .iter()
            .map(|name| names::batch_identity(name).unwrap())
            .collect();
        identities.sort();
        expected.sort();
        assert_eq!(identities, expected);
        assert!(stored
            .iter()
            .all(|name| names::batch_checkpoint(name) == Some(1)));
        // Each named by the time of its upload, on this machine's clock.
        let uploaded = |name: &String| names::batch_stamp(name).unwrap();
        assert!(stored
            .iter()
            .all(|name| (before..=names::stamp_now()).contains(&uploaded(name))));
        // The second plays games of its own, not the first's again.
        let first_of = |session: u32| {
            let identity = format!("re-queued.gpu.{session:08x}.000000");
            let name = stored
                .iter()
                .find(|n| names::batch_identity(n) == Some(&identity));
            store.get(name.unwrap()).unwrap()
        };
        let replayed = first_of(summaries[0].session) == first_of(summaries[1].session);
        assert!(!replayed, "the second actor replayed the first one's games");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
