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
    /// Say what is wrong with a run that does not learn, and which setting to change
    Doctor(cmd::doctor::Args),
    /// Score players' moves in exactly solved positions (connect four, tic-tac-toe)
    Accuracy(cmd::accuracy::Args),
    /// Rate a run's checkpoints on one Elo scale against fixed anchors (random = 0)
    Ladder(cmd::ladder::Args),
    /// Step through a recorded game (JSON Lines) in the terminal
    Replay(cmd::replay::Args),
    /// Convert a JSON Lines record file to SGF (Go) or PGN (chess)
    Export(cmd::export::Args),
    /// Write a trained network as an ONNX file, to run without zerosum (onnxruntime)
    ExportOnnx(cmd::export_onnx::Args),
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
    let command = command_named(std::env::args_os().skip(1));
    eprintln!("{}", usage_line(&e.to_string(), &command));
    ExitCode::from(2)
}

/// The (sub)command whose arguments `args` are: `zerosum train`, `zerosum models add`, or
/// `zerosum` where they name none.
fn command_named(args: impl Iterator<Item = std::ffi::OsString>) -> String {
    let mut command = <Cli as clap::CommandFactory>::command();
    let mut path = vec!["zerosum".to_string()];
    for arg in args {
        let Some(arg) = arg.to_str() else { continue };
        if arg == "--" {
            break;
        }
        let Some(sub) = command.find_subcommand(arg).cloned() else {
            continue;
        };
        path.push(sub.get_name().to_string());
        command = sub;
    }
    path.join(" ")
}

/// clap's usage error on one line: its first paragraph joined (clap lists missing
/// arguments on lines of their own), its tips ("a similar subcommand exists: 'models'"),
/// and the help of `command`, whose arguments were wrong: `error: unexpected argument
/// '--gmae' found; tip: a similar argument exists: '--game' (see zerosum train --help)`.
fn usage_line(text: &str, command: &str) -> String {
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let first: Vec<&str> = lines
        .iter()
        .copied()
        .skip_while(|l| l.is_empty())
        .take_while(|l| !l.is_empty())
        .collect();
    let mut line = match first.join(" ") {
        joined if joined.is_empty() => "error: bad arguments".to_string(),
        joined => joined,
    };
    for tip in lines.iter().filter(|l| l.starts_with("tip:")) {
        line.push_str("; ");
        line.push_str(tip);
    }
    line.push_str(&format!(" (see {command} --help)"));
    line
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
        Command::Doctor(args) => cmd::doctor::run(args),
        Command::Ladder(args) => cmd::ladder::run(args),
        Command::Replay(args) => cmd::replay::run(args),
        Command::Export(args) => cmd::export::run(args),
        Command::ExportOnnx(args) => cmd::export_onnx::run(args),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The one line a usage error prints for `args` (after `zerosum`).
    fn usage(args: &[&str]) -> String {
        match Cli::try_parse_from(std::iter::once("zerosum").chain(args.iter().copied())) {
            Ok(_) => panic!("{args:?} parsed"),
            Err(e) => usage_line(&e.to_string(), &command_named(args.iter().map(Into::into))),
        }
    }

    #[test]
    fn usage_errors_keep_clap_tips_and_name_the_subcommand_help() {
        assert_eq!(
            usage(&["modles"]),
            "error: unrecognized subcommand 'modles'; tip: a similar subcommand exists: \
             'models' (see zerosum --help)"
        );
        assert_eq!(
            usage(&["train", "--gmae", "x"]),
            "error: unexpected argument '--gmae' found; tip: a similar argument exists: \
             '--game' (see zerosum train --help)"
        );
        let nested = usage(&["models", "add", "x"]);
        assert!(
            nested.ends_with("(see zerosum models add --help)"),
            "{nested}"
        );
        assert!(!nested.contains('\n'), "{nested}");
        let value = usage(&["actor", "--run", "r", "--batches"]);
        assert!(value.ends_with("(see zerosum actor --help)"), "{value}");
    }
}
