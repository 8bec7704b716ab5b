//! `zerosum report RUN`: plots and an HTML page from a run's metrics.

use std::path::PathBuf;

use anyhow::Result;
use zerosum_train::{LocalStore, RunHistory};

#[derive(clap::Args)]
pub struct Args {
    /// The run directory (runs/NAME); it may still be training
    pub run: PathBuf,
    /// Where to write the plots and index.html (default RUN/report)
    #[arg(long)]
    pub out: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<()> {
    let store = LocalStore::open_existing(&args.run)?;
    let history = RunHistory::read(&store)?;
    for line in &history.skipped {
        eprintln!(
            "warning: {} line {line} is not a JSON object; left out",
            args.run.join("metrics.jsonl").display()
        );
    }
    let out = args.out.unwrap_or_else(|| args.run.join("report"));
    let name = args
        .run
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| args.run.display().to_string());
    let files = zerosum_report::write_report(&history, &format!("zerosum report: {name}"), &out)?;
    if let Some(line) = history.ladder_headline() {
        println!("{line}");
    }
    println!(
        "wrote {} plots (PNG and SVG) and {}",
        (files.len() - 1) / 2,
        out.join("index.html").display()
    );
    Ok(())
}
