//! `zerosum arena A B`: a match between two players.

use anyhow::{Context, Result};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use zerosum_config::ResolvedConfig;
use zerosum_games::{with_game, Game, RecordTags};
use zerosum_nn::parse_device;
use zerosum_players::{build_agent, play_match_with_openings, Agent, PlayerSpec};

use super::common::GameArgs;
use crate::human::HumanAgent;

#[derive(clap::Args)]
pub struct Args {
    /// Player A: checkpoint:PATH[,sims=N][,search.KEY=VALUE...][,precision=P],
    /// shipped[:sims=N][,search.KEY=VALUE...][,precision=P] (the game's shipped model; a
    /// [search] setting for this player alone, its network's fp32/bf16/fp16), mcts:N, uct:N,
    /// mc:N, random, perfect, human, gtp:COMMAND or
    /// uci:COMMAND[;OPTION=VALUE...][;go=LIMITS] (engines spoken to over GTP or UCI)
    pub player_a: String,
    /// Player B, in the same form
    pub player_b: String,
    #[command(flatten)]
    pub game: GameArgs,
    /// Games to play; A moves first in even-numbered games
    #[arg(long, value_parser = super::common::positive, default_value_t = 100)]
    pub games: usize,
    /// Simulations per move for checkpoint players that give none (default: the game
    /// config's play.num_simulations)
    #[arg(long, value_parser = super::common::positive)]
    pub sims: Option<usize>,
    /// Write every game as a JSON line to this file, and in the game's standard format
    /// (SGF for Go, PGN for chess) next to it: FILE with the extension .sgf or .pgn
    #[arg(long)]
    pub save: Option<std::path::PathBuf>,
    /// Random opening moves of each pair of games, played once with each colour (gives
    /// deterministic players varied games)
    #[arg(long, default_value_t = 0)]
    pub opening_plies: usize,
}

pub fn run(args: Args) -> Result<()> {
    let a: PlayerSpec = args.player_a.parse()?;
    let b: PlayerSpec = args.player_b.parse()?;
    let checkpoint = [&a, &b].into_iter().find_map(|s| match s {
        PlayerSpec::Checkpoint { path, .. } => Some(path.clone()),
        _ => None,
    });
    let (game, config) = super::common::resolve_with_checkpoint(&args.game, checkpoint.as_deref())?;
    with_game!(&game, g => arena(g, &config, &args, &a, &b))
}

fn agent<G: Game>(
    spec: &PlayerSpec,
    game: &G,
    config: &ResolvedConfig,
    sims: usize,
    seed: u64,
) -> Result<Box<dyn Agent<G>>> {
    if *spec == PlayerSpec::Human {
        return Ok(Box::new(HumanAgent));
    }
    Ok(build_agent(
        spec,
        game,
        &config.search,
        sims,
        parse_device(&config.device)?,
        seed,
    )?)
}

fn arena<G: Game>(
    initial: &G,
    config: &ResolvedConfig,
    args: &Args,
    a: &PlayerSpec,
    b: &PlayerSpec,
) -> Result<()> {
    let sims = args.sims.unwrap_or(config.play_simulations());
    super::common::use_match_threads(config);
    let mut player_a = agent(a, initial, config, sims, config.seed.wrapping_mul(31) ^ 1)?;
    let mut player_b = agent(b, initial, config, sims, config.seed.wrapping_mul(31) ^ 2)?;
    let mut rng = SmallRng::seed_from_u64(config.seed);
    let mut save = match &args.save {
        Some(path) => Some(std::io::BufWriter::new(
            std::fs::File::create(path)
                .with_context(|| format!("cannot write {}", path.display()))?,
        )),
        None => None,
    };
    // The same games in the standard format, where the game has one.
    let standard_format = super::export::standard_extension(initial);
    let mut standard = match (&args.save, standard_format) {
        (Some(path), Some(extension)) => {
            let path = super::export::standard_path(path, extension);
            let file = std::fs::File::create(&path)
                .with_context(|| format!("cannot create {}", path.display()))?;
            Some(std::io::BufWriter::new(file))
        }
        _ => None,
    };
    let event = format!("zerosum arena {} vs {}", args.player_a, args.player_b);
    let date = super::export::today();
    let mut round = 0;
    let bar = indicatif::ProgressBar::new(args.games as u64);
    let mut write_error = None;
    let report = play_match_with_openings(
        initial,
        player_a.as_mut(),
        player_b.as_mut(),
        args.games,
        args.opening_plies,
        &mut rng,
        |record, so_far| {
            bar.set_message(format!(
                "+{} ={} -{}",
                so_far.wins, so_far.draws, so_far.losses
            ));
            bar.inc(1);
            if let Some(out) = &mut save {
                use std::io::Write;
                // Flushed after each game: a match stopped part-way keeps every game it finished.
                if let Err(e) = writeln!(
                    out,
                    "{}",
                    serde_json::to_string(record).expect("records serialise")
                )
                .and_then(|()| out.flush())
                {
                    write_error.get_or_insert(e);
                }
            }
            round += 1;
            if let Some(out) = &mut standard {
                use std::io::Write;
                let tags = RecordTags {
                    event: event.clone(),
                    players: record.players.clone(),
                    result: None,
                    date: Some(date.clone()),
                    round: Some(round),
                };
                let (_, text) = initial
                    .standard_record(&record.actions, &tags)
                    .expect("this game has a standard format: it gave one above");
                let separator = if round > 1 { "\n" } else { "" };
                if let Err(e) = write!(out, "{separator}{text}").and_then(|()| out.flush()) {
                    write_error.get_or_insert(e);
                }
            }
        },
    )?;
    bar.finish_and_clear();
    let cannot_write = || {
        let path = args.save.as_deref().unwrap_or(std::path::Path::new(""));
        format!(
            "cannot write the games to {} (or beside it)",
            path.display()
        )
    };
    if let Some(e) = write_error {
        return Err(anyhow::Error::from(e).context(cannot_write()));
    }
    for out in [save.as_mut(), standard.as_mut()].into_iter().flatten() {
        std::io::Write::flush(out).with_context(cannot_write)?;
    }
    println!("{report}");
    Ok(())
}
