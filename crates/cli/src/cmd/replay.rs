//! `zerosum replay FILE`: steps through a recorded game in the terminal.
//!
//! JSON Lines records only, for every game; SGF (Go) and PGN (chess) readers come with
//! those games' record writers.

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;

use anyhow::{bail, Result};
use zerosum_games::registry::parse_game;
use zerosum_games::with_game;
use zerosum_store::playback::{frames, read_records, Frame};
use zerosum_store::GameRecord;

#[derive(clap::Args)]
pub struct Args {
    /// A JSON Lines game record file: a batch of a run's games (games/gen-NNNN/NNNN.jsonl,
    /// games/actors/STAMP-ACTOR.SESSION.NNNNNN-gNNNN.jsonl) or `arena --save` output
    pub file: PathBuf,
    /// Which game of the file, counting from 0
    #[arg(long, default_value_t = 0)]
    pub game_index: usize,
}

/// Policy entries shown per move.
const TOP_MOVES: usize = 5;

pub fn run(args: Args) -> Result<()> {
    let records = read_records(&args.file)?;
    if records.is_empty() {
        bail!("{}: no games in the file", args.file.display());
    }
    let Some((line, record)) = records.get(args.game_index) else {
        bail!(
            "game index {} is out of range: {} holds {} games (0 to {})",
            args.game_index,
            args.file.display(),
            records.len(),
            records.len() - 1
        );
    };
    let bad = |reason: String| zerosum_store::StoreError::BadRecord {
        path: args.file.clone(),
        line: *line,
        reason,
    };
    let game = parse_game(&record.game).map_err(|e| bad(e.to_string()))?;
    // A viewer shows what it can: a record that is not what zerosum writes is flagged.
    if let Err(why) = with_game!(&game, g => record.check(g)) {
        eprintln!("warning: {}", bad(why));
    }
    let frames =
        with_game!(&game, g => frames(g, record, TOP_MOVES)).map_err(|e| bad(e.to_string()))?;
    println!(
        "{} line {} (game index {} of {} games): {}, {} (first) vs {} (second), result {}, {} plies",
        args.file.display(),
        line,
        args.game_index,
        records.len(),
        record.game,
        record.players[0],
        record.players[1],
        record.result,
        record.actions.len()
    );
    if std::io::stdin().is_terminal() {
        step_through(record, &frames)
    } else {
        for frame in &frames {
            println!("\n{}", show(record, frame));
        }
        Ok(())
    }
}

/// Enter steps forward, `b` back, a number jumps to that ply, `q` (or end of input) quits.
fn step_through(record: &GameRecord, frames: &[Frame]) -> Result<()> {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut at = 0;
    let mut shown = None;
    loop {
        if shown != Some(at) {
            println!("\n{}", show(record, &frames[at]));
            shown = Some(at);
        }
        print!("[Enter] next, b back, a ply number to jump, q quit > ");
        std::io::stdout().flush()?;
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            println!();
            return Ok(());
        }
        match line.trim() {
            "" | "n" => {
                if at + 1 < frames.len() {
                    at += 1;
                } else {
                    println!("(the end of the game: b steps back, q quits)");
                }
            }
            "b" => {
                if at > 0 {
                    at -= 1;
                } else {
                    println!("(the start of the game)");
                }
            }
            "q" | "quit" => return Ok(()),
            text => match text.parse::<usize>() {
                Ok(ply) if ply < frames.len() => at = ply,
                _ => println!(
                    "'{text}' is not a command: Enter, b, q, or a ply from 0 to {}",
                    frames.len() - 1
                ),
            },
        }
    }
}

/// One position: who moves, the board, and the move played with what the search thought.
fn show(record: &GameRecord, frame: &Frame) -> String {
    let plies = record.actions.len();
    let mut text = match frame.to_move {
        Some(player) if frame.action.is_some() => format!(
            "ply {}/{plies}: {player} to move ({})\n",
            frame.ply,
            record.players[player.index()]
        ),
        _ => format!(
            "ply {}/{plies}: the end, result {}\n",
            frame.ply, record.result
        ),
    };
    text.push_str(&frame.board);
    if let Some(action) = &frame.action {
        text.push_str(&format!("\nmove {}: {action}", frame.ply + 1));
        if let Some(value) = frame.value {
            text.push_str(&format!("   search value {value:+.2} for the mover"));
        }
        if !frame.policy.is_empty() {
            let top: Vec<String> = frame
                .policy
                .iter()
                .map(|(m, p)| format!("{m} {:.0}%", 100.0 * p))
                .collect();
            text.push_str(&format!("   policy {}", top.join(", ")));
        }
    }
    text
}
