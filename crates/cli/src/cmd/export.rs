//! `zerosum export FILE.jsonl`: JSON Lines game records in their games' standard formats,
//! SGF for Go and PGN for chess.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use zerosum_games::registry::parse_game;
use zerosum_games::{with_game, Game, RecordTags};
use zerosum_store::playback::read_records;
use zerosum_store::GameRecord;

#[derive(clap::Args)]
pub struct Args {
    /// A JSON Lines game record file: a batch of a run's games (games/gen-NNNN/NNNN.jsonl,
    /// games/actors/STAMP-ACTOR.SESSION.NNNNNN-gNNNN.jsonl) or `arena --save` output
    pub file: PathBuf,
    /// The file to write; default FILE with the format's extension (.sgf, .pgn)
    #[arg(long)]
    pub out: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<()> {
    let records = read_records(&args.file)?;
    if records.is_empty() {
        bail!("{}: no games in the file", args.file.display());
    }
    let first = &records[0].1.game;
    if parse_game(first).is_ok_and(|game| with_game!(&game, g => standard_extension(g).is_none())) {
        bail!(
            "{}: {} has no standard record format (SGF is for go, PGN for chess); \
             `zerosum replay {}` shows its games",
            args.file.display(),
            zerosum_games::error::shown(first),
            args.file.display()
        );
    }
    let (extension, text) = standard_text(&args.file, &records)?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| standard_path(&args.file, extension));
    if same_file(&out, &args.file) {
        bail!(
            "{}: --out names the record file itself; choose another file",
            out.display()
        );
    }
    std::fs::write(&out, text).with_context(|| format!("cannot write {}", out.display()))?;
    println!(
        "wrote {} game{} to {}",
        records.len(),
        if records.len() == 1 { "" } else { "s" },
        out.display()
    );
    Ok(())
}

/// Every record of `file` (`(line, record)`, at least one) in their games' standard
/// format, `(extension, text)`: one format per file.
fn standard_text(file: &Path, records: &[(usize, GameRecord)]) -> Result<(&'static str, String)> {
    let event = format!(
        "zerosum {}",
        file.file_name()
            .map_or(String::new(), |n| n.to_string_lossy().into_owned())
    );
    let mut extension = None;
    let mut text = String::new();
    for (index, (line, record)) in records.iter().enumerate() {
        let bad = |reason: String| zerosum_store::StoreError::BadRecord {
            path: file.to_path_buf(),
            line: *line,
            reason,
        };
        let tags = RecordTags {
            event: event.clone(),
            players: record.players.clone(),
            round: Some(index + 1),
            ..RecordTags::default()
        };
        let (ext, game_text) = standard_record(record, &tags).map_err(bad)?;
        if extension.is_some_and(|e| e != ext) {
            return Err(bad(format!(
                "{} is written as .{ext}, the games before it as .{}: one format per file",
                record.game,
                extension.unwrap_or_default()
            ))
            .into());
        }
        extension = Some(ext);
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&game_text);
    }
    let extension = extension.expect("the file holds at least one game");
    Ok((extension, text))
}

/// `record` in its game's standard format, `(extension, text)`, after checking every move;
/// or why not, in one line.
pub fn standard_record(
    record: &GameRecord,
    tags: &RecordTags,
) -> Result<(&'static str, String), String> {
    let game = parse_game(&record.game).map_err(|e| e.to_string())?;
    with_game!(&game, g => {
        record.replay(g).map_err(|e| e.to_string())?;
        g.standard_record(&record.actions, tags).ok_or_else(|| {
            format!(
                "{} has no standard record format (SGF is for go, PGN for chess)",
                record.game
            )
        })
    })
}

/// The extension of `game`'s standard record format (`sgf`, `pgn`), or `None` for a game
/// that has none.
pub fn standard_extension<G: Game>(game: &G) -> Option<&'static str> {
    game.standard_record(&[], &RecordTags::default())
        .map(|(extension, _)| extension)
}

/// `file` with its extension replaced by `extension`, or with `extension` added when that
/// would be `file` itself.
pub fn standard_path(file: &Path, extension: &str) -> PathBuf {
    let replaced = file.with_extension(extension);
    if replaced == file {
        let mut name = file.as_os_str().to_owned();
        name.push(".");
        name.push(extension);
        PathBuf::from(name)
    } else {
        replaced
    }
}

/// Today's date in UTC, `YYYY-MM-DD`.
pub fn today() -> String {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (year, month, day) = civil_from_days((seconds / 86_400) as i64);
    format!("{year:04}-{month:02}-{day:02}")
}

/// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Whether `a` and `b` name one existing file.
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_paths() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        assert_eq!(civil_from_days(20_089), (2025, 1, 1));
        assert_eq!(
            standard_path(Path::new("runs/a/games/gen-0001.jsonl"), "sgf"),
            PathBuf::from("runs/a/games/gen-0001.sgf")
        );
        assert_eq!(
            standard_path(Path::new("match"), "pgn"),
            PathBuf::from("match.pgn")
        );
        assert_eq!(
            standard_path(Path::new("match.pgn"), "pgn"),
            PathBuf::from("match.pgn.pgn")
        );
    }

    #[test]
    fn records_of_games_without_a_format_or_with_bad_moves_say_why() {
        let game = zerosum_games::tic_tac_toe::TicTacToe::new();
        let record = GameRecord::new(&game, ["a".into(), "b".into()], vec![4, 0], Vec::new());
        let err = standard_record(&record, &RecordTags::default()).unwrap_err();
        assert!(err.contains("no standard record format"), "{err}");
        let go = zerosum_games::go::Go::new();
        let mut record = GameRecord::new(&go, ["a".into(), "b".into()], vec![12], Vec::new());
        let (extension, text) = standard_record(&record, &RecordTags::default()).unwrap();
        assert_eq!(extension, "sgf");
        assert!(text.contains(";B[cc]"), "{text}");
        record.actions.push(12);
        let err = standard_record(&record, &RecordTags::default()).unwrap_err();
        assert!(err.contains("illegal move C3"), "{err}");
    }
}
