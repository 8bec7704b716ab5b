//! One copy of a network per device, shared by every thread that searches with it.
//!
//! KataGo's and AlphaZero.jl's answer to a GPU that a single search thread cannot fill:
//! each thread hands its leaves to the [`InferenceServer`] through a [`ServerEvaluator`]
//! and waits; the server's own thread takes whatever has queued up, up to `max_batch`
//! positions, runs it as one forward pass and hands each thread its rows back. While one
//! batch is on the device the other threads go on with their tree work and queue the next,
//! so the device sees batches as large as the threads in flight allow and never waits for
//! the slowest of them.

use std::collections::VecDeque;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

use zerosum_games::Game;
use zerosum_search::Evaluator;

use crate::error::{panic_line, NnError};
use crate::model::Model;

/// A thread's leaves, observed, with where to send the answer.
struct Request {
    obs: Vec<f32>,
    batch: usize,
    reply: mpsc::SyncSender<Answer>,
}

/// The rows of one request, with its observation buffer given back for reuse.
struct Answer {
    obs: Vec<f32>,
    logits: Vec<f32>,
    values: Vec<f32>,
}

struct Queue {
    requests: VecDeque<Request>,
    closed: bool,
}

struct Shared {
    queue: Mutex<Queue>,
    arrived: Condvar,
    max_batch: usize,
    calls: AtomicU64,
    positions: AtomicU64,
}

/// What the server has done so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ServerCounters {
    /// Forward passes run.
    pub calls: u64,
    /// Positions evaluated, all threads together.
    pub positions: u64,
}

/// A network on its own thread, evaluating the leaves of many threads in shared batches.
/// Dropping it finishes the requests already queued and stops the thread.
pub struct InferenceServer {
    shared: Arc<Shared>,
    obs_len: usize,
    num_actions: usize,
    thread: Option<JoinHandle<()>>,
}

impl InferenceServer {
    /// Starts a server for `model` that runs at most `max_batch` positions a forward pass
    /// (a single request larger than that runs alone, whole). One forward pass of
    /// `max_batch` positions runs first, so that a device without the memory for it is
    /// refused here, in one line, rather than in the middle of a generation.
    pub fn start(model: Model, max_batch: usize) -> Result<InferenceServer, NnError> {
        let max_batch = max_batch.max(1);
        probe(&model, max_batch)?;
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue {
                requests: VecDeque::new(),
                closed: false,
            }),
            arrived: Condvar::new(),
            max_batch,
            calls: AtomicU64::new(0),
            positions: AtomicU64::new(0),
        });
        let [c, h, w] = model.meta().obs_shape;
        let obs_len = c * h * w;
        let num_actions = model.meta().num_actions;
        let thread = {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name("inference".to_string())
                .spawn(move || serve(&model, &shared, obs_len, num_actions))
                .expect("the inference thread starts")
        };
        Ok(InferenceServer {
            shared,
            obs_len,
            num_actions,
            thread: Some(thread),
        })
    }

    /// An evaluator for one search thread; any number may be in use at once.
    pub fn evaluator<G: Game>(&self) -> ServerEvaluator<G> {
        let (reply, answers) = mpsc::sync_channel(1);
        ServerEvaluator {
            shared: Arc::clone(&self.shared),
            obs_len: self.obs_len,
            num_actions: self.num_actions,
            obs: Vec::new(),
            reply,
            answers,
            _game: PhantomData,
        }
    }

    /// Forward passes and positions so far.
    pub fn counters(&self) -> ServerCounters {
        ServerCounters {
            calls: self.shared.calls.load(Ordering::Relaxed),
            positions: self.shared.positions.load(Ordering::Relaxed),
        }
    }
}

impl Drop for InferenceServer {
    fn drop(&mut self) {
        self.shared.queue.lock().expect("queue lock").closed = true;
        self.shared.arrived.notify_all();
        if let Some(thread) = self.thread.take() {
            // A panic in the forward pass reached every waiting evaluator already.
            let _ = thread.join();
        }
    }
}

/// One forward pass of `batch` positions, its failure (libtorch panics on a device out of
/// memory) turned into an error that names the setting to lower.
fn probe(model: &Model, batch: usize) -> Result<(), NnError> {
    let [c, h, w] = model.meta().obs_shape;
    let obs = vec![0.0; batch * c * h * w];
    let mut logits = vec![0.0; batch * model.meta().num_actions];
    let mut values = vec![0.0; batch];
    let run = || model.predict(&obs, batch, &mut logits, &mut values);
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)).map_err(|panic| {
        let first = panic_line(&*panic);
        NnError::BadConfig(format!(
            "a forward pass of {batch} positions failed on {:?} ({first}): lower \
             self_play.max_batch",
            model.device()
        ))
    })
}

/// Closes the queue and drops what waits in it when the server's thread ends, by a panic
/// too, so that no evaluator waits for an answer that cannot come.
struct CloseOnExit<'a>(&'a Shared);

impl Drop for CloseOnExit<'_> {
    fn drop(&mut self) {
        let mut queue = self.0.queue.lock().unwrap_or_else(|e| e.into_inner());
        queue.closed = true;
        queue.requests.clear();
    }
}

/// The server's loop: wait for requests, take as many as fit in one batch, run them,
/// answer each.
fn serve(model: &Model, shared: &Shared, obs_len: usize, num_actions: usize) {
    let _close = CloseOnExit(shared);
    let mut taken: Vec<Request> = Vec::new();
    let mut obs: Vec<f32> = Vec::new();
    let mut logits: Vec<f32> = Vec::new();
    let mut values: Vec<f32> = Vec::new();
    loop {
        let total = {
            let mut queue = shared.queue.lock().expect("queue lock");
            while queue.requests.is_empty() && !queue.closed {
                queue = shared.arrived.wait(queue).expect("queue lock");
            }
            if queue.requests.is_empty() {
                return;
            }
            let mut total = 0;
            while let Some(next) = queue.requests.front() {
                if total > 0 && total + next.batch > shared.max_batch {
                    break;
                }
                total += next.batch;
                taken.push(queue.requests.pop_front().expect("front exists"));
            }
            total
        };
        obs.clear();
        for request in &taken {
            obs.extend_from_slice(&request.obs[..request.batch * obs_len]);
        }
        logits.resize(total * num_actions, 0.0);
        values.resize(total, 0.0);
        model.predict(&obs, total, &mut logits, &mut values);
        shared.calls.fetch_add(1, Ordering::Relaxed);
        shared.positions.fetch_add(total as u64, Ordering::Relaxed);
        let mut row = 0;
        for request in taken.drain(..) {
            let rows = row..row + request.batch;
            let answer = Answer {
                obs: request.obs,
                logits: logits[rows.start * num_actions..rows.end * num_actions].to_vec(),
                values: values[rows.clone()].to_vec(),
            };
            row = rows.end;
            // An evaluator that gave up waiting (its thread ended) needs no answer.
            let _ = request.reply.send(answer);
        }
    }
}

/// A search thread's handle on an [`InferenceServer`]: observes its positions on its own
/// thread, queues them and waits for their rows.
pub struct ServerEvaluator<G> {
    shared: Arc<Shared>,
    obs_len: usize,
    num_actions: usize,
    obs: Vec<f32>,
    reply: mpsc::SyncSender<Answer>,
    answers: mpsc::Receiver<Answer>,
    _game: PhantomData<fn(&G)>,
}

impl<G: Game> Evaluator<G> for ServerEvaluator<G> {
    fn evaluate(&mut self, positions: &[G], logits: &mut [f32], values: &mut [f32]) {
        let batch = positions.len();
        let mut obs = std::mem::take(&mut self.obs);
        obs.resize(batch * self.obs_len, 0.0);
        for (position, row) in positions.iter().zip(obs.chunks_exact_mut(self.obs_len)) {
            position.observe(row);
        }
        {
            let mut queue = self.shared.queue.lock().unwrap_or_else(|e| e.into_inner());
            assert!(
                !queue.closed,
                "the inference server stopped (see its error above)"
            );
            queue.requests.push_back(Request {
                obs,
                batch,
                reply: self.reply.clone(),
            });
        }
        self.shared.arrived.notify_one();
        let answer = self
            .answers
            .recv()
            .expect("the inference server stopped (see its error above)");
        logits[..batch * self.num_actions].copy_from_slice(&answer.logits);
        values[..batch].copy_from_slice(&answer.values);
        self.obs = answer.obs;
    }
}
