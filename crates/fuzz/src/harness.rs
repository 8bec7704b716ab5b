//! The fuzzing driver: every parser of outside input, fed generated hostile input, on stable
//! Rust.
//!
//! cargo-fuzz needs a nightly compiler; this is a seeded loop instead. Each target
//! ([`crate::targets`]) makes inputs from a seeded RNG (valid input cut, flipped, spliced and
//! mixed with the target's own words and awkward numbers: [`Mutator`]) and feeds them to
//! the real parser or the real front end, checking what the target promises beyond "no
//! panic" (a `readyok` for every `isready`, a JSON body for every API answer, a move that
//! reads back as itself). The driver runs a target on a thread of its own and watches it:
//! a panic, a broken promise, or an input not answered within the target's bound ends the
//! run with that input, and the peak memory of the process is reported beside the count
//! of inputs tried.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// One parser under test, fed one input at a time.
pub trait Harness {
    /// Makes the next input.
    fn generate(&mut self, rng: &mut SmallRng) -> Vec<u8>;
    /// Feeds `input` to the parser; `Err` says which promise the answer broke.
    fn feed(&mut self, input: &[u8]) -> Result<(), String>;
}

/// A target: its name, what it feeds, how long one input may take, and how to build it.
pub struct Target {
    /// The name `zerosum-fuzz` takes.
    pub name: &'static str,
    /// What is fed, one line.
    pub about: &'static str,
    /// The longest one input may take before it counts as a hang.
    pub bound: Duration,
    /// Builds the harness (on the thread that runs it).
    pub build: fn() -> Box<dyn Harness>,
}

/// When a run stops.
#[derive(Clone, Copy, Debug)]
pub enum Limit {
    /// After this many inputs.
    Cases(u64),
    /// After this long.
    Time(Duration),
}

/// What went wrong, with the input that did it.
#[derive(Clone, Debug)]
pub enum Failure {
    /// The parser panicked.
    Panic(String),
    /// The answer broke a promise.
    Wrong(String),
    /// No answer within the bound.
    Hang(Duration),
}

/// How a run went.
#[derive(Clone, Debug)]
pub struct Report {
    /// The target.
    pub target: &'static str,
    /// Inputs fed to the end.
    pub cases: u64,
    /// How long the run took.
    pub elapsed: Duration,
    /// The slowest input's time.
    pub slowest: Duration,
    /// The process's peak resident memory after the run, in MiB (Linux; 0 elsewhere).
    pub peak_mib: f64,
    /// The first failure and its input, if any.
    pub failure: Option<(Failure, Vec<u8>)>,
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:<12} {:>9} inputs in {:>6.1} s, slowest {:>7.1} ms, peak memory {:>6.0} MiB: ",
            self.target,
            self.cases,
            self.elapsed.as_secs_f64(),
            self.slowest.as_secs_f64() * 1000.0,
            self.peak_mib
        )?;
        match &self.failure {
            None => write!(f, "no panic, no hang"),
            Some((failure, input)) => {
                let shown = show(input);
                match failure {
                    Failure::Panic(message) => write!(f, "PANIC ({message}) on {shown}"),
                    Failure::Wrong(message) => write!(f, "WRONG ({message}) on {shown}"),
                    Failure::Hang(after) => {
                        write!(
                            f,
                            "HANG (no answer after {:.1} s) on {shown}",
                            after.as_secs_f64()
                        )
                    }
                }
            }
        }
    }
}

/// An input as a Rust byte string literal, cut to 2,000 characters.
fn show(input: &[u8]) -> String {
    let text: String = input.escape_ascii().to_string();
    if text.len() > 2000 {
        format!("b\"{}...\" ({} bytes)", &text[..2000], input.len())
    } else {
        format!("b\"{text}\"")
    }
}

/// What the watcher sees of the worker.
#[derive(Default)]
struct Shared {
    /// The input being fed and when it started; `None` between inputs.
    current: Mutex<Option<(Vec<u8>, Instant)>>,
    done: AtomicU64,
    slowest_micros: AtomicU64,
    failure: Mutex<Option<(Failure, Vec<u8>)>>,
}

/// Runs `target` from `seed` until `limit` or its first failure.
pub fn run(target: &Target, limit: Limit, seed: u64) -> Report {
    let shared = Arc::new(Shared::default());
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let start = Instant::now();
    let worker = {
        let (shared, stop, build) = (shared.clone(), stop.clone(), target.build);
        std::thread::Builder::new()
            .name(format!("fuzz-{}", target.name))
            .spawn(move || work(build, seed, limit, &shared, &stop))
            .expect("a fuzz thread starts")
    };
    let mut hung = None;
    while !worker.is_finished() {
        std::thread::sleep(Duration::from_millis(5));
        let current = lock(&shared.current).clone();
        if let Some((input, began)) = current {
            if began.elapsed() > target.bound {
                hung = Some((Failure::Hang(began.elapsed()), input));
                stop.store(true, Ordering::Relaxed);
                break;
            }
        }
    }
    // A hung worker is left behind: the caller reports and the process ends.
    let failure = hung.or_else(|| lock(&shared.failure).take());
    Report {
        target: target.name,
        cases: shared.done.load(Ordering::Relaxed),
        elapsed: start.elapsed(),
        slowest: Duration::from_micros(shared.slowest_micros.load(Ordering::Relaxed)),
        peak_mib: zerosum_train::reports::peak_memory_mib().unwrap_or(0.0),
        failure,
    }
}

fn work(
    build: fn() -> Box<dyn Harness>,
    seed: u64,
    limit: Limit,
    shared: &Shared,
    stop: &std::sync::atomic::AtomicBool,
) {
    let mut harness = build();
    let mut rng = SmallRng::seed_from_u64(seed);
    let start = Instant::now();
    loop {
        let done = shared.done.load(Ordering::Relaxed);
        let over = match limit {
            Limit::Cases(n) => done >= n,
            Limit::Time(t) => start.elapsed() >= t,
        };
        if over || stop.load(Ordering::Relaxed) {
            return;
        }
        let input = harness.generate(&mut rng);
        let began = Instant::now();
        *lock(&shared.current) = Some((input.clone(), began));
        let outcome = catch_unwind(AssertUnwindSafe(|| harness.feed(&input)));
        *lock(&shared.current) = None;
        let took = began.elapsed().as_micros() as u64;
        shared.slowest_micros.fetch_max(took, Ordering::Relaxed);
        let failure = match outcome {
            Ok(Ok(())) => None,
            Ok(Err(message)) => Some(Failure::Wrong(message)),
            Err(payload) => Some(Failure::Panic(panic_message(payload.as_ref()))),
        };
        if let Some(failure) = failure {
            *lock(&shared.failure) = Some((failure, input));
            return;
        }
        shared.done.fetch_add(1, Ordering::Relaxed);
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string())
}

/// Makes hostile variants of valid input: the mutations of AFL and libFuzzer (bit flips,
/// byte changes, cuts, repeats, splices), plus the target's own words and numbers that
/// parsers get wrong.
pub struct Mutator {
    /// Words that mean something to the target (commands, keys, moves).
    pub words: Vec<String>,
}

/// Numbers at the edges of the types parsers use.
const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "2",
    "7",
    "127",
    "128",
    "255",
    "256",
    "-129",
    "4294967295",
    "4294967296",
    "-2147483649",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "18446744073709551616",
    "1000000000000",
    "99999999999999999999999999999999",
    "1e308",
    "1e309",
    "-1e309",
    "NaN",
    "inf",
    "-inf",
    "0.5",
    "1.5e-45",
    "0x10",
    "",
];

impl Mutator {
    /// A mutator with the target's words.
    pub fn new(words: &[&str]) -> Mutator {
        Mutator {
            words: words.iter().map(|w| w.to_string()).collect(),
        }
    }

    /// A word of the target's, or an awkward number.
    pub fn token(&self, rng: &mut SmallRng) -> String {
        if !self.words.is_empty() && rng.random_bool(0.6) {
            self.words[rng.random_range(0..self.words.len())].clone()
        } else {
            NUMBERS[rng.random_range(0..NUMBERS.len())].to_string()
        }
    }

    /// Up to four mutations of `input`.
    pub fn mutate(&self, rng: &mut SmallRng, input: &[u8]) -> Vec<u8> {
        let mut out = input.to_vec();
        for _ in 0..rng.random_range(1..=4) {
            self.mutate_once(rng, &mut out);
        }
        out
    }

    fn mutate_once(&self, rng: &mut SmallRng, out: &mut Vec<u8>) {
        let len = out.len();
        let at = |rng: &mut SmallRng| rng.random_range(0..=len);
        match rng.random_range(0..9) {
            0 if len > 0 => {
                let i = rng.random_range(0..len);
                out[i] ^= 1 << rng.random_range(0..8);
            }
            1 if len > 0 => {
                let i = rng.random_range(0..len);
                out[i] = rng.random();
            }
            2 => {
                let i = at(rng);
                let bytes: Vec<u8> = (0..rng.random_range(1..8)).map(|_| rng.random()).collect();
                out.splice(i..i, bytes);
            }
            3 if len > 0 => {
                let i = rng.random_range(0..len);
                let j = rng.random_range(i..=len.min(i + 16));
                out.drain(i..j);
            }
            4 if len > 0 => {
                // Repeat a piece many times: long lines, deep nesting.
                let i = rng.random_range(0..len);
                let j = rng.random_range(i..=len.min(i + 8));
                let piece = out[i..j].to_vec();
                let times = [2, 10, 1000][rng.random_range(0..3)];
                let repeated: Vec<u8> = piece
                    .iter()
                    .copied()
                    .cycle()
                    .take(piece.len() * times)
                    .collect();
                out.splice(j..j, repeated);
            }
            5 => out.truncate(at(rng)),
            6 | 7 => {
                let i = at(rng);
                let token = self.token(rng);
                let token = if rng.random_bool(0.5) {
                    format!(" {token} ")
                } else {
                    token
                };
                out.splice(i..i, token.into_bytes());
            }
            _ => {
                // Replace a run of digits or letters with a token.
                let start = at(rng).min(len.saturating_sub(1));
                let end = (start..len)
                    .find(|&k| !out[k].is_ascii_alphanumeric())
                    .unwrap_or(len);
                let token = self.token(rng);
                out.splice(start..end.max(start), token.into_bytes());
            }
        }
    }

    /// Lines of the target's words and numbers, one to `max` words each.
    pub fn line(&self, rng: &mut SmallRng, max: usize) -> String {
        (0..rng.random_range(1..=max))
            .map(|_| self.token(rng))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::targets;

    /// A bounded run of every target: no panic, no broken promise, no hang. The long runs
    /// are `scripts/fuzz.sh` and their counts are in docs/results.md.
    #[test]
    fn every_target_survives_a_bounded_run() {
        for target in targets::all() {
            let report = run(&target, Limit::Cases(targets::QUICK_CASES), 1);
            println!("{report}");
            assert!(report.failure.is_none(), "{report}");
            assert_eq!(report.cases, targets::QUICK_CASES);
        }
    }

    #[test]
    fn the_driver_reports_panics_wrong_answers_and_hangs_with_their_input() {
        struct Picky;
        impl Harness for Picky {
            fn generate(&mut self, rng: &mut SmallRng) -> Vec<u8> {
                vec![rng.random_range(0..4)]
            }
            fn feed(&mut self, input: &[u8]) -> Result<(), String> {
                match input[0] {
                    1 => panic!("one"),
                    2 => Err("two".into()),
                    3 => {
                        std::thread::sleep(Duration::from_secs(20));
                        Ok(())
                    }
                    _ => Ok(()),
                }
            }
        }
        let target = Target {
            name: "picky",
            about: "",
            // Far above a panic's cost: printing a backtrace of this binary can take
            // a second on a loaded machine.
            bound: Duration::from_secs(5),
            build: || Box::new(Picky),
        };
        let mut seen = [false; 3];
        for seed in 0..40 {
            let report = run(&target, Limit::Cases(50), seed);
            match report.failure {
                Some((Failure::Panic(m), input)) => {
                    assert_eq!((m.as_str(), input), ("one", vec![1]));
                    seen[0] = true;
                }
                Some((Failure::Wrong(m), input)) => {
                    assert_eq!((m.as_str(), input), ("two", vec![2]));
                    seen[1] = true;
                }
                Some((Failure::Hang(_), input)) => {
                    assert_eq!(input, vec![3]);
                    seen[2] = true;
                }
                None => {}
            }
            if seen.iter().all(|&s| s) {
                break;
            }
        }
        assert_eq!(seen, [true; 3]);
    }
}
