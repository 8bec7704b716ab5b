//! `zerosum doctor RUN`: what is wrong with a run that does not learn, and what to change.

use anyhow::Result;
use zerosum_report::doctor::{diagnose, Evidence};
use zerosum_store::RunStore;

#[derive(clap::Args)]
pub struct Args {
    /// The run (runs/NAME, or an s3:// gs:// az:// URL); it may still be training
    pub run: String,
    /// Print the findings as a JSON array of {name, evidence, advice}
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> Result<()> {
    let store = RunStore::open(&args.run)?;
    let findings = diagnose(&Evidence::read(&store)?);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&findings)?);
    } else {
        for finding in &findings {
            println!("{}", finding.line());
        }
    }
    Ok(())
}
