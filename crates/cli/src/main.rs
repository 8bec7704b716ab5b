//! `zerosum`: train, evaluate and play AlphaZero-style agents for board games.

mod cmd;
mod human;
mod progress;
mod protocol;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

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
    /// Play against an agent in the terminal
    Play(cmd::play::Args),
    /// Play a match between two players and report the score and Elo difference
    Arena(cmd::arena::Args),
    /// Speak the Go Text Protocol on stdin/stdout, for any game
    Gtp(cmd::gtp::Args),
    /// Check a game's rules against the game contract with random games (developers)
    CheckGame(cmd::check_game::Args),
    /// Measure network and self-play speed (developers)
    Bench(cmd::bench::Args),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // clap prints help and version to stdout and exits 0; real errors exit 2.
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("ZEROSUM_LOG")
                .unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let result = match cli.command {
        Command::Train(args) => cmd::train::run(args),
        Command::Play(args) => cmd::play::run(args),
        Command::Arena(args) => cmd::arena::run(args),
        Command::Gtp(args) => cmd::gtp::run(args),
        Command::CheckGame(args) => cmd::check_game::run(args),
        Command::Bench(args) => cmd::bench::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", format!("{e:#}").replace('\n', " "));
            ExitCode::FAILURE
        }
    }
}
