//! Protocol front ends: an engine that owns the game, its history and the player, plus a
//! loop that parses lines and formats replies. Both loops read their input on a thread of
//! their own ([`read_lines`]), so a search never keeps a line from being read.

pub mod gtp;
pub mod uci;

use std::io::{self, BufRead, Read, Write};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};

/// The longest line read whole: the rest of a longer one is skipped, so that input with
/// no line ends cannot take unbounded memory. Real commands are a few hundred bytes (a
/// chess game of 300 moves in one `position` line is under 2 KiB).
pub const MAX_LINE: usize = 64 * 1024;

/// One item of input.
#[derive(Debug)]
pub enum Input {
    /// A line (without its end), read lossily as UTF-8.
    Line(String),
    /// A line longer than [`MAX_LINE`], skipped: its length in bytes.
    TooLong(usize),
    /// Reading failed; nothing more comes.
    Failed(io::Error),
}

/// Reads `input` line by line on a thread of its own until its end, calling `peek` on each
/// line as soon as it is read (before the loop takes it, which may be busy searching).
/// The thread is not joined: after `quit` it may still wait on an input that never ends.
pub fn read_lines(
    input: impl BufRead + Send + 'static,
    peek: impl Fn(&str) + Send + 'static,
) -> io::Result<Receiver<Input>> {
    let (lines, inbox) = mpsc::channel();
    std::thread::Builder::new()
        .name("protocol-input".to_string())
        .spawn(move || send_lines(input, &peek, &lines))?;
    Ok(inbox)
}

fn send_lines(mut input: impl BufRead, peek: &impl Fn(&str), lines: &Sender<Input>) {
    loop {
        let item = match read_line(&mut input) {
            Ok(None) => return,
            Ok(Some(item)) => item,
            Err(e) => Input::Failed(e),
        };
        if let Input::Line(line) = &item {
            peek(line);
        }
        let failed = matches!(item, Input::Failed(_));
        if lines.send(item).is_err() || failed {
            return;
        }
    }
}

/// The next line of `input`, at most [`MAX_LINE`] bytes of it kept; `None` at its end.
fn read_line(input: &mut impl BufRead) -> io::Result<Option<Input>> {
    let mut line = Vec::new();
    if input
        .by_ref()
        .take(MAX_LINE as u64 + 1)
        .read_until(b'\n', &mut line)?
        == 0
    {
        return Ok(None);
    }
    if line.len() <= MAX_LINE || line.ends_with(b"\n") {
        let text = String::from_utf8_lossy(&line);
        return Ok(Some(Input::Line(
            text.trim_end_matches(['\n', '\r']).to_string(),
        )));
    }
    // Too long: skip to the end of the line, counting.
    let mut length = line.len();
    loop {
        let buffer = input.fill_buf()?;
        if buffer.is_empty() {
            break;
        }
        match buffer.iter().position(|&b| b == b'\n') {
            Some(end) => {
                input.consume(end + 1);
                length += end;
                break;
            }
            None => {
                let n = buffer.len();
                input.consume(n);
                length += n;
            }
        }
    }
    Ok(Some(Input::TooLong(length)))
}

/// An output kept in memory and read back while an engine writes to it (tests, fuzzing).
#[derive(Clone, Default)]
pub struct Transcript(Arc<Mutex<Vec<u8>>>);

impl Transcript {
    /// What was written so far, line by line (lossily as UTF-8).
    pub fn lines(&self) -> Vec<String> {
        let bytes = self.0.lock().unwrap_or_else(|p| p.into_inner()).clone();
        String::from_utf8_lossy(&bytes)
            .lines()
            .map(str::to_string)
            .collect()
    }
}

impl Write for Transcript {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Ends the process because standard output failed with `cause`.
pub fn output_failed(cause: &str) -> ! {
    if !cause.contains("Broken pipe") {
        eprintln!("error: cannot write to standard output: {cause}");
    }
    std::process::exit(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(bytes: Vec<u8>) -> Vec<String> {
        let inbox = read_lines(io::Cursor::new(bytes), |_| {}).unwrap();
        inbox
            .iter()
            .map(|item| match item {
                Input::Line(line) => line,
                Input::TooLong(n) => format!("<{n}>"),
                Input::Failed(e) => format!("!{e}"),
            })
            .collect()
    }

    #[test]
    fn lines_are_read_lossily_and_long_ones_skipped_whole() {
        let mut bytes = b"isready\r\n\xffgo\n".to_vec();
        bytes.extend(std::iter::repeat_n(b'x', MAX_LINE + 10));
        bytes.extend(b"\nquit");
        assert_eq!(
            read_all(bytes),
            [
                "isready".to_string(),
                "\u{fffd}go".to_string(),
                format!("<{}>", MAX_LINE + 10),
                "quit".to_string()
            ]
        );
        // A line of exactly the limit is kept; one with no end at all is counted.
        let mut exact = vec![b'y'; MAX_LINE];
        exact.push(b'\n');
        assert_eq!(read_all(exact), ["y".repeat(MAX_LINE)]);
        assert_eq!(
            read_all(vec![b'z'; 3 * MAX_LINE]),
            [format!("<{}>", 3 * MAX_LINE)]
        );
    }
}
