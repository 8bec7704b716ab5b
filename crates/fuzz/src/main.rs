//! `zerosum-fuzz`: feeds every parser of outside input generated hostile input, on stable
//! Rust (developers; `scripts/fuzz.sh` runs every target for a given time). A binary of its
//! own, so that the `zerosum` users install carries no fuzzing code.

mod harness;
mod targets;

use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Result};
use clap::Parser;

use harness::{run as run_target, Failure, Limit};

/// Feed every parser of outside input generated hostile input.
#[derive(Parser)]
#[command(name = "zerosum-fuzz", version, about, long_about = None)]
struct Args {
    /// Targets to run, all when none is named (--list shows them)
    targets: Vec<String>,
    /// Seconds per target (10 unless --cases is given)
    #[arg(long, conflicts_with = "cases")]
    seconds: Option<f64>,
    /// Inputs per target
    #[arg(long)]
    cases: Option<u64>,
    /// The seed the inputs are drawn from
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// List the targets and what each feeds
    #[arg(long)]
    list: bool,
}

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", zerosum_games::error::one_line(&*e));
            ExitCode::FAILURE
        }
    }
}

fn run(args: Args) -> Result<()> {
    let all = targets::all();
    if args.list {
        for target in &all {
            println!("{:<12} {}", target.name, target.about);
        }
        return Ok(());
    }
    for name in &args.targets {
        if !all.iter().any(|t| t.name == name) {
            let known: Vec<&str> = all.iter().map(|t| t.name).collect();
            bail!("unknown fuzz target '{name}' (known: {})", known.join(", "));
        }
    }
    let limit = match (args.seconds, args.cases) {
        (_, Some(cases)) => Limit::Cases(cases),
        (Some(seconds), None) if seconds.is_finite() && seconds > 0.0 => {
            Limit::Time(Duration::from_secs_f64(seconds))
        }
        (Some(seconds), None) => bail!("--seconds must be a positive number, got {seconds}"),
        (None, None) => Limit::Time(Duration::from_secs(10)),
    };
    let mut failed = Vec::new();
    for target in all
        .iter()
        .filter(|t| args.targets.is_empty() || args.targets.iter().any(|n| n == t.name))
    {
        let report = run_target(target, limit, args.seed);
        println!("{report}");
        if report.failure.is_some() {
            failed.push(target.name);
            // A hung input leaves its thread behind: stop here rather than share the CPU.
            if matches!(report.failure, Some((Failure::Hang(_), _))) {
                break;
            }
        }
    }
    if !failed.is_empty() {
        bail!("fuzz targets failed: {}", failed.join(", "));
    }
    Ok(())
}
