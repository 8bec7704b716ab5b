//! The search behind `go`: it runs on its own thread in slices of simulations, so that the
//! loop answers `isready` and `stop` while it thinks, and writes `info` and `bestmove`.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use zerosum_games::chess::Chess;
use zerosum_games::{Action, Game, Outcome};
use zerosum_search::{search_one, Bound, EvalCache, Evaluator, SearchConfig, Tree};

/// Where the engine's lines go: shared by the loop and the search thread.
pub type Output = Arc<Mutex<Box<dyn Write + Send>>>;

/// Writes one line and flushes; ends the process if the line cannot be written (the GUI
/// went away, or a full disk took the log), since nobody hears the engine any more.
pub fn say(out: &Output, line: &str) {
    let mut out = out.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Err(e) = writeln!(out, "{line}").and_then(|()| out.flush()) {
        crate::output_failed(&e.to_string());
    }
}

/// The most simulations between looks at the stop flag and the clock.
const MAX_SLICE: u64 = 16;
/// How long one slice of simulations may take: slices shrink until they fit, so that
/// `stop` is heard within this however slow a simulation is.
const SLICE_TIME: Duration = Duration::from_millis(20);
/// The most nodes a tree may hold when the limits name no bound (about 40 bytes each).
const MAX_TREE_NODES: usize = 10_000_000;

/// What the search owns between searches: the evaluator, its cache and the random draws.
pub struct Searcher {
    /// The network or the random rollouts.
    pub evaluator: Box<dyn Evaluator<Chess> + Send>,
    /// The search settings (PUCT; the Gumbel root needs its budget up front).
    pub config: SearchConfig,
    /// Evaluations kept across searches, keyed by position hash.
    pub cache: EvalCache,
    /// The search's random draws.
    pub rng: SmallRng,
}

impl Searcher {
    /// MCTS with random rollouts (one per leaf) and the default search settings, its
    /// draws seeded by `seed`: the engine without a network.
    pub fn rollouts(seed: u64) -> Searcher {
        let config = SearchConfig::default();
        Searcher {
            evaluator: Box::new(zerosum_search::RolloutEvaluator::new(seed, 1)),
            cache: EvalCache::new(config.cache_capacity),
            config,
            rng: rand::SeedableRng::seed_from_u64(seed),
        }
    }
}

/// When one search stops: whichever limit comes first, or `stop`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Simulations.
    pub nodes: Option<u64>,
    /// Thinking time.
    pub time: Option<Duration>,
    /// Search until `stop`, and answer only then (`go infinite`).
    pub infinite: bool,
    /// The most nodes the tree may hold: it stops growing there and the search answers
    /// with what it has.
    pub tree_nodes: Option<usize>,
}

/// Searches `root` within `limits` (or until `stop` is set), writing an `info` line every
/// `info_interval` and at the end, then `bestmove`. `root` is not finished.
pub fn run(
    searcher: &mut Searcher,
    root: Chess,
    limits: Limits,
    stop: &AtomicBool,
    out: &Output,
    info_interval: Option<Duration>,
) {
    let start = Instant::now();
    let deadline = limits.time.map(|t| start + t);
    let only_move = root.legal_action_vec().len() == 1;
    let mut tree = Tree::new(root);
    let mut done: u64 = 0;
    let mut last_info = start;
    let max_nodes = limits.tree_nodes.unwrap_or(MAX_TREE_NODES);
    let mut slice_size = 1;
    loop {
        let slice = limits
            .nodes
            .map_or(slice_size, |n| n.saturating_sub(done).min(slice_size));
        let slice_start = Instant::now();
        search_one(
            &mut tree,
            &mut searcher.evaluator,
            &searcher.config,
            slice as usize,
            &mut searcher.cache,
            &mut searcher.rng,
        );
        done += slice;
        let now = Instant::now();
        slice_size = if now - slice_start > SLICE_TIME {
            (slice_size / 2).max(1)
        } else {
            (slice_size * 2).min(MAX_SLICE)
        };
        let settled = tree.root().bound != Bound::Unknown || (only_move && limits.nodes.is_none());
        if stop.load(Ordering::Relaxed)
            || limits.nodes.is_some_and(|n| done >= n)
            || deadline.is_some_and(|d| now >= d)
            || (settled && !limits.infinite)
            || tree.len() >= max_nodes
        {
            break;
        }
        if info_interval.is_some_and(|i| now - last_info >= i) {
            say(out, &info_line(&tree, done, None));
            last_info = now;
        }
    }
    answer(searcher, &tree, done, limits.infinite, stop, out);
}

/// Writes the last `info` line and `bestmove` for `tree`, searched `done` simulations;
/// an `infinite` search waits for `stop` first, even when it has ended.
fn answer(
    searcher: &mut Searcher,
    tree: &Tree<Chess>,
    done: u64,
    infinite: bool,
    stop: &AtomicBool,
    out: &Output,
) {
    while infinite && !stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(2));
    }
    let best = tree
        .choose_action_by(searcher.config.final_choice, 0.0, &mut searcher.rng)
        .expect("a searched position that is not finished has moves");
    say(out, &info_line(tree, done, Some(best)));
    say(
        out,
        &format!("bestmove {}", tree.root_position().format_action(best)),
    );
}

/// Centipawns from a value in `[-1, 1]`, as Leela Chess Zero converts: `111.71 *
/// tan(1.5621 * v)`, so that 0.3 is about +57, 0.5 +111, 0.9 +671 and 1 at most +12800.
pub fn centipawns(value: f32) -> i64 {
    let v = f64::from(value.clamp(-1.0, 1.0));
    (111.714_640_912 * (1.562_068_842_1 * v).tan()).round() as i64
}

/// `info depth D nodes N score (cp X | mate M) pv ...` for the tree as it stands.
pub fn info_line(tree: &Tree<Chess>, nodes: u64, best: Option<Action>) -> String {
    let pv = tree.principal_variation(best);
    let mut position = tree.root_position().clone();
    let mover = position.to_move();
    let mut moves = Vec::with_capacity(pv.len());
    for &action in &pv {
        moves.push(position.format_action(action));
        position.apply(action);
    }
    let root = tree.root();
    let value = root.bound.value().unwrap_or_else(|| root.mean_value());
    // A proven result whose line ends in mate is a mate score; anything else is centipawns.
    let score = match (root.bound, position.outcome()) {
        (Bound::Win, Some(Outcome::Win(winner))) if winner == mover => {
            format!("mate {}", pv.len().div_ceil(2))
        }
        (Bound::Loss, Some(Outcome::Win(winner))) if winner != mover => {
            format!("mate -{}", pv.len() / 2)
        }
        _ => format!("cp {}", centipawns(value)),
    };
    format!(
        "info depth {} nodes {nodes} score {score} pv {}",
        pv.len().max(1),
        moves.join(" ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn centipawns_follow_leelas_curve() {
        assert_eq!(centipawns(0.0), 0);
        assert_eq!(centipawns(0.5), 111);
        assert_eq!(centipawns(-0.5), -111);
        assert_eq!(centipawns(0.9), 671);
        assert_eq!(centipawns(1.0), 12800);
        assert_eq!(centipawns(7.0), 12800);
        assert_eq!(centipawns(-1.0), -12800);
    }

    /// A tree at its memory bound stops growing, and the search answers with what it has.
    #[test]
    fn a_search_stops_at_its_tree_bound() {
        let mut searcher = Searcher::rollouts(1);
        let written = crate::Transcript::default();
        let out: Output = Arc::new(Mutex::new(Box::new(written.clone())));
        let limits = Limits {
            nodes: Some(1_000_000),
            tree_nodes: Some(600),
            ..Limits::default()
        };
        run(
            &mut searcher,
            Chess::new(),
            limits,
            &AtomicBool::new(false),
            &out,
            None,
        );
        let text = written.lines().join("\n");
        let nodes: u64 = text
            .split(" nodes ")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        // About 20 children a simulation: the tree is full after some 30 simulations.
        assert!(nodes < 100, "{text}");
        assert!(
            text.lines().last().unwrap().starts_with("bestmove "),
            "{text}"
        );
    }
}
