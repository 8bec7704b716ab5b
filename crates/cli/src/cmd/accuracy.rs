//! `zerosum accuracy PLAYER...`: how often players find a game-theoretically optimal move in
//! exactly solved positions (connect four's standard benchmark; tic-tac-toe too).
//! `zerosum accuracy --games FILE`: the same judgement of every move of recorded games, and
//! for each lost game whether the loser let a win or draw go or was lost all along.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use zerosum_config::ResolvedConfig;
use zerosum_games::registry::parse_game;
use zerosum_games::{with_game, Game};
use zerosum_nn::parse_device;
use zerosum_players::accuracy::{
    draw_positions, game_stages, judge_games, pons_sets, read_positions, score_agent, JudgedGames,
    Judging, SolvedPosition, Stage, StageScore, Tally,
};
use zerosum_players::{build_agent, PlayerSpec};
use zerosum_store::playback::read_records;
use zerosum_store::GameRecord;

use super::common::GameArgs;
use super::export::same_file;
use crate::progress::job_bar;

#[derive(clap::Args)]
pub struct Args {
    /// Players: checkpoint:PATH[,sims=N], mcts:N, random or perfect
    #[arg(required_unless_present = "games")]
    pub players: Vec<String>,
    /// Judge every move of the games recorded in this file (`arena --save` output, or a
    /// batch of a run's games) instead of asking players: the records name the game.
    /// With --save, keeps the positions where a move erred, to score players on with --load
    #[arg(long, conflicts_with_all = ["players", "game", "load", "sims", "positions"])]
    pub games: Option<PathBuf>,
    #[command(flatten)]
    pub game: GameArgs,
    /// Positions per stage (begin, middle, end of the game), or per set with --by-difficulty
    #[arg(long, default_value_t = 100)]
    pub positions: usize,
    /// Draw Pons's six sets, each stage split by how many moves keep the outcome (easy:
    /// more than half, medium: two or more, hard: one): end-easy, middle-easy, begin-easy,
    /// middle-medium, begin-medium, begin-hard
    #[arg(long, conflicts_with = "load")]
    pub by_difficulty: bool,
    /// Fewest moves played before a position of the first stage, or with --games before a
    /// judged move (earlier connect-four positions can take the solver minutes each)
    #[arg(long, default_value_t = 10)]
    pub min_plies: usize,
    /// Skip a position whose solving visits more than this many positions (counted and
    /// reported: a few early connect-four positions take billions)
    #[arg(long, default_value_t = 50_000_000)]
    pub max_nodes: u64,
    /// Simulations per move for checkpoint players that give none (default: the game
    /// config's play.num_simulations)
    #[arg(long, value_parser = super::common::positive)]
    pub sims: Option<usize>,
    /// Read the solved positions from this file (JSON Lines, as --save writes) instead of
    /// drawing and solving new ones
    #[arg(long, conflicts_with = "save")]
    pub load: Option<PathBuf>,
    /// Write the solved positions to this file, to score other players on the same ones
    /// (with --games: the positions where a recorded move erred)
    #[arg(long)]
    pub save: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<()> {
    if let Some(path) = &args.save {
        if args
            .games
            .as_ref()
            .is_some_and(|games| same_file(games, path))
        {
            bail!(
                "{}: --save names the games file itself; choose another file",
                path.display()
            );
        }
        check_writable(path)?;
    }
    if let Some(path) = &args.games {
        return judge_file(path, &args);
    }
    let specs = args
        .players
        .iter()
        .map(|p| p.parse::<PlayerSpec>())
        .collect::<Result<Vec<_>, _>>()?;
    if specs.contains(&PlayerSpec::Human) {
        bail!("a human cannot be scored here; use `zerosum play`");
    }
    if specs
        .iter()
        .any(|s| matches!(s, PlayerSpec::Gtp { .. } | PlayerSpec::Uci(_)))
    {
        bail!(
            "an engine over gtp or uci hears whole games, not loose positions; use `zerosum arena`"
        );
    }
    if args.positions == 0 {
        bail!("--positions must be at least 1");
    }
    let checkpoint = specs.iter().find_map(|s| match s {
        PlayerSpec::Checkpoint { path, .. } => Some(path.clone()),
        _ => None,
    });
    let (game, config) = super::common::resolve_with_checkpoint(&args.game, checkpoint.as_deref())?;
    with_game!(&game, g => accuracy(g, &config, &args, &specs))
}

fn accuracy<G: Game>(
    initial: &G,
    config: &ResolvedConfig,
    args: &Args,
    specs: &[PlayerSpec],
) -> Result<()> {
    let (positions, too_hard, stages) = solved_positions(initial, config, args)?;
    let used: Vec<&Stage> = stages
        .iter()
        .filter(|s| positions.iter().any(|p| p.stage == s.name))
        .collect();
    println!(
        "{}: {} positions solved exactly, each with a move that loses value",
        initial.name(),
        positions.len()
    );
    let name_width = stages.iter().map(|s| s.name.len()).max().unwrap_or(0);
    for (stage, skipped) in stages.iter().zip(&too_hard) {
        let plies: Vec<usize> = positions
            .iter()
            .filter(|p| p.stage == stage.name)
            .map(|p| p.moves.len())
            .collect();
        let (Some(fewest), Some(most)) = (plies.iter().min(), plies.iter().max()) else {
            continue;
        };
        let count = plies.len();
        let skipped = match skipped {
            0 => String::new(),
            n => format!(
                " ({n} more skipped at these moves played: over {} nodes to solve)",
                args.max_nodes
            ),
        };
        println!(
            "  {:<name_width$} {count} positions, {fewest}-{most} moves played{skipped}",
            stage.name,
        );
    }
    let stage_list: Vec<Stage> = used.into_iter().cloned().collect();
    let rows = score_players(initial, config, args, specs, &positions, &stage_list)?;
    print_scores(&rows, &stage_list);
    Ok(())
}

/// The positions to score players on, loaded (`--load`) or drawn, solved and saved
/// (`--save`); how many of each set were skipped as too hard to solve; the sets.
fn solved_positions<G: Game>(
    initial: &G,
    config: &ResolvedConfig,
    args: &Args,
) -> Result<(Vec<SolvedPosition>, Vec<usize>, Vec<Stage>)> {
    if let Some(path) = &args.load {
        let (positions, sets) = read_positions(path, initial)?;
        return Ok((positions, vec![0; sets.len()], sets));
    }
    let stages = game_stages(initial, args.min_plies);
    let stages = match args.by_difficulty {
        true => pons_sets(&stages),
        false => stages,
    };
    let bar = job_bar((stages.len() * args.positions) as u64, "solving positions");
    let drawn = draw_positions(
        initial,
        &stages,
        args.positions,
        config.seed,
        args.max_nodes,
        |_| bar.inc(1),
    )?;
    bar.finish_and_clear();
    if let Some(path) = &args.save {
        save(path, &drawn.positions)?;
    }
    Ok((drawn.positions, drawn.too_hard, stages))
}

/// Each player's name and scores by stage on `positions`.
fn score_players<G: Game>(
    initial: &G,
    config: &ResolvedConfig,
    args: &Args,
    specs: &[PlayerSpec],
    positions: &[SolvedPosition],
    stages: &[Stage],
) -> Result<Vec<(String, Vec<StageScore>)>> {
    let sims = args.sims.unwrap_or(config.play_simulations());
    super::common::use_match_threads(config);
    let device = parse_device(&config.device)?;
    let mut rows = Vec::new();
    for (index, (text, spec)) in args.players.iter().zip(specs).enumerate() {
        let mut agent = build_agent(
            spec,
            initial,
            &config.search,
            sims,
            device,
            config.seed.wrapping_add(index as u64),
        )?;
        let bar = job_bar(positions.len() as u64, text);
        let mut rng = SmallRng::seed_from_u64(config.seed ^ 0x5eed);
        let scores = score_agent(initial, agent.as_mut(), positions, stages, &mut rng, || {
            bar.inc(1)
        })?;
        bar.finish_and_clear();
        rows.push((text.clone(), scores));
    }
    Ok(rows)
}

/// A column of rates with their intervals: as wide as the header `optimal (95% interval)`,
/// one more than the widest rate, `100.0% [100.0, 100.0]`.
const RATE_WIDTH: usize = 22;

/// The tables of each player's share of outcome errors and of optimal moves, by stage and
/// in all.
fn print_scores(rows: &[(String, Vec<StageScore>)], stages: &[Stage]) {
    print_table(
        "outcome errors (95% interval)",
        rows,
        stages,
        StageScore::errors_text,
        |s| s.positions - s.optimal,
    );
    print_table(
        "optimal moves (95% interval)",
        rows,
        stages,
        StageScore::rate_text,
        |s| s.optimal,
    );
}

/// One table: `rate` of each player's score on each stage, and the share `counted` makes
/// of all positions.
fn print_table(
    title: &str,
    rows: &[(String, Vec<StageScore>)],
    stages: &[Stage],
    rate: impl Fn(&StageScore) -> String,
    counted: impl Fn(&StageScore) -> usize,
) {
    let width = rows.iter().map(|r| r.0.len()).max().unwrap_or(0).max(30) + 2;
    println!();
    print!("{title:<width$}");
    for stage in stages {
        print!("  {:>RATE_WIDTH$}", stage.name);
    }
    println!("  {:>16}", "all");
    for (name, scores) in rows {
        print!("{name:<width$}");
        for score in scores {
            print!("  {:>RATE_WIDTH$}", rate(score));
        }
        let count: usize = scores.iter().map(&counted).sum();
        let total: usize = scores.iter().map(|s| s.positions).sum();
        println!(
            "  {:>8.1}% of {total}",
            100.0 * count as f64 / total.max(1) as f64
        );
    }
}

/// Fails now, before any solving, if `path` cannot be written: otherwise the solved
/// positions would be lost at the end. An existing file is left as it was (opened to
/// append, not truncated) and a new one is not left behind.
fn check_writable(path: &Path) -> Result<()> {
    let existed = path.exists();
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    if !existed {
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}

/// Writes the whole file beside the old one and renames it over, so a crash or a full disk
/// in the middle keeps the positions saved before.
fn save(path: &Path, positions: &[SolvedPosition]) -> Result<()> {
    let mut bytes = Vec::new();
    for p in positions {
        writeln!(bytes, "{}", serde_json::to_string(p)?)?;
    }
    zerosum_store::durable::write_file(path, &bytes)
        .with_context(|| format!("cannot write {}", path.display()))
}

fn judge_file(path: &Path, args: &Args) -> Result<()> {
    let records = read_records(path)?;
    let Some((_, first)) = records.first() else {
        bail!("{}: no games in the file", path.display());
    };
    if let Some((line, other)) = records.iter().find(|(_, r)| r.game != first.game) {
        bail!(
            "{} line {line}: a game of {} among games of {}; judge one game at a time",
            path.display(),
            other.game,
            first.game
        );
    }
    let game = parse_game(&first.game).with_context(|| format!("{}", path.display()))?;
    with_game!(&game, g => judge(g, path, &records, args))
}

fn judge<G: Game>(
    initial: &G,
    path: &Path,
    records: &[(usize, GameRecord)],
    args: &Args,
) -> Result<()> {
    let positions: usize = records
        .iter()
        .map(|(_, r)| r.actions.len().saturating_sub(args.min_plies))
        .sum();
    let bar = job_bar(positions as u64, "solving positions");
    let stages = game_stages(initial, args.min_plies);
    // Every record is checked before any is solved, which can take hours.
    for (line, record) in records {
        let at = || format!("{} line {line}", path.display());
        record
            .check(initial)
            .map_err(anyhow::Error::msg)
            .with_context(at)?;
    }
    let settings = Judging {
        min_plies: args.min_plies,
        max_nodes: args.max_nodes,
        keep_erred: args.save.is_some(),
    };
    let JudgedGames {
        tallies,
        unjudged,
        mut erred,
    } = judge_games(initial, records, &stages, &settings, || bar.inc(1)).map_err(|(line, e)| {
        anyhow::Error::from(e).context(format!("{} line {line}", path.display()))
    })?;
    bar.finish_and_clear();
    if let Some(save_path) = &args.save {
        save_erred(save_path, &mut erred, initial)?;
    }
    println!(
        "{}: {} games of {}, moves judged from {} moves played{}",
        path.display(),
        records.len(),
        initial.name(),
        args.min_plies,
        match unjudged {
            0 => String::new(),
            n => format!(
                "; {n} positions over {} nodes left unjudged",
                args.max_nodes
            ),
        }
    );
    print_tallies(&tallies);
    print_losses(&tallies);
    Ok(())
}

/// Keeps the positions in `erred` once each and saves them to `path`; says how to score
/// players on them.
fn save_erred<G: Game>(path: &Path, erred: &mut Vec<SolvedPosition>, initial: &G) -> Result<()> {
    let mut seen = std::collections::HashSet::new();
    erred.retain(|p| seen.insert(p.moves.clone()));
    save(path, erred)?;
    println!(
        "{} positions where a move erred saved to {}: score players on them with \
         `zerosum accuracy PLAYER... --game {} --load {}`",
        erred.len(),
        path.display(),
        initial.name(),
        path.display()
    );
    Ok(())
}

/// The table of each player's games, judged moves, share of optimal ones and errors by
/// kind.
fn print_tallies(tallies: &[(String, Tally)]) {
    let width = tallies.iter().map(|t| t.0.len()).max().unwrap_or(0).max(6) + 2;
    println!(
        "\n{:<width$}{:>6}  {:>14}  {:>7}  {:>RATE_WIDTH$}  {:>9}  {:>9}  {:>10}",
        "player",
        "games",
        "W-D-L",
        "judged",
        "optimal (95% interval)",
        "win>draw",
        "win>loss",
        "draw>loss"
    );
    for (name, t) in tallies {
        let score = StageScore {
            stage: String::new(),
            optimal: t.judged - t.errors.iter().sum::<usize>(),
            positions: t.judged,
        };
        println!(
            "{name:<width$}{:>6}  {:>14}  {:>7}  {:>RATE_WIDTH$}  {:>9}  {:>9}  {:>10}",
            t.games,
            format!("+{} ={} -{}", t.wins, t.draws, t.games - t.wins - t.draws),
            t.judged,
            score.rate_text(),
            t.errors[0],
            t.errors[1],
            t.errors[2]
        );
    }
}

/// For each player that lost games, how many it lost after an error of its own.
fn print_losses(tallies: &[(String, Tally)]) {
    for (name, t) in tallies {
        let lost = t.games - t.wins - t.draws;
        if lost == 0 {
            continue;
        }
        let unclear = match t.lost_unclear {
            0 => String::new(),
            n => format!(", {n} with no error among its judged moves but some moves unjudged"),
        };
        println!(
            "\n{name} lost {lost}: {} after an error of its own, {} without one (lost before its \
             first judged move){unclear}",
            t.lost_after_error, t.lost_all_along
        );
    }
}
