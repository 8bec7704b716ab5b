//! GTP coordinates (`A1`.., no `I`; `pass`) and the text board.

use std::fmt;

use super::{Go, MAX_SIZE};
use crate::error::GameError;
use crate::outcome::{Action, Player};

/// The GTP column letters: no `I`.
const COLUMNS: &[u8; MAX_SIZE] = b"ABCDEFGHJKLMNOPQRST";

/// `action` on a `size` board in GTP coordinates (`C3`), or `pass` for `size * size`.
pub(super) fn format_point(size: usize, action: Action) -> String {
    if action >= size * size {
        return "pass".to_string();
    }
    let (row, col) = (action / size, action % size);
    format!("{}{}", COLUMNS[col] as char, row + 1)
}

/// Parses GTP coordinates or `pass`, ignoring case and surrounding space.
pub(super) fn parse_point(size: usize, text: &str) -> Result<Action, GameError> {
    let bad = || GameError::BadNotation {
        text: text.to_string(),
        expected: format!(
            "a point A1..{}{size} (no I) or pass",
            COLUMNS[size - 1] as char
        ),
    };
    let trimmed = text.trim();
    if trimmed.eq_ignore_ascii_case("pass") {
        return Ok(size * size);
    }
    let (letter, digits) = trimmed.split_at_checked(1).ok_or_else(bad)?;
    let letter = letter.as_bytes()[0].to_ascii_uppercase();
    let col = COLUMNS[..size]
        .iter()
        .position(|&c| c == letter)
        .ok_or_else(bad)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let row: usize = digits.parse().map_err(|_| bad())?;
    if !(1..=size).contains(&row) {
        return Err(bad());
    }
    Ok((row - 1) * size + col)
}

impl fmt::Display for Go {
    /// The board, top row first, `X` black, `O` white and `.` empty, with row numbers on
    /// the left and column letters below.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let size = self.size();
        for row in (0..size).rev() {
            write!(f, "{:>2}", row + 1)?;
            for col in 0..size {
                let mark = match self.point(row, col) {
                    Some(Player::FIRST) => 'X',
                    Some(_) => 'O',
                    None => '.',
                };
                write!(f, " {mark}")?;
            }
            writeln!(f)?;
        }
        f.write_str("  ")?;
        for &letter in &COLUMNS[..size] {
            write!(f, " {}", letter as char)?;
        }
        Ok(())
    }
}
