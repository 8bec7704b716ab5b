//! The Elo ladder: a run's checkpoints against each other and against fixed anchors, rated
//! on one scale with `random` at 0.
//!
//! [`ladder_players`] lists the anchors (`random` first) and the checkpoints of a run
//! (`checkpoints/gen-*`, and `latest` when it is newer than all of them). [`schedule`]
//! pairs them: each checkpoint meets every anchor and the two checkpoints after it, and
//! each anchor the next anchor, so every player is linked to `random` while the number of
//! matches grows linearly with the checkpoints. [`run_ladder`] plays the matches with
//! [`play_match`], fits [`ratings::fit_ratings`] and appends one `ladder` event per player
//! to the run's event log. Every match's games and players are seeded from the
//! ladder's seed and the match's index alone, so the same seed gives the same games and
//! the same ratings.

use std::path::PathBuf;

use rand::rngs::SmallRng;
use rand::SeedableRng;
use zerosum_games::Game;

use crate::error::TrainError;
use crate::history::RunHistory;
use crate::reports::{LadderEntry, LadderPlayer, LadderRating, LadderReport};
use crate::sink::{Handler, Moment, Phase, Report};
use zerosum_config::RunConfig;
use zerosum_players::arena::{match_torch_threads, play_match_with_openings, MatchReport};
use zerosum_players::players::{build_agent, PlayerSpec};
use zerosum_players::ratings::{fit_ratings, PairResult};
use zerosum_players::PlayError;
use zerosum_store::events::event_line;
use zerosum_store::names;
use zerosum_store::store::RunStore;
use zerosum_store::EventKind;
use zerosum_store::StoreError;

/// What the ladder plays with.
#[derive(Clone, Debug)]
pub struct LadderOptions {
    /// Games per match (colours alternate).
    pub games: usize,
    /// The fixed players; `random` is added first if missing, and rated 0.
    pub anchors: Vec<PlayerSpec>,
    /// Seed of every game and player.
    pub seed: u64,
    /// Simulations per move of the checkpoints' search.
    pub num_simulations: usize,
    /// Random moves that open each pair of games, played once with each colour: two
    /// checkpoints search without noise, so from the start they would replay one pair of
    /// games over and over.
    pub opening_plies: usize,
}

/// The anchors (with `random` first) and the run's checkpoints, oldest first.
pub fn ladder_players(
    store: &RunStore,
    anchors: &[PlayerSpec],
) -> Result<Vec<LadderPlayer>, TrainError> {
    let mut players = vec![anchor(PlayerSpec::Random)];
    for spec in anchors {
        if let PlayerSpec::Checkpoint { .. } | PlayerSpec::Human = spec {
            return Err(PlayError::BadPlayer {
                spec: spec.to_string(),
                reason: "an anchor must be random, perfect, mcts:N, uct:N, mc:N or gtp:COMMAND"
                    .to_string(),
            }
            .into());
        }
        if !players.iter().any(|p| p.spec == *spec) {
            players.push(anchor(spec.clone()));
        }
    }
    let mut checkpoints: Vec<LadderPlayer> = Vec::new();
    let bases: Vec<String> = zerosum_store::checkpoints::generations(store)?
        .into_iter()
        .map(names::checkpoint)
        .collect();
    for base in bases {
        let Some(bytes) = zerosum_store::checkpoints::read(store, &base)? else {
            continue;
        };
        let path = PathBuf::from(store.display(&base));
        let meta: zerosum_nn::CheckpointMeta =
            serde_json::from_slice(&bytes.meta).map_err(|e| StoreError::Location {
                location: store.display(&names::sidecar(&base)),
                reason: e.to_string(),
            })?;
        if checkpoints
            .iter()
            .any(|c| c.generation == Some(meta.generation))
        {
            continue;
        }
        checkpoints.push(LadderPlayer {
            name: names::generation_name(meta.generation),
            spec: PlayerSpec::Checkpoint {
                path,
                sims: None,
                tuning: Default::default(),
            },
            generation: Some(meta.generation),
            step: Some(meta.step),
        });
    }
    checkpoints.sort_by_key(|c| c.generation);
    players.extend(checkpoints);
    Ok(players)
}

fn anchor(spec: PlayerSpec) -> LadderPlayer {
    LadderPlayer {
        name: spec.to_string(),
        spec,
        generation: None,
        step: None,
    }
}

/// The matches to play, as pairs of indices into `players`: every checkpoint against every
/// anchor and the next two checkpoints, every anchor against the next anchor.
pub fn schedule(players: &[LadderPlayer]) -> Vec<(usize, usize)> {
    let anchors: Vec<usize> = (0..players.len())
        .filter(|&i| players[i].generation.is_none())
        .collect();
    let checkpoints: Vec<usize> = (0..players.len())
        .filter(|&i| players[i].generation.is_some())
        .collect();
    let mut pairs = Vec::new();
    for w in anchors.windows(2) {
        pairs.push((w[0], w[1]));
    }
    for (k, &c) in checkpoints.iter().enumerate() {
        for &a in &anchors {
            pairs.push((c, a));
        }
        for &next in checkpoints.iter().skip(k + 1).take(2) {
            pairs.push((next, c));
        }
    }
    pairs
}

/// A well-mixed 64-bit seed for match `index`, side `side`, of a ladder seeded `seed`
/// (SplitMix64's finaliser).
fn mix(seed: u64, index: u64, side: u64) -> u64 {
    let mut z = seed
        .wrapping_add(index.wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .wrapping_add(side.wrapping_mul(0xD1B5_4A32_D192_ED03));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Plays the ladder of the run in `store` with its `config` (game, search, device), fits
/// the ratings and appends them to the run's metrics as `ladder` events.
pub fn run_ladder<G: Game>(
    initial: &G,
    config: &RunConfig,
    store: &RunStore,
    options: &LadderOptions,
    progress: &mut dyn Handler,
) -> Result<LadderReport, TrainError> {
    let players = ladder_players(store, &options.anchors)?;
    if !players.iter().any(|p| p.generation.is_some()) {
        return Err(StoreError::Location {
            location: store.location().to_string(),
            reason: "no checkpoints to rate (checkpoints/gen-*.safetensors)".to_string(),
        }
        .into());
    }
    let device = zerosum_nn::parse_device(&config.device)?;
    zerosum_nn::init_torch(options.seed, match_torch_threads(config.torch_threads));
    let pairs = schedule(&players);
    let newest = players.iter().filter_map(|p| p.generation).max();
    progress.phase_started(
        newest.unwrap_or(0),
        Phase::Ladder,
        (pairs.len() * options.games) as u64,
    );
    let matches = play_pairs(initial, config, &players, &pairs, options, device, progress)?;
    let ladder = RunHistory::read(store)?.next_ladder();
    let entries = rate(players, &pairs, &matches)?;
    let report = LadderReport {
        ladder,
        entries,
        matches,
    };
    let at = Moment {
        generation: newest.unwrap_or(0),
        step: 0,
    };
    progress.reported(at, Report::Ladder(&report))?;
    for (index, entry) in report.entries.iter().enumerate() {
        zerosum_store::events::record_named(
            store,
            &format!("ladder-{:04}-{index:03}", report.ladder),
            &ladder_line(store, &report, entry, options),
        )?;
    }
    Ok(report)
}

/// Plays each scheduled pair's match, each seeded from the ladder's seed and its index.
fn play_pairs<G: Game>(
    initial: &G,
    config: &RunConfig,
    players: &[LadderPlayer],
    pairs: &[(usize, usize)],
    options: &LadderOptions,
    device: zerosum_nn::Device,
    progress: &mut dyn Handler,
) -> Result<Vec<MatchReport>, TrainError> {
    let mut matches = Vec::with_capacity(pairs.len());
    for (index, &(a, b)) in pairs.iter().enumerate() {
        let build = |player: usize, side: u64| {
            build_agent(
                &players[player].spec,
                initial,
                &config.search,
                options.num_simulations,
                device,
                mix(options.seed, index as u64, side),
            )
        };
        let (mut agent_a, mut agent_b) = (build(a, 1)?, build(b, 2)?);
        let mut rng = SmallRng::seed_from_u64(mix(options.seed, index as u64, 0));
        let mut report = play_match_with_openings(
            initial,
            agent_a.as_mut(),
            agent_b.as_mut(),
            options.games,
            options.opening_plies,
            &mut rng,
            |_, _| progress.phase_advanced(1),
        )?;
        report.player = players[a].name.clone();
        report.opponent = players[b].name.clone();
        matches.push(report);
    }
    Ok(matches)
}

/// Every player's fitted rating (`random` = 0) and the games it played.
fn rate(
    players: Vec<LadderPlayer>,
    pairs: &[(usize, usize)],
    matches: &[MatchReport],
) -> Result<Vec<LadderEntry>, TrainError> {
    let names: Vec<String> = players.iter().map(|p| p.name.clone()).collect();
    let results: Vec<PairResult> = pairs
        .iter()
        .zip(matches)
        .map(|(&(a, b), m)| PairResult {
            a,
            b,
            score_a: m.wins as f64 + 0.5 * m.draws as f64,
            games: m.games() as f64,
        })
        .collect();
    let ratings = fit_ratings(&names, &results, 0)?;
    let mut entries = Vec::with_capacity(players.len());
    for (index, (player, rating)) in players.into_iter().zip(ratings).enumerate() {
        let games = pairs
            .iter()
            .zip(matches)
            .filter(|((a, b), _)| *a == index || *b == index)
            .map(|(_, m)| m.games())
            .sum();
        entries.push(LadderEntry {
            player,
            rating,
            games,
        });
    }
    Ok(entries)
}

/// The `ladder` event of one player.
fn ladder_line(
    store: &RunStore,
    report: &LadderReport,
    entry: &LadderEntry,
    options: &LadderOptions,
) -> String {
    // The checkpoint as the run directory names it (checkpoints/gen-0012).
    let root = store.display("");
    let checkpoint: Option<String> = match &entry.player.spec {
        PlayerSpec::Checkpoint { path, .. } => {
            let path = path.to_string_lossy();
            Some(path.strip_prefix(&root).unwrap_or(&path).to_string())
        }
        _ => None,
    };
    let rating = LadderRating {
        ladder: report.ladder,
        player: entry.player.name.clone(),
        checkpoint,
        elo: entry.rating.elo,
        low: entry.rating.low,
        high: entry.rating.high,
        games: u64::from(entry.games),
        games_per_match: options.games,
        simulations: options.num_simulations,
        opening_plies: options.opening_plies,
        seed: options.seed,
        anchor: "random".to_string(),
    };
    let fields = serde_json::to_value(&rating).expect("ratings serialise");
    event_line(
        EventKind::Ladder,
        entry.player.generation,
        entry.player.step,
        fields,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sink::Silent;
    use zerosum_games::tic_tac_toe::TicTacToe;

    fn checkpoint(generation: u64) -> LadderPlayer {
        LadderPlayer {
            name: names::generation_name(generation),
            spec: PlayerSpec::Checkpoint {
                path: names::generation_name(generation).into(),
                sims: None,
                tuning: Default::default(),
            },
            generation: Some(generation),
            step: Some(generation * 10),
        }
    }

    #[test]
    fn the_schedule_links_everyone_to_random() {
        let mut players = vec![
            anchor(PlayerSpec::Random),
            anchor(PlayerSpec::Mcts { sims: 10 }),
        ];
        players.extend((0..4).map(checkpoint));
        let pairs = schedule(&players);
        // Anchors: 1 pair; each of 4 checkpoints: 2 anchors; neighbours: 2 + 2 + 1.
        assert_eq!(pairs.len(), 1 + 4 * 2 + 5);
        assert!(pairs.contains(&(0, 1)) && pairs.contains(&(3, 2)) && pairs.contains(&(4, 2)));
        assert!(
            !pairs.contains(&(5, 2)),
            "checkpoints three apart do not meet"
        );
    }

    fn scratch_run(name: &str) -> (std::path::PathBuf, RunStore, RunConfig) {
        let dir =
            std::env::temp_dir().join(format!("zerosum-ladder-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let store = RunStore::create(dir.to_str().unwrap()).unwrap();
        let config = RunConfig {
            game: "tictactoe".to_string(),
            device: "cpu".to_string(),
            ..RunConfig::default()
        };
        let game = TicTacToe::new();
        let mut model =
            zerosum_nn::Model::for_game(&game, &config.model, zerosum_nn::Device::Cpu).unwrap();
        for generation in [0, 2] {
            model.set_progress(generation * 5, generation);
            zerosum_store::checkpoints::save(&store, generation, &model, None).unwrap();
        }
        zerosum_store::checkpoints::publish(&store, 2, 0.0).unwrap();
        (dir, store, config)
    }

    #[test]
    fn checkpoints_are_found_once_and_ordered() {
        let (dir, store, _) = scratch_run("players");
        let anchors = [PlayerSpec::Mcts { sims: 8 }, PlayerSpec::Random];
        let players = ladder_players(&store, &anchors).unwrap();
        let names: Vec<&str> = players.iter().map(|p| p.name.as_str()).collect();
        // latest is generation 2, already listed as gen-0002.
        assert_eq!(names, ["random", "mcts:8", "gen-0000", "gen-0002"]);
        assert_eq!(players[3].step, Some(10));
        assert!(ladder_players(&store, &[PlayerSpec::Human]).is_err());
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn the_same_seed_gives_the_same_ratings() {
        let (dir, store, config) = scratch_run("seed");
        let options = LadderOptions {
            games: 4,
            anchors: vec![PlayerSpec::Mcts { sims: 16 }],
            seed: 7,
            num_simulations: 8,
            opening_plies: 2,
        };
        let game = TicTacToe::new();
        let first = run_ladder(&game, &config, &store, &options, &mut Silent).unwrap();
        let second = run_ladder(&game, &config, &store, &options, &mut Silent).unwrap();
        // Outcomes and move counts repeat; the seconds spent thinking do not.
        let outcomes = |r: &LadderReport| {
            r.matches
                .iter()
                .map(|m| {
                    let moves = (m.thinking.moves, m.opponent_thinking.moves);
                    (
                        m.player.clone(),
                        m.opponent.clone(),
                        m.wins,
                        m.draws,
                        m.losses,
                        moves,
                    )
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(outcomes(&first), outcomes(&second));
        let elo = |r: &LadderReport| r.entries.iter().map(|e| e.rating).collect::<Vec<_>>();
        assert_eq!(elo(&first), elo(&second));
        assert_eq!((first.ladder, second.ladder), (1, 2));
        assert_eq!(first.entries[0].rating.elo, 0.0);
        assert!(first.headline().unwrap().starts_with("generation 2: "));
        // The events landed, and the history keeps the latest ladder only.
        let history = RunHistory::read(&store).unwrap();
        assert_eq!(history.ladder.len(), 4);
        assert!(history.ladder.iter().all(|p| p.rating.ladder == 2));
        assert_eq!(history.ladder[3].generation, Some(2));
        std::fs::remove_dir_all(dir).unwrap();
    }
}
