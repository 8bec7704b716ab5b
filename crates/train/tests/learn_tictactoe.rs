//! End to end: train tic-tac-toe from zero with the default config, then hold the result
//! against exact search. It must never lose to a perfect player (from either side) and
//! must pick a game-theoretically optimal move in at least 99% of the reachable positions.

use std::collections::HashSet;

use rand::rngs::SmallRng;
use rand::SeedableRng;
use zerosum_config::RunConfig;
use zerosum_games::tic_tac_toe::TicTacToe;
use zerosum_games::Game;
use zerosum_nn::{Device, NetEvaluator};
use zerosum_players::perfect::PerfectSolver;
use zerosum_players::players::PerfectAgent;
use zerosum_players::{play_match, Agent, MctsAgent};
use zerosum_store::RunStore;
use zerosum_train::{train, Silent};

fn reachable(position: &TicTacToe, seen: &mut HashSet<TicTacToe>, out: &mut Vec<TicTacToe>) {
    if position.is_terminal() || !seen.insert(*position) {
        return;
    }
    out.push(*position);
    for action in position.legal_action_vec() {
        let mut next = *position;
        next.apply(action);
        reachable(&next, seen, out);
    }
}

#[test]
fn default_config_learns_perfect_tic_tac_toe() {
    let config_text = include_str!("../../../configs/tictactoe.toml");
    let config = RunConfig::from_toml(config_text, &[])
        .and_then(RunConfig::resolve)
        .unwrap();
    let dir = std::env::temp_dir().join(format!("zerosum-e2e-ttt-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let store = RunStore::create(dir.to_str().unwrap()).unwrap();
    let game = TicTacToe::new();
    let started = std::time::Instant::now();
    let summary = train(&game, &config, &store, &mut Silent).unwrap();
    println!(
        "trained {} generations in {:.1}s",
        summary.generation,
        started.elapsed().as_secs_f64()
    );

    let model = zerosum_store::checkpoints::load_location(
        &format!("{}/checkpoints/latest", dir.display()),
        &game,
        Device::Cpu,
    )
    .unwrap();
    let mut agent = MctsAgent::new(
        "trained".into(),
        Box::new(NetEvaluator::new(model, &game)),
        config.search.clone(),
        config.arena.num_simulations,
    );
    let mut rng = SmallRng::seed_from_u64(11);

    // Never loses to perfect play, 50 games with each colour.
    let mut perfect = PerfectAgent::new(100_000);
    let report = play_match(&game, &mut agent, &mut perfect, 100, &mut rng, |_, _| {}).unwrap();
    println!("{report}");
    assert_eq!(report.losses, 0, "{report}");

    // Optimal moves in the reachable positions.
    let mut positions = Vec::new();
    reachable(&game, &mut HashSet::new(), &mut positions);
    let mut solver = PerfectSolver::new(100_000);
    let mut optimal = 0;
    for position in &positions {
        agent.reset();
        let choice = agent.choose(position, &mut rng).unwrap();
        let (best, _) = solver.best_actions(position).unwrap();
        if best.contains(&choice.action) {
            optimal += 1;
        }
    }
    let share = optimal as f64 / positions.len() as f64;
    println!(
        "optimal in {optimal} of {} reachable positions ({:.2}%)",
        positions.len(),
        100.0 * share
    );
    assert!(
        share >= 0.99,
        "optimal in only {:.2}% of positions",
        100.0 * share
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
