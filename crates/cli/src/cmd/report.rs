//! `zerosum report RUN`: plots and an HTML page from a run's metrics.

use std::path::PathBuf;

use anyhow::Result;
use zerosum_report::doctor::{diagnose, Evidence};
use zerosum_store::{names, RunStore};
use zerosum_train::RunHistory;

#[derive(clap::Args)]
pub struct Args {
    /// The run (runs/NAME, or an s3:// gs:// az:// URL); it may still be training
    pub run: String,
    /// Where to write the plots and index.html (default RUN/report, or report-NAME in the
    /// current directory for a run in object storage)
    #[arg(long)]
    pub out: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<()> {
    let store = RunStore::open(&args.run)?;
    anyhow::ensure!(
        store.get(names::CONFIG)?.is_some(),
        "{}: not a run (no {})",
        args.run,
        names::CONFIG
    );
    let history = RunHistory::read(&store)?;
    for line in &history.skipped {
        eprintln!(
            "warning: {}: event line {line} is not a JSON object; left out",
            args.run
        );
    }
    anyhow::ensure!(
        !history.is_empty(),
        "{}: nothing is recorded yet, so there is nothing to plot; run `zerosum report` again \
         once the first generation has played",
        args.run
    );
    // The plots need the events alone: a run the doctor cannot read still gets its page.
    let findings = match Evidence::of(&store, history.clone()) {
        Ok(evidence) => diagnose(&evidence),
        Err(e) => {
            eprintln!("warning: the doctor's findings are left out: {e}");
            Vec::new()
        }
    };
    let local = !zerosum_store::store::is_url(&args.run);
    let name = std::path::Path::new(args.run.trim_end_matches('/'))
        .file_name()
        .map_or_else(|| args.run.clone(), |n| n.to_string_lossy().into_owned());
    let out = args.out.unwrap_or_else(|| {
        if local {
            PathBuf::from(&args.run).join("report")
        } else {
            PathBuf::from(format!("report-{name}"))
        }
    });
    let title = format!("zerosum report: {name}");
    let files = zerosum_report::write_report(&history, &findings, &title, &out)?;
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
