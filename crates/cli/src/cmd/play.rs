//! `zerosum play`: a game against the agent in the terminal.

use anyhow::Result;
use rand::rngs::SmallRng;
use rand::SeedableRng;
use zerosum_config::ResolvedConfig;
use zerosum_games::{with_game, Action, Game, Outcome, Player};
use zerosum_nn::parse_device;
use zerosum_players::resign::Resignation;
use zerosum_players::{build_agent, Agent};

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
    let mut agent = agent_for(initial, config, args)?;
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
            let verdict = verdict(outcome, human);
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
                HumanInput::Undo => undo(&mut history, agent.as_mut(), resignation.as_mut(), human),
                HumanInput::Quit => {
                    println!("bye");
                    return Ok(());
                }
            }
        } else {
            let Some(action) = agent_move(
                agent.as_mut(),
                &position,
                &mut rng,
                resignation.as_mut(),
                human,
            )?
            else {
                return Ok(());
            };
            let mut next = position.clone();
            next.apply(action);
            history.push(next);
        }
    }
}

/// How the game ended, for the person playing `human`.
fn verdict(outcome: Outcome, human: Player) -> &'static str {
    match outcome {
        Outcome::Draw => "a draw",
        Outcome::Win(p) if p == human => "you win",
        Outcome::Win(_) => "the agent wins",
    }
}

/// The agent the person plays, announced.
fn agent_for<G: Game>(
    initial: &G,
    config: &ResolvedConfig,
    args: &Args,
) -> Result<Box<dyn Agent<G>>> {
    let chosen = args.agent.choose(&initial.name(), config)?;
    super::common::use_match_threads(config);
    let device = parse_device(&config.device)?;
    let agent = build_agent(
        &chosen.spec,
        initial,
        &config.search,
        chosen.sims,
        device,
        config.seed,
    )?;
    chosen.announce();
    Ok(agent)
}

/// Takes `history` back to the previous position where it was `human`'s turn, before the
/// one the person is at, and has the agent and `resignation` start over; says so when
/// there is none.
fn undo<G: Game>(
    history: &mut Vec<G>,
    agent: &mut dyn Agent<G>,
    resignation: Option<&mut Resignation>,
    human: Player,
) {
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
            if let Some(resignation) = resignation {
                resignation.reset();
            }
        }
        None => println!("nothing to undo"),
    }
}

/// The agent's move at `position`, printed and passed to its `observe`; `None` when it
/// resigns instead, which ends the game (printed too).
fn agent_move<G: Game>(
    agent: &mut dyn Agent<G>,
    position: &G,
    rng: &mut SmallRng,
    resignation: Option<&mut Resignation>,
    human: Player,
) -> Result<Option<Action>> {
    let choice = agent.choose(position, rng)?;
    if let Some(resignation) = resignation {
        if resignation.resigns(choice.value) {
            println!(
                "the agent resigns: value {:+.2} for itself, its third move in a row at {:+.2} or less",
                choice.value.unwrap_or_default(),
                resignation.below(),
            );
            let won = Outcome::Win(human).score_string();
            println!("game over: {won} (the agent resigns; you win)");
            return Ok(None);
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
    agent.observe(position, choice.action);
    Ok(Some(choice.action))
}
