//! `zerosum check-game G`: the game contract checked over random games.

use anyhow::{anyhow, Result};
use zerosum_games::registry::parse_game;
use zerosum_games::testing::check_game;
use zerosum_games::with_game;

#[derive(clap::Args)]
pub struct Args {
    /// The game, with parameters: connect4:rows=5,cols=6
    pub game: String,
    /// Random games to play
    #[arg(long, default_value_t = 2000)]
    pub games: usize,
    /// Seed of the random games
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

pub fn run(args: Args) -> Result<()> {
    let game = parse_game(&args.game)?;
    let report = with_game!(&game, g => check_game(g, args.seed, args.games))
        .map_err(|e| anyhow!("contract broken: {e}"))?;
    println!("{}: ok — {report}", game.name());
    Ok(())
}
