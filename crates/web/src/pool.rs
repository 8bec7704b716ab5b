//! The agents, on worker threads of their own.
//!
//! An agent (a network evaluator or rollouts, with its tree) is not shared between threads,
//! so each of a few workers builds its own and the connection threads send it positions to
//! search. Each worker keeps an agent per simulation count it was asked for (at most
//! [`AGENTS_PER_WORKER`], the least recently used dropped), since the count is fixed when
//! an agent is built. Worker `k` seeds its RNGs from (seed, k). At most
//! [`QUEUED_PER_WORKER`] searches per worker wait at once; one more is refused with a 503,
//! so that a flood of requests cannot queue hours of work.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use anyhow::{anyhow, Context, Result};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use zerosum_games::error::one_line;
use zerosum_games::Game;
use zerosum_players::{build_agent, Agent, Choice, PlayerSpec};
use zerosum_search::SearchConfig;

use crate::error::ApiError;

/// Agents of different simulation counts one worker keeps.
pub const AGENTS_PER_WORKER: usize = 4;

/// Searches per worker that may be running or waiting at once.
pub const QUEUED_PER_WORKER: usize = 32;

/// What every worker needs to build its agents.
#[derive(Clone, Debug)]
pub struct AgentFactory<G: Game> {
    /// The game's initial position (the checkpoint is checked against it).
    pub initial: G,
    /// The player; each worker builds its own, searching the simulations a page asks for.
    pub spec: PlayerSpec,
    /// Search settings.
    pub search: SearchConfig,
    /// Where the network runs.
    pub device: zerosum_nn::Device,
    /// The run's seed.
    pub seed: u64,
}

impl<G: Game> AgentFactory<G> {
    fn build(&self, sims: usize, worker: u64) -> Result<Box<dyn Agent<G>>> {
        Ok(build_agent(
            &self.spec.with_sims(sims),
            &self.initial,
            &self.search,
            sims,
            self.device,
            self.seed.wrapping_add(worker),
        )?)
    }
}

/// A search to run and where to send its result.
struct Job<G> {
    position: G,
    sims: usize,
    reply: mpsc::SyncSender<Result<Choice, String>>,
}

/// The workers, fed through one queue.
pub struct SearchPool<G: Game> {
    jobs: mpsc::Sender<Job<G>>,
    /// Searches running or waiting.
    pending: AtomicUsize,
    max_pending: usize,
}

impl<G: Game> SearchPool<G> {
    /// Starts `num_workers` workers, each with an agent of `sims` simulations built before
    /// this returns (so that a bad checkpoint fails here, not at the first move).
    pub fn start(num_workers: usize, factory: AgentFactory<G>, sims: usize) -> Result<Self> {
        let (jobs, queue) = mpsc::channel::<Job<G>>();
        let queue = Arc::new(Mutex::new(queue));
        let (ready_tx, ready_rx) = mpsc::channel();
        for worker in 0..num_workers.max(1) as u64 {
            let queue = queue.clone();
            let factory = factory.clone();
            let ready = ready_tx.clone();
            std::thread::Builder::new()
                .name(format!("zerosum-search-{worker}"))
                .spawn(move || {
                    let first = factory.build(sims, worker);
                    let mut agents = match first {
                        Ok(agent) => {
                            let _ = ready.send(Ok(()));
                            vec![(sims, agent)]
                        }
                        Err(e) => {
                            let _ = ready.send(Err(e));
                            return;
                        }
                    };
                    drop(ready);
                    let mut rng = SmallRng::seed_from_u64(factory.seed.wrapping_add(worker));
                    loop {
                        let job = {
                            let queue = super::session::lock(&queue);
                            match queue.recv() {
                                Ok(job) => job,
                                Err(_) => return,
                            }
                        };
                        let result = run_job(&factory, worker, &mut agents, &job, &mut rng);
                        let _ = job.reply.send(result);
                    }
                })
                .context("cannot start a search thread")?;
        }
        drop(ready_tx);
        for _ in 0..num_workers.max(1) {
            ready_rx
                .recv()
                .map_err(|_| anyhow!("a search thread stopped while starting"))??;
        }
        Ok(SearchPool {
            jobs,
            pending: AtomicUsize::new(0),
            max_pending: num_workers.max(1) * QUEUED_PER_WORKER,
        })
    }

    /// Searches `position` (not finished) with `sims` simulations and returns the agent's
    /// choice; blocks until a worker is done with it. Fails at once with a 503 when the
    /// queue is full.
    pub fn search(&self, position: G, sims: usize) -> Result<Choice, ApiError> {
        if self.pending.fetch_add(1, Ordering::SeqCst) >= self.max_pending {
            self.pending.fetch_sub(1, Ordering::SeqCst);
            return Err(ApiError::unavailable(
                "the agent is busy with other games; try again",
            ));
        }
        let result = self.run(position, sims);
        self.pending.fetch_sub(1, Ordering::SeqCst);
        result.map_err(|message| ApiError::internal(&message))
    }

    fn run(&self, position: G, sims: usize) -> Result<Choice, String> {
        let (reply, answer) = mpsc::sync_channel(1);
        self.jobs
            .send(Job {
                position,
                sims,
                reply,
            })
            .map_err(|_| "the search threads have stopped".to_string())?;
        answer
            .recv()
            .map_err(|_| "the search failed (a bug: please report it)".to_string())?
    }
}

/// Runs one job on this worker's agent for its simulation count.
fn run_job<G: Game>(
    factory: &AgentFactory<G>,
    worker: u64,
    agents: &mut Vec<(usize, Box<dyn Agent<G>>)>,
    job: &Job<G>,
    rng: &mut SmallRng,
) -> Result<Choice, String> {
    let index = match agents.iter().position(|(s, _)| *s == job.sims) {
        Some(index) => index,
        None => {
            let agent = factory.build(job.sims, worker).map_err(|e| one_line(&*e))?;
            if agents.len() >= AGENTS_PER_WORKER {
                agents.remove(0);
            }
            agents.push((job.sims, agent));
            agents.len() - 1
        }
    };
    // Most recently used last.
    let entry = agents.remove(index);
    agents.push(entry);
    let agent = &mut agents.last_mut().expect("pushed just above").1;
    agent.choose(&job.position, rng).map_err(|e| e.to_string())
}
