//! `zerosum export-onnx CHECKPOINT OUT.onnx`: a trained network as an ONNX file, for apps that
//! run it with onnxruntime or any other ONNX runtime, without zerosum (docs/onnx.md).

use std::path::PathBuf;

use anyhow::{bail, Result};

#[derive(clap::Args)]
pub struct Args {
    /// The checkpoint: a path (without extension), a run (its latest), a shipped model's
    /// NAME, or a URL of any
    pub checkpoint: String,
    /// The ONNX file to write (.onnx)
    pub out: PathBuf,
}

pub fn run(args: Args) -> Result<()> {
    if args.out.extension().is_none_or(|e| e != "onnx") {
        bail!(
            "{}: name the ONNX file with the extension .onnx",
            args.out.display()
        );
    }
    let location = zerosum_players::shipped::location_of(&args.checkpoint)?;
    let model = zerosum_store::checkpoints::load_as_written(&location)?;
    model.write_onnx(&args.out)?;
    let meta = model.meta();
    let [planes, height, width] = meta.obs_shape;
    println!(
        "wrote {} ({}, generation {}): observation [batch, {planes}, {height}, {width}] -> \
         policy [batch, {}] (logits), value [batch] (for the mover, -1 to 1)",
        args.out.display(),
        meta.game,
        meta.generation,
        meta.num_actions
    );
    Ok(())
}
