//! `zerosum arena A B`: a match between two players.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::{Context, Result};
use rand::rngs::SmallRng;
use rand::SeedableRng;
use zerosum_config::ResolvedConfig;
use zerosum_games::{with_game, Game, RecordTags};
use zerosum_nn::parse_device;
use zerosum_players::{build_agent, play_match_with_openings, Agent, PlayerSpec};
use zerosum_store::GameRecord;

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
    let mut saver = Saver::create(initial, args)?;
    let bar = indicatif::ProgressBar::new(args.games as u64);
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
            saver.save(initial, record);
        },
    )?;
    bar.finish_and_clear();
    saver.finish(args.save.as_deref())?;
    println!("{report}");
    Ok(())
}

/// Where `--save` puts the match's games: JSON lines, and the same games in the game's
/// standard format beside them where it has one.
struct Saver {
    json: Option<BufWriter<File>>,
    standard: Option<BufWriter<File>>,
    event: String,
    date: String,
    /// Games saved so far.
    round: usize,
    /// The first write that failed; the match goes on, and [`Saver::finish`] reports it.
    error: Option<std::io::Error>,
}

impl Saver {
    /// Creates the files `args` asks for (none without `--save`).
    fn create<G: Game>(initial: &G, args: &Args) -> Result<Saver> {
        let json = match &args.save {
            Some(path) => {
                Some(BufWriter::new(File::create(path).with_context(|| {
                    format!("cannot write {}", path.display())
                })?))
            }
            None => None,
        };
        let standard_format = super::export::standard_extension(initial);
        let standard = match (&args.save, standard_format) {
            (Some(path), Some(extension)) => {
                let path = super::export::standard_path(path, extension);
                let file = File::create(&path)
                    .with_context(|| format!("cannot create {}", path.display()))?;
                Some(BufWriter::new(file))
            }
            _ => None,
        };
        Ok(Saver {
            json,
            standard,
            event: format!("zerosum arena {} vs {}", args.player_a, args.player_b),
            date: super::export::today(),
            round: 0,
            error: None,
        })
    }

    /// Writes one finished game to each file, flushed, so that a match stopped part-way
    /// keeps every game it finished; keeps the first error.
    fn save<G: Game>(&mut self, initial: &G, record: &GameRecord) {
        if let Some(out) = &mut self.json {
            if let Err(e) = writeln!(
                out,
                "{}",
                serde_json::to_string(record).expect("records serialise")
            )
            .and_then(|()| out.flush())
            {
                self.error.get_or_insert(e);
            }
        }
        self.round += 1;
        if let Some(out) = &mut self.standard {
            let tags = RecordTags {
                event: self.event.clone(),
                players: record.players.clone(),
                result: None,
                date: Some(self.date.clone()),
                round: Some(self.round),
            };
            let (_, text) = initial
                .standard_record(&record.actions, &tags)
                .expect("this game has a standard format: it gave one above");
            let separator = if self.round > 1 { "\n" } else { "" };
            if let Err(e) = write!(out, "{separator}{text}").and_then(|()| out.flush()) {
                self.error.get_or_insert(e);
            }
        }
    }

    /// The first write error, if any, else the files flushed; errors name `save`.
    fn finish(mut self, save: Option<&Path>) -> Result<()> {
        let cannot_write = || {
            let path = save.unwrap_or(Path::new(""));
            format!(
                "cannot write the games to {} (or beside it)",
                path.display()
            )
        };
        if let Some(e) = self.error {
            return Err(anyhow::Error::from(e).context(cannot_write()));
        }
        for out in [self.json.as_mut(), self.standard.as_mut()]
            .into_iter()
            .flatten()
        {
            out.flush().with_context(cannot_write)?;
        }
        Ok(())
    }
}
