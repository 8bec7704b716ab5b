//! `zerosum play`: a game against the agent in the terminal.

use anyhow::Result;
use rand::rngs::SmallRng;
use rand::SeedableRng;
use zerosum_config::ResolvedConfig;
use zerosum_games::{with_game, Game, Player};
use zerosum_nn::parse_device;
use zerosum_players::build_agent;

use super::common::{resolve_with_checkpoint, AgentArgs, GameArgs, ResignArgs};
use crate::human::{read_move, HumanInput};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub game: GameArgs,
    #[command(flatten)]
    pub agent: AgentArgs,
    #[command(flatten)]
    pub resign: ResignArgs,
    /// Who moves first
    #[arg(long, value_enum, default_value = "human")]
    pub first: First,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum First {
    Human,
    Agent,
}

pub fn run(args: Args) -> Result<()> {
    let (game, config) = resolve_with_checkpoint(&args.game, args.agent.named_checkpoint())?;
    with_game!(&game, g => play(g, &config, &args))
}

fn play<G: Game>(initial: &G, config: &ResolvedConfig, args: &Args) -> Result<()> {
    let chosen = args.agent.choose(&initial.name(), config)?;
    super::common::use_match_threads(config);
    let device = parse_device(&config.device)?;
    let mut agent = build_agent(
        &chosen.spec,
        initial,
        &config.search,
        chosen.sims,
        device,
        config.seed,
    )?;
    chosen.announce();
    let mut rng = SmallRng::seed_from_u64(config.seed);
    let human = if args.first == First::Human {
        Player::FIRST
    } else {
        Player::SECOND
    };
    println!(
        "{} — you are the {} player; type a move, help, undo or quit",
        initial.name(),
        human
    );
    let mut history = vec![initial.clone()];
    let mut resignation = args.resign.resignation();
    loop {
        let position = history
            .last()
            .expect("history starts with the initial position")
            .clone();
        if let Some(outcome) = position.outcome() {
            println!("{position}");
            let verdict = match outcome {
                zerosum_games::Outcome::Draw => "a draw".to_string(),
                zerosum_games::Outcome::Win(p) if p == human => "you win".to_string(),
                zerosum_games::Outcome::Win(_) => "the agent wins".to_string(),
            };
            println!("game over: {} ({verdict})", outcome.score_string());
            return Ok(());
        }
        if position.to_move() == human {
            println!("{position}");
            match read_move(&position) {
                HumanInput::Move(action) => {
                    let mut next = position.clone();
                    next.apply(action);
                    history.push(next);
                }
                HumanInput::Undo => {
                    // Back to the previous position where it was the human's turn.
                    let keep = history
                        .iter()
                        .rposition(|p| !p.is_terminal() && p.to_move() == human);
                    let before = history[..keep.unwrap_or(0)]
                        .iter()
                        .rposition(|p| p.to_move() == human);
                    match before {
                        Some(index) => {
                            history.truncate(index + 1);
                            agent.reset();
                            if let Some(resignation) = &mut resignation {
                                resignation.reset();
                            }
                        }
                        None => println!("nothing to undo"),
                    }
                }
                HumanInput::Quit => {
                    println!("bye");
                    return Ok(());
                }
            }
        } else {
            let choice = agent.choose(&position, &mut rng)?;
            if let Some(resignation) = &mut resignation {
                if resignation.resigns(choice.value) {
                    println!(
                        "the agent resigns: value {:+.2} for itself, its third move in a row at {:+.2} or less",
                        choice.value.unwrap_or_default(),
                        resignation.below(),
                    );
                    let won = zerosum_games::Outcome::Win(human).score_string();
                    println!("game over: {won} (the agent resigns; you win)");
                    return Ok(());
                }
            }
            let value = choice
                .value
                .map(|v| format!(", value {v:+.2} for itself"))
                .unwrap_or_default();
            println!(
                "agent plays {}{value}",
                position.format_action(choice.action)
            );
            agent.observe(&position, choice.action);
            let mut next = position.clone();
            next.apply(choice.action);
            history.push(next);
        }
    }
}
