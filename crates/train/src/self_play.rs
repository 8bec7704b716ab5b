//! Self-play: B games per thread searched in lockstep, one batched network call per step.
//! Usually one network plays both sides; a lineup of several (CGZero's best against second
//! best or an older generation) searches each move with the mover's network, one batched
//! call per network per step.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use rand::rngs::SmallRng;
use rand::Rng;
use zerosum_games::{Action, Game};
use zerosum_search::{
    simulate_step, EvalCache, Evaluator, Scratch, SearchConfig, SearchMode, Tree,
};

use zerosum_config::{OpeningPlies, SelfPlayConfig};
use zerosum_store::record::{GameRecord, MoveStats};

/// Counters of one self-play session.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SelfPlayCounters {
    /// Games finished.
    pub games: u64,
    /// Positions recorded as training samples: every move played, or with playout cap
    /// randomization only the fully searched ones.
    pub positions: u64,
    /// Simulations run, all trees together.
    pub simulations: u64,
    /// Positions sent to the evaluator.
    pub evaluations: u64,
    /// Evaluator calls.
    pub calls: u64,
    /// Forward passes of the network: the evaluator calls, or with an inference server
    /// the fewer, larger batches it ran them in.
    pub network_calls: u64,
    /// Leaf lookups answered by the cache.
    pub cache_hits: u64,
    /// Seconds of wall time.
    pub seconds: f64,
}

impl SelfPlayCounters {
    /// The mean batch the network saw in a forward pass.
    pub fn mean_batch(&self) -> f64 {
        self.evaluations as f64 / self.network_calls.max(1) as f64
    }

    /// Adds another worker's counters (wall time is the longest of the two).
    pub fn merge(&mut self, other: &SelfPlayCounters) {
        self.games += other.games;
        self.positions += other.positions;
        self.simulations += other.simulations;
        self.evaluations += other.evaluations;
        self.calls += other.calls;
        self.network_calls += other.network_calls;
        self.cache_hits += other.cache_hits;
        self.seconds = self.seconds.max(other.seconds);
    }
}

/// Counts what passes through an evaluator.
struct Counting<'a, E: ?Sized> {
    inner: &'a mut E,
    calls: u64,
    positions: u64,
}

impl<G: Game, E: Evaluator<G> + ?Sized> Evaluator<G> for Counting<'_, E> {
    fn evaluate(&mut self, positions: &[G], logits: &mut [f32], values: &mut [f32]) {
        self.calls += 1;
        self.positions += positions.len() as u64;
        self.inner.evaluate(positions, logits, values)
    }

    fn is_deterministic(&self) -> bool {
        self.inner.is_deterministic()
    }
}

struct Slot {
    /// The game's number, in the order games were started.
    game: usize,
    /// The lineup's networks playing first and second.
    seats: [usize; 2],
    actions: Vec<Action>,
    stats: Vec<Option<MoveStats>>,
    /// Simulations still to run for the current move; its whole budget in `budget`.
    remaining: usize,
    budget: usize,
    /// Whether the current move is searched in full and recorded (playout cap
    /// randomization: the other moves are searched fast and not recorded).
    full: bool,
}

/// Plays `num_games` self-play games from `initial`, `config.batch_games` at a time in
/// lockstep, and hands each finished game to `on_game` as soon as it ends.
///
/// Each step runs one simulation in every game still searching its move, with one batched
/// evaluator call. A game whose move budget is spent plays its move and starts the next
/// one at once, so games with different budgets (playout cap randomization) and games
/// that finish early keep the batch full.
pub fn self_play<G: Game, E: Evaluator<G> + ?Sized>(
    initial: &G,
    evaluator: &mut E,
    search: &SearchConfig,
    config: &SelfPlayConfig,
    num_games: usize,
    rng: &mut SmallRng,
    on_game: impl FnMut(GameRecord),
) -> SelfPlayCounters {
    let never = AtomicBool::new(false);
    self_play_until(
        initial, evaluator, search, config, num_games, rng, &never, on_game,
    )
}

/// [`self_play`] that gives up the games in progress as soon as `stop` is set (an actor
/// asked to leave: unfinished games are not worth the wait).
#[allow(clippy::too_many_arguments)]
pub fn self_play_until<G: Game, E: Evaluator<G> + ?Sized>(
    initial: &G,
    evaluator: &mut E,
    search: &SearchConfig,
    config: &SelfPlayConfig,
    num_games: usize,
    rng: &mut SmallRng,
    stop: &AtomicBool,
    on_game: impl FnMut(GameRecord),
) -> SelfPlayCounters {
    let mut lineup = [("self-play".to_string(), evaluator)];
    let seats = vec![[0, 0]; num_games];
    self_play_lineup(
        initial,
        &mut lineup,
        &seats,
        search,
        config,
        rng,
        stop,
        on_game,
    )
}

/// Plays one game per entry of `seats`, each naming the networks of `lineup` (name and
/// evaluator) that play first and second; each move is searched with its mover's network,
/// and a game between two networks keeps no subtree from one move to the next (it holds the
/// other network's evaluations). `on_game` gets each finished game as soon as it ends,
/// with its players' names.
#[allow(clippy::too_many_arguments)]
pub fn self_play_lineup<G: Game, E: Evaluator<G> + ?Sized>(
    initial: &G,
    lineup: &mut [(String, &mut E)],
    seats: &[[usize; 2]],
    search: &SearchConfig,
    config: &SelfPlayConfig,
    rng: &mut SmallRng,
    stop: &AtomicBool,
    mut on_game: impl FnMut(GameRecord),
) -> SelfPlayCounters {
    let start = Instant::now();
    let search = &search.for_self_play();
    let num_games = seats.len();
    let mut counters = SelfPlayCounters::default();
    let names: Vec<String> = lineup.iter().map(|(name, _)| name.clone()).collect();
    let mut networks: Vec<(Counting<E>, EvalCache)> = lineup
        .iter_mut()
        .map(|(_, evaluator)| {
            let counting = Counting {
                inner: &mut **evaluator,
                calls: 0,
                positions: 0,
            };
            (counting, EvalCache::new(search.cache_capacity))
        })
        .collect();
    let mut scratch = Scratch::new();
    let active = config.batch_games.min(num_games);
    let (mut trees, mut slots): (Vec<Tree<G>>, Vec<Slot>) = (0..active)
        .map(|game| new_game(initial, game, seats[game], search, config, rng))
        .unzip();
    let mut started = active;
    let mut budgets = Vec::with_capacity(active);
    while !trees.is_empty() && !stop.load(Ordering::Relaxed) {
        if networks.len() > 1 {
            group_by_mover(&mut trees, &mut slots);
        }
        budgets.clear();
        budgets.extend(
            slots
                .iter()
                .map(|s| if s.remaining > 0 { s.budget } else { 0 }),
        );
        simulate_by_network(
            &mut trees,
            &slots,
            &budgets,
            &mut networks,
            search,
            &mut scratch,
            rng,
        );
        let mut index = 0;
        while index < trees.len() {
            let slot = &mut slots[index];
            slot.remaining = slot.remaining.saturating_sub(1);
            counters.simulations += 1;
            if slot.remaining > 0 {
                index += 1;
                continue;
            }
            if !play_move(&mut trees[index], slot, search, config, rng) {
                index += 1;
                continue;
            }
            counters.games += 1;
            counters.positions += slot.stats.iter().filter(|s| s.is_some()).count() as u64;
            on_game(GameRecord::new(
                initial,
                slot.seats.map(|network| names[network].clone()),
                std::mem::take(&mut slot.actions),
                std::mem::take(&mut slot.stats),
            ));
            if started < num_games {
                let (tree, slot) = new_game(initial, started, seats[started], search, config, rng);
                started += 1;
                trees[index] = tree;
                slots[index] = slot;
                index += 1;
            } else {
                trees.swap_remove(index);
                slots.swap_remove(index);
            }
        }
    }
    for (counting, cache) in &networks {
        counters.evaluations += counting.positions;
        counters.calls += counting.calls;
        counters.network_calls += counting.calls;
        counters.cache_hits += cache.hits;
    }
    counters.seconds = start.elapsed().as_secs_f64();
    counters
}

/// One simulation in every game still searching its move, with the network of its mover:
/// the games come grouped by network ([`group_by_mover`]), one batched call per group.
fn simulate_by_network<G: Game, E: Evaluator<G> + ?Sized>(
    trees: &mut [Tree<G>],
    slots: &[Slot],
    budgets: &[usize],
    networks: &mut [(Counting<E>, EvalCache)],
    search: &SearchConfig,
    scratch: &mut Scratch<G>,
    rng: &mut SmallRng,
) {
    let mut from = 0;
    while from < trees.len() {
        let network = mover_network(&trees[from], &slots[from]);
        let to = from
            + trees[from..]
                .iter()
                .zip(&slots[from..])
                .take_while(|(tree, slot)| mover_network(tree, slot) == network)
                .count();
        let (counting, cache) = &mut networks[network];
        simulate_step(
            &mut trees[from..to],
            &budgets[from..to],
            counting,
            search,
            cache,
            scratch,
            rng,
        );
        from = to;
    }
}

/// The lineup's network that searches `tree`'s current move.
fn mover_network<G: Game>(tree: &Tree<G>, slot: &Slot) -> usize {
    slot.seats[tree.root_position().to_move().index()]
}

/// Orders the games by the network that searches their move (by game number within one
/// network, so the order, and with it every random draw, depends on the seed alone), so
/// that each network's searches are one contiguous run of the batch.
fn group_by_mover<G: Game>(trees: &mut Vec<Tree<G>>, slots: &mut Vec<Slot>) {
    let mut games: Vec<(Tree<G>, Slot)> = trees.drain(..).zip(slots.drain(..)).collect();
    games.sort_by_key(|(tree, slot)| (mover_network(tree, slot), slot.game));
    for (tree, slot) in games {
        trees.push(tree);
        slots.push(slot);
    }
}

/// Plays the move `tree`'s finished search chose, recorded in `slot`, and sets up the
/// next one; returns whether the game is over.
fn play_move<G: Game>(
    tree: &mut Tree<G>,
    slot: &mut Slot,
    search: &SearchConfig,
    config: &SelfPlayConfig,
    rng: &mut SmallRng,
) -> bool {
    let temperature = if slot.actions.len() < config.temperature_plies {
        config.temperature
    } else {
        0.0
    };
    let action = tree
        .choose_action_by(search.final_choice, temperature, rng)
        .expect("trees of unfinished games have children");
    let result = tree.result(search);
    slot.stats
        .push(slot.full.then(|| MoveStats::of_search(result)));
    slot.actions.push(action);
    // The subtree below holds the evaluations of the network that just moved.
    let one_network = slot.seats[0] == slot.seats[1];
    tree.advance(action, search.keeps_subtree() && one_network);
    if tree.root_position().is_terminal() {
        return true;
    }
    start_move(tree, slot, search, config, rng);
    false
}

/// A new game: the opening's random plies (not recorded) already played, the first searched
/// move set up.
fn new_game<G: Game>(
    initial: &G,
    game: usize,
    seats: [usize; 2],
    search: &SearchConfig,
    config: &SelfPlayConfig,
    rng: &mut SmallRng,
) -> (Tree<G>, Slot) {
    let mut slot = Slot {
        game,
        seats,
        actions: Vec::new(),
        stats: Vec::new(),
        remaining: 0,
        budget: 0,
        full: true,
    };
    let mut position = initial.clone();
    let mut legal = Vec::new();
    let opening_plies = config.random_opening_plies.draw(rng);
    while slot.actions.len() < opening_plies && !position.is_terminal() {
        position.legal_actions(&mut legal);
        let action = legal[rng.random_range(0..legal.len())];
        position.apply(action);
        slot.actions.push(action);
        slot.stats.push(None);
    }
    if position.is_terminal() {
        // An opening that ends the game is played again from the start.
        return new_game(
            initial,
            game,
            seats,
            search,
            &SelfPlayConfig {
                random_opening_plies: OpeningPlies::fixed(0),
                ..config.clone()
            },
            rng,
        );
    }
    let mut tree = Tree::new(position);
    start_move(&mut tree, &mut slot, search, config, rng);
    (tree, slot)
}

/// Draws whether the next move is searched in full, and sets its budget and root noise.
fn start_move<G: Game>(
    tree: &mut Tree<G>,
    slot: &mut Slot,
    search: &SearchConfig,
    config: &SelfPlayConfig,
    rng: &mut SmallRng,
) {
    slot.full =
        config.playout_cap_fraction >= 1.0 || rng.random::<f64>() < config.playout_cap_fraction;
    slot.budget = if slot.full {
        search.num_simulations
    } else {
        config.fast_simulations.max(1)
    };
    // With tree reuse the root may already hold visits: each move still gets its own
    // budget of new simulations.
    slot.remaining = slot.budget;
    let mode = if config.root_noise && slot.full {
        SearchMode::SelfPlay
    } else {
        SearchMode::Play
    };
    tree.begin_search(mode, search, rng);
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use zerosum_games::tic_tac_toe::TicTacToe;
    use zerosum_search::UniformEvaluator;

    #[test]
    fn plays_exactly_the_games_asked_with_targets_for_every_move() {
        let (search, config) = sixteen_simulations_four_at_a_time();
        let (records, counters) = play(&search, &config, 10, 5);
        assert_eq!(records.len(), 10);
        assert_eq!(counters.games, 10);
        for record in &records {
            assert_eq!(record.actions.len(), record.stats.len());
            let positions = record.replay(&TicTacToe::new()).unwrap();
            assert_eq!(positions.len(), record.actions.len());
            for (position, stats) in positions.iter().zip(&record.stats) {
                let stats = stats.as_ref().expect("every move is recorded without PCR");
                let total: f32 = stats.policy.iter().map(|p| p.1).sum();
                assert!((total - 1.0).abs() < 1e-5);
                assert!(stats.policy.iter().all(|&(a, _)| position.is_legal(a)));
                let prior = 1.0 / position.legal_action_vec().len() as f32;
                let uniform: Vec<(Action, f32)> =
                    stats.policy.iter().map(|&(a, _)| (a, prior)).collect();
                let surprise = zerosum_store::record::kl_divergence(&stats.policy, &uniform);
                assert!((stats.surprise - surprise).abs() < 1e-5, "{stats:?}");
            }
        }
        // The uniform network is surprised wherever the search preferred some moves.
        assert!(records
            .iter()
            .flat_map(|r| r.stats.iter().flatten())
            .any(|s| s.surprise > 0.1));
        assert!(counters.evaluations <= counters.simulations);
    }

    /// A search of 16 simulations, four games searched in lockstep.
    fn sixteen_simulations_four_at_a_time() -> (SearchConfig, SelfPlayConfig) {
        let search = SearchConfig {
            num_simulations: 16,
            ..Default::default()
        };
        let config = SelfPlayConfig {
            batch_games: 4,
            ..Default::default()
        };
        (search, config)
    }

    /// `games` tic-tac-toe self-play games with `search`, `config` and `seed`: the records
    /// and the counters.
    fn play(
        search: &SearchConfig,
        config: &SelfPlayConfig,
        games: usize,
        seed: u64,
    ) -> (Vec<GameRecord>, SelfPlayCounters) {
        let mut records = Vec::new();
        let counters = self_play(
            &TicTacToe::new(),
            &mut UniformEvaluator,
            search,
            config,
            games,
            &mut SmallRng::seed_from_u64(seed),
            |r| records.push(r),
        );
        (records, counters)
    }

    /// Remembers the most legal moves of any position it evaluated, answering uniformly.
    struct Watching {
        most_legal: usize,
        positions: u64,
    }

    impl Evaluator<TicTacToe> for Watching {
        fn evaluate(&mut self, positions: &[TicTacToe], logits: &mut [f32], values: &mut [f32]) {
            for position in positions {
                self.most_legal = self.most_legal.max(position.legal_action_vec().len());
            }
            self.positions += positions.len() as u64;
            UniformEvaluator.evaluate(positions, logits, values)
        }
    }

    /// Each move is searched with its mover's network: the network seated second never
    /// sees the empty board, the first does; a game of one network calls no other.
    #[test]
    fn a_lineup_searches_each_move_with_the_movers_network() {
        let (search, config) = sixteen_simulations_four_at_a_time();
        let watching = || Watching {
            most_legal: 0,
            positions: 0,
        };
        let (mut first, mut second, mut idle) = (watching(), watching(), watching());
        let mut lineup = [
            ("first".to_string(), &mut first),
            ("second".to_string(), &mut second),
            ("idle".to_string(), &mut idle),
        ];
        let seats = [[0, 1], [0, 1], [0, 0], [0, 1], [0, 1], [0, 0]];
        let mut records = Vec::new();
        let counters = self_play_lineup(
            &TicTacToe::new(),
            &mut lineup,
            &seats,
            &search,
            &config,
            &mut SmallRng::seed_from_u64(3),
            &AtomicBool::new(false),
            |r| records.push(r),
        );
        assert_eq!(records.len(), 6);
        let pairs = records.iter().filter(|r| r.players == ["first", "second"]);
        assert_eq!(pairs.count(), 4);
        assert_eq!(first.most_legal, 9);
        assert_eq!(second.most_legal, 8);
        assert_eq!(idle.positions, 0);
        assert_eq!(counters.evaluations, first.positions + second.positions);
        for record in &records {
            assert!(record.stats.iter().all(Option::is_some));
            record.replay(&TicTacToe::new()).unwrap();
        }
    }

    /// Playout cap randomization: a share of the moves is searched fast and not recorded.
    /// A fast search of two simulations puts its one child visit on one move (a one-hot
    /// target); a full search of 64 under uniform priors, without the solver, never does,
    /// so every recorded target must come from a full search.
    #[test]
    fn playout_cap_randomization_records_only_the_full_searches() {
        let search = SearchConfig {
            num_simulations: 64,
            solver: false,
            terminal_check: false,
            reuse_tree: false,
            ..Default::default()
        };
        let config = SelfPlayConfig {
            batch_games: 8,
            playout_cap_fraction: 0.5,
            fast_simulations: 2,
            ..Default::default()
        };
        let (records, counters) = play(&search, &config, 40, 8);
        let moves: usize = records.iter().map(|r| r.actions.len()).sum();
        let mut recorded = 0;
        for record in &records {
            let positions = record.replay(&TicTacToe::new()).unwrap();
            for (position, stats) in positions.iter().zip(&record.stats) {
                let Some(stats) = stats else { continue };
                recorded += 1;
                if position.legal_action_vec().len() > 1 {
                    let top = stats.policy.iter().map(|p| p.1).fold(0.0, f32::max);
                    assert!(top < 1.0, "a fast search was recorded: {stats:?}");
                }
            }
        }
        assert_eq!(recorded as u64, counters.positions);
        // Half the moves, give or take: 40 games of 5 to 9 moves.
        assert!(
            recorded > moves / 4 && recorded < moves * 3 / 4,
            "{recorded} of {moves}"
        );
    }

    #[test]
    fn random_opening_plies_are_played_but_not_recorded() {
        let search = SearchConfig {
            num_simulations: 8,
            ..Default::default()
        };
        let config = SelfPlayConfig {
            batch_games: 4,
            random_opening_plies: OpeningPlies::fixed(3),
            ..Default::default()
        };
        let (records, _) = play(&search, &config, 12, 8);
        for record in &records {
            assert!(record.stats[..3].iter().all(Option::is_none), "{record:?}");
            assert!(record.stats[3..].iter().all(Option::is_some), "{record:?}");
            record.replay(&TicTacToe::new()).unwrap();
        }
        let openings: std::collections::HashSet<&[Action]> =
            records.iter().map(|r| &r.actions[..3]).collect();
        assert!(openings.len() > 1, "every game opened the same way");
    }

    #[test]
    fn a_range_of_opening_plies_gives_each_game_its_own_count() {
        let search = SearchConfig {
            num_simulations: 8,
            ..Default::default()
        };
        let config = SelfPlayConfig {
            batch_games: 8,
            random_opening_plies: OpeningPlies { min: 0, max: 3 },
            ..Default::default()
        };
        let (records, _) = play(&search, &config, 40, 8);
        let mut counts = std::collections::BTreeSet::new();
        for record in &records {
            let random = record.stats.iter().take_while(|s| s.is_none()).count();
            assert!(random <= 3, "{record:?}");
            assert!(
                record.stats[random..].iter().all(Option::is_some),
                "{record:?}"
            );
            counts.insert(random);
        }
        assert_eq!(counts.len(), 4, "opening lengths seen: {counts:?}");
    }
}
