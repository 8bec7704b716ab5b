//! The Universal Chess Interface, for chess GUIs and tournament managers.
//!
//! [`UciEngine`] owns the position and the searcher; [`run_loop`] reads lines on a thread
//! of its own and feeds them to it. `go` starts the search on another thread ([`search`]),
//! so the loop never blocks: `isready` is answered at once and `stop` ends the search
//! within a slice of simulations, while a command that needs the searcher (`position`,
//! `setoption`, `ucinewgame`, `go`) waits in order for the search to end. Every search is
//! bounded in time ([`UciSettings::max_search`]) and in memory (the `Hash` option), whatever
//! `go` asked for. Lines the engine cannot use are answered with `info string` saying why
//! and otherwise ignored, as the protocol asks; unknown words before a command are skipped
//! (`joho debug on` is `debug on`).

mod go;
pub mod search;

use std::collections::VecDeque;
use std::io::BufRead;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use zerosum_games::chess::Chess;
use zerosum_games::error::shown;
use zerosum_games::Game;

pub use go::GoCommand;

use super::Input;
pub use search::{say, Limits, Output, Searcher};

/// The commands the engine knows, in the order the protocol lists them.
pub const COMMANDS: &[&str] = &[
    "uci",
    "debug",
    "isready",
    "setoption",
    "register",
    "ucinewgame",
    "position",
    "go",
    "stop",
    "ponderhit",
    "quit",
];

/// The `Nodes` option's range.
const NODES_RANGE: (usize, usize) = (1, 1_000_000);
/// The `Move Overhead` option's range, in milliseconds.
const OVERHEAD_RANGE: (u64, u64) = (0, 5000);
/// The `Hash` option's range: the search tree's memory, in MiB.
const HASH_RANGE: (u64, u64) = (1, 65_536);
/// How often the loop looks whether a search has ended, to run the commands waiting for it.
const POLL: Duration = Duration::from_millis(5);

/// Settings fixed for a session.
#[derive(Clone, Debug)]
pub struct UciSettings {
    /// `Nodes`: the simulations of a `go` that names no limit.
    pub nodes: usize,
    /// How often a long search reports `info`; `None` for only at the end (tests).
    pub info_interval: Option<Duration>,
    /// `Hash`: the most memory, in MiB, the search tree may take before it stops growing.
    pub hash_mib: u64,
    /// The longest any search thinks, whatever `go` asked for (`go infinite` then waits
    /// for `stop` with what it has).
    pub max_search: Duration,
}

impl Default for UciSettings {
    fn default() -> UciSettings {
        UciSettings {
            nodes: 400,
            info_interval: Some(Duration::from_secs(1)),
            hash_mib: 512,
            max_search: Duration::from_secs(600),
        }
    }
}

/// Whether the loop goes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Read the next line.
    Continue,
    /// `quit`.
    Quit,
}

/// A search in progress.
struct Running {
    stop: Arc<AtomicBool>,
    infinite: bool,
    handle: JoinHandle<()>,
}

/// The position, the searcher and the options behind the protocol.
pub struct UciEngine {
    /// The initial position, with the ply cap of the game the searcher knows.
    initial: Chess,
    position: Chess,
    searcher: Arc<Mutex<Searcher>>,
    running: Option<Running>,
    out: Output,
    settings: UciSettings,
    default_nodes: usize,
    move_overhead: Duration,
    hash_mib: u64,
}

/// The same board without its history, for a GUI that plays on where our rules ended the
/// game by a draw it does not apply (repetition, the 50-move rule, the ply cap): the clock
/// is reset when it has run out, and the ply cap counts afresh.
fn reopen(position: &Chess) -> Chess {
    let fen = position.to_fen();
    let mut fields: Vec<&str> = fen.split(' ').collect();
    if position.halfmove_clock() >= 100 {
        fields[4] = "0";
    }
    Chess::from_fen(&fields.join(" "))
        .expect("a FEN we wrote reads back")
        .with_max_plies(position.max_plies())
}

impl UciEngine {
    /// An engine at the initial position `initial` (whose ply cap the searcher's network
    /// knows), writing to `out`.
    pub fn new(
        initial: Chess,
        searcher: Searcher,
        out: Output,
        settings: UciSettings,
    ) -> UciEngine {
        UciEngine {
            position: initial.clone(),
            initial,
            searcher: Arc::new(Mutex::new(searcher)),
            running: None,
            out,
            default_nodes: settings.nodes,
            hash_mib: settings.hash_mib,
            settings,
            move_overhead: Duration::from_millis(50),
        }
    }

    /// Asks an infinite search to end, without waiting for it.
    fn stop_infinite(&self) {
        if let Some(running) = self.running.as_ref().filter(|r| r.infinite) {
            running.stop.store(true, Ordering::Relaxed);
        }
    }

    /// Whether a search is running (one that has ended by itself is reaped here).
    fn searching(&mut self) -> bool {
        if self
            .running
            .as_ref()
            .is_some_and(|running| running.handle.is_finished())
        {
            self.finish();
        }
        self.running.is_some()
    }

    /// The most nodes a tree may hold within `Hash`, counting the spare room a growing
    /// vector keeps.
    fn max_tree_nodes(&self) -> usize {
        let bytes = self.hash_mib.saturating_mul(1 << 20);
        (bytes / (2 * std::mem::size_of::<zerosum_search::Node>() as u64)) as usize
    }

    fn say(&self, line: &str) {
        say(&self.out, line);
    }

    /// Stops the search in progress, if any, and waits for its `bestmove`.
    fn stop(&mut self) {
        if let Some(running) = &self.running {
            running.stop.store(true, Ordering::Relaxed);
        }
        self.finish();
    }

    /// Waits for a search with a limit to end by itself and stops an infinite one (which
    /// would otherwise wait for a `stop` that this wait keeps from being read): what a
    /// command that needs the searcher does when it comes during a search, and what the
    /// end of the input does.
    pub fn finish(&mut self) {
        if let Some(running) = self.running.take() {
            if running.infinite {
                running.stop.store(true, Ordering::Relaxed);
            }
            if running.handle.join().is_err() {
                self.say("info string the search failed");
            }
        }
    }

    /// Handles one line of input.
    pub fn handle_line(&mut self, line: &str) -> Flow {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.is_empty() {
            return Flow::Continue;
        }
        let Some(start) = command_at(&words) else {
            self.say(&format!(
                "info string unknown command '{}'",
                shown(words[0])
            ));
            return Flow::Continue;
        };
        let (command, args) = (words[start], &words[start + 1..]);
        match self.handle(command, args) {
            Ok(flow) => flow,
            Err(message) => {
                self.say(&format!("info string {message}"));
                Flow::Continue
            }
        }
    }

    fn handle(&mut self, command: &str, args: &[&str]) -> Result<Flow, String> {
        match command {
            "uci" => {
                self.say(&format!("id name zerosum {}", env!("CARGO_PKG_VERSION")));
                self.say("id author the zerosum authors");
                self.say(&format!(
                    "option name Nodes type spin default {} min {} max {}",
                    self.default_nodes, NODES_RANGE.0, NODES_RANGE.1
                ));
                self.say(&format!(
                    "option name Move Overhead type spin default {} min {} max {}",
                    self.move_overhead.as_millis(),
                    OVERHEAD_RANGE.0,
                    OVERHEAD_RANGE.1
                ));
                self.say(&format!(
                    "option name Hash type spin default {} min {} max {}",
                    self.hash_mib, HASH_RANGE.0, HASH_RANGE.1
                ));
                self.say("uciok");
            }
            "isready" => self.say("readyok"),
            "debug" | "register" => {}
            "ucinewgame" => {
                self.finish();
                self.position = self.initial.clone();
            }
            "setoption" => {
                self.finish();
                self.set_option(args)?;
            }
            "position" => {
                self.finish();
                self.position = self.parse_position(args)?;
            }
            "go" => {
                self.finish();
                let go = GoCommand::parse(args)?;
                if !go.ignored.is_empty() {
                    self.say(&format!(
                        "info string go: ignored '{}'",
                        go.ignored.join(" ")
                    ));
                }
                self.go(&go);
            }
            "stop" => self.stop(),
            "ponderhit" => {
                return Err("ponderhit: pondering is not supported (send stop)".to_string())
            }
            "quit" => {
                self.stop();
                return Ok(Flow::Quit);
            }
            _ => return Err(format!("unknown command '{}'", shown(command))),
        }
        Ok(Flow::Continue)
    }

    /// `setoption name <id> [value <x>]`; names are read without regard to case.
    fn set_option(&mut self, args: &[&str]) -> Result<(), String> {
        const FORM: &str = "setoption name <id> value <x>";
        if args.first() != Some(&"name") {
            return Err(format!("setoption: expected '{FORM}'"));
        }
        let value_at = args.iter().position(|&w| w == "value");
        let name = args[1..value_at.unwrap_or(args.len())].join(" ");
        let value = value_at
            .map(|i| args[i + 1..].join(" "))
            .unwrap_or_default();
        let number = |range: (u64, u64)| -> Result<u64, String> {
            value
                .parse::<u64>()
                .ok()
                .filter(|n| (range.0..=range.1).contains(n))
                .ok_or_else(|| {
                    format!(
                        "setoption: {} needs a number from {} to {}, got '{}'",
                        shown(&name),
                        range.0,
                        range.1,
                        shown(&value)
                    )
                })
        };
        match name.to_ascii_lowercase().as_str() {
            "nodes" => {
                self.default_nodes = number((NODES_RANGE.0 as u64, NODES_RANGE.1 as u64))? as usize
            }
            "move overhead" => self.move_overhead = Duration::from_millis(number(OVERHEAD_RANGE)?),
            "hash" => self.hash_mib = number(HASH_RANGE)?,
            _ => return Err(format!("setoption: unknown option '{}'", shown(&name))),
        }
        Ok(())
    }

    /// `position (startpos | fen F) [moves m1 m2 ...]`; the position is left as it was if
    /// anything is wrong.
    fn parse_position(&self, args: &[&str]) -> Result<Chess, String> {
        const FORM: &str = "position (startpos | fen <fen>) [moves <move>...]";
        let moves_at = args.iter().position(|&w| w == "moves");
        let setup = &args[..moves_at.unwrap_or(args.len())];
        let mut position = match setup.split_first() {
            Some((&"startpos", [])) => self.initial.clone(),
            Some((&"fen", fen)) if !fen.is_empty() => Chess::from_fen(&fen.join(" "))
                .map_err(|e| format!("position: {e}"))?
                .with_max_plies(self.initial.max_plies()),
            _ => return Err(format!("position: expected '{FORM}'")),
        };
        for &text in moves_at.map_or(&[][..], |i| &args[i + 1..]) {
            if position.is_terminal() {
                position = reopen(&position);
            }
            let action = position
                .parse_action(text)
                .map_err(|e| format!("position: {e}"))?;
            if !position.is_legal(action) {
                return Err(format!(
                    "position: illegal move '{text}' in {}",
                    position.to_fen()
                ));
            }
            position.apply(action);
        }
        if position.is_terminal() {
            position = reopen(&position);
        }
        Ok(position)
    }

    /// Starts a search of the current position, or answers at once when it has no move.
    fn go(&mut self, go: &GoCommand) {
        if self.position.is_terminal() {
            self.say("info string the game is over: no move to search");
            self.say("bestmove 0000");
            return;
        }
        let mut limits = go.limits(
            self.position.to_move(),
            self.default_nodes,
            self.move_overhead,
        );
        let max = self.settings.max_search;
        limits.time = Some(limits.time.map_or(max, |time| time.min(max)));
        limits.tree_nodes = Some(self.max_tree_nodes());
        let stop = Arc::new(AtomicBool::new(false));
        let (root, out, interval) = (
            self.position.clone(),
            self.out.clone(),
            self.settings.info_interval,
        );
        let (searcher, flag) = (self.searcher.clone(), stop.clone());
        let spawned = std::thread::Builder::new()
            .name("uci-search".to_string())
            .spawn(move || {
                let mut searcher = searcher
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner());
                search::run(&mut searcher, root, limits, &flag, &out, interval);
            });
        match spawned {
            Ok(handle) => {
                self.running = Some(Running {
                    stop,
                    infinite: limits.infinite,
                    handle,
                })
            }
            Err(e) => self.say(&format!("info string cannot start the search: {e}")),
        }
    }
}

impl Drop for UciEngine {
    fn drop(&mut self) {
        if let Some(running) = &self.running {
            running.stop.store(true, Ordering::Relaxed);
        }
        self.stop();
    }
}

/// The word that names the command: the first the engine knows (UCI says to skip
/// unknown words before it).
pub fn command_at(words: &[&str]) -> Option<usize> {
    words.iter().position(|w| COMMANDS.contains(w))
}

/// The command a line names, if any.
fn command_word(line: &str) -> Option<&str> {
    let words: Vec<&str> = line.split_whitespace().collect();
    command_at(&words).map(|i| words[i])
}

/// Whether `line` is a command that needs the searcher, and so waits for a running search
/// to end; every other line is answered at once.
fn waits_for_search(line: &str) -> bool {
    matches!(
        command_word(line),
        Some("position" | "setoption" | "ucinewgame" | "go")
    )
}

/// Reads lines from `input` until `quit` or its end, which waits for a search with a limit
/// and stops an infinite one. The lines are read on a thread of their own, so that the
/// loop answers while a search runs and commands that need the searcher wait their turn.
pub fn run_loop(
    engine: &mut UciEngine,
    input: impl BufRead + Send + 'static,
) -> std::io::Result<()> {
    engine.serve(&super::read_lines(input, |_| {})?)
}

impl UciEngine {
    /// Answers the lines from `inbox` until `quit` or the end of the input.
    fn serve(&mut self, inbox: &Receiver<Input>) -> std::io::Result<()> {
        let mut waiting: VecDeque<String> = VecDeque::new();
        let mut failure = None;
        loop {
            if self.run_ready(&mut waiting) == Flow::Quit {
                return Ok(());
            }
            let next = if self.searching() {
                inbox.recv_timeout(POLL)
            } else {
                inbox.recv().map_err(|_| RecvTimeoutError::Disconnected)
            };
            match next {
                Ok(Input::Line(line))
                    if waits_for_search(&line) && (self.searching() || !waiting.is_empty()) =>
                {
                    // An infinite search would wait for a `stop` that a GUI sending this
                    // has skipped: it ends now, with its `bestmove`.
                    self.stop_infinite();
                    waiting.push_back(line)
                }
                // A `stop` behind a waiting `go` is for that search, not the one running.
                Ok(Input::Line(line))
                    if command_word(&line) == Some("stop")
                        && waiting.iter().any(|l| command_word(l) == Some("go")) =>
                {
                    waiting.push_back(line)
                }
                Ok(Input::Line(line)) => {
                    if self.handle_line(&line) == Flow::Quit {
                        return Ok(());
                    }
                }
                Ok(Input::TooLong(length)) => self.say(&format!(
                    "info string a line of {length} bytes is longer than {} and was skipped",
                    super::MAX_LINE
                )),
                Ok(Input::Failed(e)) => {
                    failure = Some(e);
                    break;
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        // The input has ended: what waited runs in order, each after the search before it.
        for line in waiting {
            self.finish();
            if self.handle_line(&line) == Flow::Quit {
                return Ok(());
            }
        }
        self.finish();
        failure.map_or(Ok(()), Err)
    }

    /// Answers the lines at the front of `waiting` that need not wait for the search
    /// running, until one must or `quit` ends the loop.
    fn run_ready(&mut self, waiting: &mut VecDeque<String>) -> Flow {
        while let Some(front) = waiting.front() {
            if waits_for_search(front) && self.searching() {
                break;
            }
            let line = waiting.pop_front().expect("a front line");
            if self.handle_line(&line) == Flow::Quit {
                return Flow::Quit;
            }
        }
        Flow::Continue
    }
}

#[cfg(test)]
mod tests {
    use std::io::{BufReader, Cursor, Read};
    use std::sync::mpsc;
    use std::time::Instant;

    use super::super::Transcript;
    use super::*;

    fn engine() -> (UciEngine, Transcript) {
        let shared = Transcript::default();
        let searcher = Searcher::rollouts(1);
        let settings = UciSettings {
            nodes: 400,
            info_interval: None,
            ..UciSettings::default()
        };
        let out: Output = Arc::new(Mutex::new(Box::new(shared.clone())));
        (
            UciEngine::new(Chess::new(), searcher, out, settings),
            shared,
        )
    }

    fn session(script: &str) -> Vec<String> {
        let (mut engine, out) = engine();
        run_loop(&mut engine, Cursor::new(script.as_bytes().to_vec())).unwrap();
        out.lines()
    }

    /// Checks an `info` line and the `bestmove` after it against `position`: the
    /// principal variation is legal and starts with the best move. Returns the best move.
    fn check_answer(position: &Chess, info: &str, bestmove: &str, nodes: u64) -> String {
        let best = bestmove.strip_prefix("bestmove ").unwrap().to_string();
        assert!(
            info.starts_with("info depth ") && info.contains(&format!(" nodes {nodes} score ")),
            "{info}"
        );
        let pv: Vec<&str> = info.split(" pv ").nth(1).unwrap().split(' ').collect();
        let depth: usize = info.split(' ').nth(2).unwrap().parse().unwrap();
        assert_eq!(depth, pv.len(), "{info}");
        assert_eq!(pv[0], best, "{info}");
        let mut line = position.clone();
        for mv in pv {
            line.play_notation(mv).unwrap();
        }
        best
    }

    #[test]
    fn transcript_uci_isready_position_go() {
        let lines = session("uci\nisready\nposition startpos moves e2e4\ngo nodes 50\n");
        assert_eq!(
            lines[..7],
            [
                format!("id name zerosum {}", env!("CARGO_PKG_VERSION")),
                "id author the zerosum authors".to_string(),
                "option name Nodes type spin default 400 min 1 max 1000000".to_string(),
                "option name Move Overhead type spin default 50 min 0 max 5000".to_string(),
                "option name Hash type spin default 512 min 1 max 65536".to_string(),
                "uciok".to_string(),
                "readyok".to_string(),
            ]
        );
        assert_eq!(lines.len(), 9, "{lines:?}");
        let mut position = Chess::new();
        position.play_notation("e2e4").unwrap();
        check_answer(&position, &lines[7], &lines[8], 50);
        // The same seed gives the same session.
        assert_eq!(
            session("uci\nisready\nposition startpos moves e2e4\ngo nodes 50\n"),
            lines
        );
    }

    #[test]
    fn bad_lines_get_an_info_string_and_change_nothing() {
        let lines = session(
            "position fen garbage\ngo nodes abc\nfrobnicate now\n\
             setoption name Nodes value 0\nsetoption name Hash value 0\nsetoption Nodes\n\
             position startpos moves e2e4 e7e5 e1e3\nposition fen 8/8/8/8/8/8/8/8 w - - 0 1\n\
             go searchmoves e2e4 d2d4 nodes 8\n\
             joho isready\nsetoption name nodes value 12\ngo\n",
        );
        let expected_starts = [
            "info string position: bad position 'garbage': a FEN has 6 fields",
            "info string go: nodes needs a whole number, got 'abc'",
            "info string unknown command 'frobnicate'",
            "info string setoption: Nodes needs a number from 1 to 1000000, got '0'",
            "info string setoption: Hash needs a number from 1 to 65536, got '0'",
            "info string setoption: expected 'setoption name <id> value <x>'",
            "info string position: illegal move 'e1e3' in rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
            "info string position: bad position '8/8/8/8/8/8/8/8 w - - 0 1'",
            "info string go: ignored 'searchmoves e2e4 d2d4'",
        ];
        for (line, start) in lines.iter().zip(expected_starts) {
            assert!(
                line.starts_with(start),
                "{line:?} should start with {start:?}"
            );
        }
        // `joho isready` is `isready`, answered at once, while the search may still run.
        let mut lines = lines;
        let ready = lines.iter().position(|l| l == "readyok");
        assert!(ready.is_some_and(|i| i >= 9), "{lines:#?}");
        lines.remove(ready.unwrap());
        // Every bad line left the start position: the searches answer from it.
        let start = Chess::new();
        assert_eq!(lines.len(), 13, "{lines:#?}");
        check_answer(&start, &lines[9], &lines[10], 8);
        // `setoption name nodes value 12` set the budget of a plain `go`.
        check_answer(&start, &lines[11], &lines[12], 12);
    }

    #[test]
    fn stop_ends_an_infinite_search_with_a_bestmove() {
        let (mut engine, out) = engine();
        engine.handle_line("position startpos moves d2d4");
        engine.handle_line("go infinite");
        std::thread::sleep(Duration::from_millis(100));
        // The loop answers while the search runs, and the search does not answer yet.
        engine.handle_line("isready");
        assert_eq!(out.lines(), ["readyok"]);
        engine.handle_line("stop");
        let lines = out.lines();
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert!(lines[2].starts_with("bestmove "), "{lines:?}");
        let nodes: u64 = lines[1].split(' ').nth(4).unwrap().parse().unwrap();
        let mut position = Chess::new();
        position.play_notation("d2d4").unwrap();
        check_answer(&position, &lines[1], &lines[2], nodes);
        // `quit` in the middle of a search ends it too.
        engine.handle_line("go infinite");
        assert_eq!(engine.handle_line("quit"), Flow::Quit);
        assert!(out.lines().last().unwrap().starts_with("bestmove "));
    }

    #[test]
    fn mates_are_found_and_finished_games_have_no_move() {
        // Scholar's mate: Qxf7# is proven, and the score says mate in 1.
        let lines = session(
            "position startpos moves e2e4 e7e5 f1c4 b8c6 d1h5 g8f6\ngo nodes 400\n\
             position startpos moves f2f3 e7e5 g2g4 d8h4\ngo nodes 10\n",
        );
        assert_eq!(lines[1], "bestmove h5f7", "{lines:?}");
        assert!(lines[0].contains(" score mate 1 pv h5f7"), "{lines:?}");
        assert_eq!(
            lines[2..],
            [
                "info string the game is over: no move to search",
                "bestmove 0000"
            ]
        );
    }

    #[test]
    fn games_our_rules_drew_go_on_when_the_gui_plays_on() {
        // Knights out and back twice: a threefold repetition, which ends our game but not
        // the GUI's until claimed.
        let shuffle = "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8";
        let lines = session(&format!(
            "position startpos moves {shuffle} e2e4\ngo nodes 8\n"
        ));
        assert_eq!(lines.len(), 2, "{lines:?}");
        let mut position = Chess::from_fen(zerosum_games::chess::START_FEN).unwrap();
        position.play_notation("e2e4").unwrap();
        check_answer(&position, &lines[0], &lines[1], 8);
    }

    /// Input that the test writes while the engine reads it.
    struct Feed(mpsc::Receiver<String>, Cursor<Vec<u8>>);

    impl Read for Feed {
        fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
            loop {
                let n = self.1.read(buffer)?;
                if n > 0 {
                    return Ok(n);
                }
                match self.0.recv() {
                    Ok(text) => self.1 = Cursor::new(text.into_bytes()),
                    Err(_) => return Ok(0),
                }
            }
        }
    }

    /// Waits until the output has `count` lines starting with `start`, and says how long
    /// that took; fails after 20 seconds.
    fn wait_for(out: &Transcript, start: &str, count: usize) -> Duration {
        let begin = Instant::now();
        while out.lines().iter().filter(|l| l.starts_with(start)).count() < count {
            assert!(
                begin.elapsed() < Duration::from_secs(20),
                "no {start} after 20 s: {:?}",
                out.lines()
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        begin.elapsed()
    }

    /// The hang once measured: a `go` for 31 years, then `position`, used to block the
    /// loop until the search ended. Now `isready` is answered at once, `position` and
    /// `setoption` wait for the search, and `stop` ends it.
    #[test]
    fn a_search_told_to_think_for_ages_never_blocks_the_loop() {
        let (mut engine, out) = engine();
        let (feed, lines) = mpsc::channel::<String>();
        let input = BufReader::new(Feed(lines, Cursor::new(Vec::new())));
        let looping = std::thread::spawn(move || run_loop(&mut engine, input).unwrap());
        feed.send("305500 go movetime 1000000000000\n".into())
            .unwrap();
        std::thread::sleep(Duration::from_millis(50));
        feed.send("position startpos moves e2e4\nsetoption name Nodes value 20\n".into())
            .unwrap();
        feed.send("isready\n".into()).unwrap();
        // On a quiet machine both answers take a few milliseconds; the bound is loose for a
        // busy test run, and far below the search's own end.
        assert!(wait_for(&out, "readyok", 1) < Duration::from_secs(5));
        assert!(!out.lines().iter().any(|l| l.starts_with("bestmove")));
        feed.send("stop\n".into()).unwrap();
        assert!(wait_for(&out, "bestmove", 1) < Duration::from_secs(5));
        // The waiting commands ran after the search: the next `go` searches 20 nodes
        // after e2e4.
        feed.send("go\n".into()).unwrap();
        wait_for(&out, "bestmove", 2);
        feed.send("quit\n".into()).unwrap();
        looping.join().unwrap();
        let lines = out.lines();
        let n = lines.len();
        let mut position = Chess::new();
        position.play_notation("e2e4").unwrap();
        check_answer(&position, &lines[n - 2], &lines[n - 1], 20);
    }

    /// `stop` after a `go` that waits for the running search is that search's `stop`.
    #[test]
    fn a_stop_behind_a_waiting_go_stops_that_go() {
        let (mut engine, out) = engine();
        let (feed, lines) = mpsc::channel::<String>();
        let input = BufReader::new(Feed(lines, Cursor::new(Vec::new())));
        let looping = std::thread::spawn(move || run_loop(&mut engine, input).unwrap());
        feed.send("go infinite\nposition startpos moves d2d4\ngo infinite\nstop\n".into())
            .unwrap();
        wait_for(&out, "bestmove", 2);
        feed.send("quit\n".into()).unwrap();
        looping.join().unwrap();
    }

    #[test]
    fn an_infinite_search_ends_when_a_position_comes_without_stop() {
        let lines = session("go infinite\nposition startpos moves g1f3\ngo nodes 5\n");
        assert_eq!(lines.len(), 4, "{lines:?}");
        assert!(lines[1].starts_with("bestmove "), "{lines:?}");
        let mut position = Chess::new();
        position.play_notation("g1f3").unwrap();
        check_answer(&position, &lines[2], &lines[3], 5);
    }

    #[test]
    fn a_line_with_no_end_is_skipped_in_bounded_memory() {
        let mut script = "x".repeat(super::super::MAX_LINE * 4);
        script.push_str("\nisready\n");
        let lines = session(&script);
        assert_eq!(
            lines,
            [
                format!(
                    "info string a line of {} bytes is longer than {} and was skipped",
                    super::super::MAX_LINE * 4,
                    super::super::MAX_LINE
                ),
                "readyok".to_string()
            ]
        );
    }
}
