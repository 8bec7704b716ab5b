//! Reports of a zerosum run: plots as PNG and SVG, and one self-contained HTML page.
//!
//! - [`charts::charts`] turns a [`RunHistory`] (the run's events, read by the train
//!   crate) into plain [`Chart`] values: losses and policy entropy per optimizer step,
//!   evaluation scores and Elo per generation (from the ladder when one was run),
//!   self-play speed, game lengths and the replay window.
//! - [`render`] draws a chart with plotters, as SVG text or PNG bytes, with a bundled font
//!   (DejaVu Sans, `fonts/`), so nothing depends on the machine's fonts.
//! - [`html::page`] lays the plots out in one HTML page with the SVGs inlined.
//! - [`write_report`] does all three into a folder, the [`doctor`]'s findings at the top.
//! - [`doctor`] names what is wrong with a run that does not learn.
//!
//! ```
//! use zerosum_train::history::RunHistory;
//! let history = RunHistory::parse(
//!     "{\"event\":\"self_play\",\"generation\":1,\"step\":0,\"positions_per_second\":900.0}\n",
//! );
//! let charts = zerosum_report::charts::charts(&history);
//! let speed = charts.iter().find(|c| c.name == "speed").unwrap();
//! assert_eq!(speed.series[0].points, vec![(1.0, 900.0)]);
//! let svg = zerosum_report::render::svg(speed).unwrap();
//! assert!(svg.starts_with("<svg"));
//! ```
#![warn(missing_docs)]

pub mod charts;
pub mod doctor;
pub mod error;
pub mod html;
pub mod render;

use std::fs;
use std::path::{Path, PathBuf};

pub use charts::Chart;
pub use error::ReportError;
use zerosum_train::history::RunHistory;

/// Writes every chart as `<name>.png` and `<name>.svg`, and `index.html` (the doctor's
/// `findings` at its top), into `out` (created if missing); returns the files written. Each
/// file is written to a temporary name and renamed, so a browser reloading the page never
/// sees half of it.
pub fn write_report(
    history: &RunHistory,
    findings: &[doctor::Finding],
    title: &str,
    out: &Path,
) -> Result<Vec<PathBuf>, ReportError> {
    fs::create_dir_all(out).map_err(|source| ReportError::Io {
        path: out.to_path_buf(),
        source,
    })?;
    let charts = charts::charts(history);
    let mut written = Vec::new();
    let mut svgs = Vec::with_capacity(charts.len());
    for chart in &charts {
        let draw_error = |reason: String| ReportError::Draw {
            chart: chart.name.to_string(),
            reason,
        };
        let svg = render::svg(chart).map_err(draw_error)?;
        let png = render::png(chart).map_err(draw_error)?;
        written.push(write_file(
            out,
            &format!("{}.svg", chart.name),
            svg.as_bytes(),
        )?);
        written.push(write_file(out, &format!("{}.png", chart.name), &png)?);
        svgs.push(svg);
    }
    let page = html::page(title, history, findings, &charts, &svgs);
    written.push(write_file(out, "index.html", page.as_bytes())?);
    Ok(written)
}

fn write_file(dir: &Path, name: &str, contents: &[u8]) -> Result<PathBuf, ReportError> {
    let path = dir.join(name);
    let tmp = dir.join(format!(".{name}.tmp"));
    fs::write(&tmp, contents)
        .and_then(|()| fs::rename(&tmp, &path))
        .map_err(|source| ReportError::Io {
            path: path.clone(),
            source,
        })?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    const METRICS: &str = concat!(
        "{\"event\":\"self_play\",\"generation\":1,\"step\":0,\"games\":16,\"mean_length\":7.5,\"min_length\":5,\"max_length\":9,\"positions_per_second\":3000.0}\n",
        "{\"event\":\"learn\",\"generation\":1,\"step\":40,\"total_steps\":40,\"window_positions\":120,\"final_losses\":{\"policy\":1.5,\"value\":0.4,\"total\":1.91,\"policy_entropy\":1.9,\"target_entropy\":1.2}}\n",
        "{\"event\":\"evaluate\",\"generation\":1,\"step\":40,\"matches\":[{\"player\":\"gen-0001\",\"opponent\":\"random\",\"wins\":3,\"draws\":1,\"losses\":0,\"wins_as_first\":2,\"wins_as_second\":1},{\"player\":\"gen-0001\",\"opponent\":\"gen-0000\",\"wins\":2,\"draws\":0,\"losses\":2,\"wins_as_first\":1,\"wins_as_second\":1}]}\n",
        "{\"event\":\"self_play\",\"generation\":2,\"step\":40,\"games\":16,\"mean_length\":8.5,\"min_length\":6,\"max_length\":9,\"positions_per_second\":3500.0}\n",
        "{\"event\":\"learn\",\"generation\":2,\"step\":80,\"total_steps\":80,\"window_positions\":250,\"final_losses\":{\"policy\":1.2,\"value\":0.3,\"total\":1.52,\"policy_entropy\":1.6,\"target_entropy\":1.1}}\n",
        "{\"event\":\"generation\",\"generation\":2,\"step\":80,\"train_seconds\":12.5}\n",
        "{\"event\":\"ladder\",\"generation\":null,\"step\":null,\"ladder\":1,\"player\":\"random\",\"elo\":0.0,\"low\":0.0,\"high\":0.0,\"games\":8}\n",
        "{\"event\":\"ladder\",\"generation\":1,\"step\":40,\"ladder\":1,\"player\":\"gen-0001\",\"elo\":120.0,\"low\":50.0,\"high\":190.0,\"games\":8}\n",
        "{\"event\":\"ladder\",\"generation\":2,\"step\":80,\"ladder\":1,\"player\":\"gen-0002\",\"elo\":240.0,\"low\":150.0,\"high\":330.0,\"games\":8}\n",
        "{\"event\":\"self_play\",\"generation\":3,",
    );

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("zerosum-report-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn writes_plots_and_a_self_contained_page() {
        let history = RunHistory::parse(METRICS);
        let dir = scratch("full");
        let files = write_report(&history, &[], "zerosum report: test", &dir).unwrap();
        assert_eq!(files.len(), 2 * 8 + 1);
        for file in &files {
            let bytes = fs::read(file).unwrap();
            assert!(
                bytes.len() > 1000,
                "{} is {} bytes",
                file.display(),
                bytes.len()
            );
            match file.extension().and_then(|e| e.to_str()) {
                Some("png") => assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n")),
                Some("svg") => assert!(bytes.starts_with(b"<svg")),
                _ => {}
            }
        }
        let page = fs::read_to_string(dir.join("index.html")).unwrap();
        assert!(!page.contains("http://") && !page.contains("https://"));
        assert_eq!(page.matches("<svg").count(), 8);
        assert!(page.contains("generation 2: +240 Elo over random (95%: +150 to +330)"));
        assert!(page.contains("Events that are not JSON were left out"));
        assert!(page.contains("Elo rating per generation (ladder)"));
        let elo = fs::read_to_string(dir.join("elo.svg")).unwrap();
        assert!(elo.contains("Elo (random play = 0)"), "axes carry units");
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn an_empty_run_still_gets_a_report() {
        let dir = scratch("empty");
        let files = write_report(&RunHistory::default(), &[], "empty", &dir).unwrap();
        assert_eq!(files.len(), 17);
        let svg = fs::read_to_string(dir.join("losses.svg")).unwrap();
        assert!(svg.contains("no data yet"));
        fs::remove_dir_all(dir).unwrap();
    }
}
