//! `zerosum fuzz`: feeds every parser of outside input generated hostile input, on stable
//! Rust (developers; `scripts/fuzz.sh` runs every target for a given time).

use std::time::Duration;

use anyhow::{bail, Result};

use crate::fuzz::{run as run_target, targets, Limit};

#[derive(clap::Args)]
pub struct Args {
    /// Targets to run, all when none is named (--list shows them)
    pub targets: Vec<String>,
    /// Seconds per target (10 unless --cases is given)
    #[arg(long, conflicts_with = "cases")]
    pub seconds: Option<f64>,
    /// Inputs per target
    #[arg(long)]
    pub cases: Option<u64>,
    /// The seed the inputs are drawn from
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// List the targets and what each feeds
    #[arg(long)]
    pub list: bool,
}

pub fn run(args: Args) -> Result<()> {
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
            if matches!(report.failure, Some((crate::fuzz::Failure::Hang(_), _))) {
                break;
            }
        }
    }
    if !failed.is_empty() {
        bail!("fuzz targets failed: {}", failed.join(", "));
    }
    Ok(())
}
