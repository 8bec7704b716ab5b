//! `zerosum`: train, evaluate and play AlphaZero-style agents for board games.

mod cmd;
mod human;
mod progress;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use zerosum_games::error::one_line;
use zerosum_protocols::output_failed;

/// Learn two-player board games from their rules alone, the AlphaZero way.
#[derive(Parser)]
#[command(name = "zerosum", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Train an agent by self-play (resumable with --resume)
    Train(cmd::train::Args),
    /// Play self-play games for a run on this machine (asynchronous runs; any number of actors)
    Actor(cmd::actor::Args),
    /// Evaluate a run's checkpoints against its baselines (--follow: as the learner publishes)
    Evaluate(cmd::evaluate::Args),
    /// Play against an agent in the terminal
    Play(cmd::play::Args),
    /// List the trained models that ship with zerosum (add one with `models add`)
    Models(cmd::models::Args),
    /// Play a match between two players and report the score and Elo difference (and in Go
    /// the mean margin)
    Arena(cmd::arena::Args),
    /// Speak the Go Text Protocol on stdin/stdout, for any game
    Gtp(cmd::gtp::Args),
    /// Speak the Universal Chess Interface on stdin/stdout, for chess GUIs and tournaments
    Uci(cmd::uci::Args),
    /// Play against an agent in a web browser, on a page served on localhost
    Serve(cmd::serve::Args),
    /// Write plots and an HTML page of a run's training metrics (RUN/report/)
    Report(cmd::report::Args),
    /// Score players' moves in exactly solved positions (connect four, tic-tac-toe)
    Accuracy(cmd::accuracy::Args),
    /// Rate a run's checkpoints on one Elo scale against fixed anchors (random = 0)
    Ladder(cmd::ladder::Args),
    /// Step through a recorded game (JSON Lines) in the terminal
    Replay(cmd::replay::Args),
    /// Convert a JSON Lines record file to SGF (Go) or PGN (chess)
    Export(cmd::export::Args),
    /// Check a game's rules against the game contract with random games (developers)
    CheckGame(cmd::check_game::Args),
    /// Measure network and self-play speed (developers)
    Bench(cmd::bench::Args),
    /// Train several configs for the same time and seed, then tabulate their strength (developers)
    Compare(cmd::compare::Args),
    /// Train a fresh network, of any shape, through a run's games oldest first (AlphaPush's curriculum) and measure it
    Distill(cmd::distill::Args),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(&e),
    };
    end_quietly_when_output_fails();
    init_logging();
    match run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        // The reader of the output has gone: nobody is left to tell.
        Err(e) if e.chain().any(is_broken_pipe) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {}", one_line(&*e));
            ExitCode::FAILURE
        }
    }
}

/// Prints help or the version (exit 0), or a usage error in one line (exit 2).
fn usage_error(e: &clap::Error) -> ExitCode {
    if !e.use_stderr() {
        let _ = e.print();
        return ExitCode::SUCCESS;
    }
    // The first paragraph, joined: clap lists missing arguments on lines of their own.
    let text = e.to_string();
    let first: Vec<&str> = text
        .lines()
        .map(str::trim)
        .skip_while(|l| l.is_empty())
        .take_while(|l| !l.is_empty())
        .collect();
    let first = match first.join(" ") {
        joined if joined.is_empty() => "error: bad arguments".to_string(),
        joined => joined,
    };
    eprintln!("{first} (see zerosum --help)");
    ExitCode::from(2)
}

/// Logs to standard error, at the level `ZEROSUM_LOG` sets (warnings by default).
fn init_logging() {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("ZEROSUM_LOG")
                .unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
}

/// Runs the subcommand.
fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Train(args) => cmd::train::run(args),
        Command::Actor(args) => cmd::actor::run(args),
        Command::Evaluate(args) => cmd::evaluate::run(args),
        Command::Play(args) => cmd::play::run(args),
        Command::Models(args) => cmd::models::run(args),
        Command::Arena(args) => cmd::arena::run(args),
        Command::Gtp(args) => cmd::gtp::run(args),
        Command::Uci(args) => cmd::uci::run(args),
        Command::Serve(args) => cmd::serve::run(args),
        Command::Report(args) => cmd::report::run(args),
        Command::Ladder(args) => cmd::ladder::run(args),
        Command::Replay(args) => cmd::replay::run(args),
        Command::Export(args) => cmd::export::run(args),
        Command::CheckGame(args) => cmd::check_game::run(args),
        Command::Bench(args) => cmd::bench::run(args),
        Command::Compare(args) => cmd::compare::run(args),
        Command::Distill(args) => cmd::distill::run(args),
        Command::Accuracy(args) => cmd::accuracy::run(args),
    }
}

/// `println!` panics when standard output cannot be written: ends the process instead, in
/// silence when the reader has gone (`zerosum replay ... | head`, as Unix tools end on
/// SIGPIPE), else with one line. Work already saved stays saved; a training run resumes.
fn end_quietly_when_output_fails() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or_default();
        match message.strip_prefix("failed printing to stdout: ") {
            Some(cause) => output_failed(cause),
            None => default(info),
        }
    }));
}

fn is_broken_pipe(error: &(dyn std::error::Error + 'static)) -> bool {
    error
        .downcast_ref::<std::io::Error>()
        .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
}
