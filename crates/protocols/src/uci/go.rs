//! The `go` command: its words, and the limits of the search they ask for.

use std::time::Duration;

use zerosum_games::error::shown;
use zerosum_games::Player;

use super::Limits;

/// Moves the clock is shared over when `go` gives no `movestogo`.
const DEFAULT_MOVES_TO_GO: u64 = 30;

/// A `go` command as given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoCommand {
    /// `nodes N`.
    pub nodes: Option<u64>,
    /// `depth N`: searched as `nodes N`.
    pub depth: Option<u64>,
    /// `movetime MS`.
    pub movetime: Option<u64>,
    /// `wtime`, `btime` in milliseconds (negative read as 0).
    pub time: [Option<u64>; 2],
    /// `winc`, `binc` in milliseconds.
    pub increment: [Option<u64>; 2],
    /// `movestogo N`.
    pub moves_to_go: Option<u64>,
    /// `infinite` (or `ponder`, searched the same way).
    pub infinite: bool,
    /// Words that were skipped (`searchmoves` and its moves, `mate N`, unknown tokens).
    pub ignored: Vec<String>,
}

impl GoCommand {
    /// Parses the words after `go`; a keyword with a missing or bad number is an error.
    pub fn parse(args: &[&str]) -> Result<GoCommand, String> {
        let mut go = GoCommand::default();
        let mut words = args.iter().peekable();
        while let Some(&word) = words.next() {
            let mut number = |key: &str| -> Result<u64, String> {
                let text = words
                    .next()
                    .ok_or_else(|| format!("go: {key} needs a number"))?;
                whole_number(text)
                    .ok_or_else(|| format!("go: {key} needs a whole number, got '{}'", shown(text)))
            };
            match word {
                "nodes" => go.nodes = Some(number(word)?),
                "depth" => go.depth = Some(number(word)?),
                "movetime" => go.movetime = Some(number(word)?),
                "wtime" => go.time[0] = Some(number(word)?),
                "btime" => go.time[1] = Some(number(word)?),
                "winc" => go.increment[0] = Some(number(word)?),
                "binc" => go.increment[1] = Some(number(word)?),
                "movestogo" => go.moves_to_go = Some(number(word)?),
                "mate" => go.ignored.push(format!("mate {}", number(word)?)),
                "infinite" | "ponder" => go.infinite = true,
                "searchmoves" => {
                    let mut skipped = vec![word.to_string()];
                    while let Some(&&next) = words.peek() {
                        if is_go_keyword(next) {
                            break;
                        }
                        skipped.push(next.to_string());
                        words.next();
                    }
                    go.ignored.push(skipped.join(" "));
                }
                other => go.ignored.push(other.to_string()),
            }
        }
        Ok(go)
    }

    /// The limits of this search for `mover`: `nodes` and `depth` cap simulations;
    /// `movetime` less `overhead` is the time, else the clock less `overhead` shared over
    /// `movestogo` moves (30 when not given) plus three quarters of the increment; with no
    /// limit at all, `default_nodes`.
    pub fn limits(&self, mover: Player, default_nodes: usize, overhead: Duration) -> Limits {
        let nodes = match (self.nodes, self.depth) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
        .map(|n| n.max(1));
        let side = mover.index();
        let time = match (self.movetime, self.time[side]) {
            (Some(ms), _) => Some(Duration::from_millis(ms).saturating_sub(overhead)),
            (None, Some(ms)) => {
                let usable = Duration::from_millis(ms).saturating_sub(overhead);
                let moves = self.moves_to_go.unwrap_or(DEFAULT_MOVES_TO_GO).max(1);
                let increment = Duration::from_millis(self.increment[side].unwrap_or(0));
                let moves = u32::try_from(moves).unwrap_or(u32::MAX);
                Some((usable / moves + increment * 3 / 4).min(usable))
            }
            (None, None) => None,
        };
        let nodes = if nodes.is_none() && time.is_none() && !self.infinite {
            Some(default_nodes as u64)
        } else {
            nodes
        };
        Limits {
            nodes,
            time,
            infinite: self.infinite,
            tree_nodes: None,
        }
    }
}

/// A whole number as GUIs send them: a clock that ran out may be negative (read as 0), and
/// one too large for 64 bits is read as the largest.
fn whole_number(text: &str) -> Option<u64> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(match (text.starts_with('-'), digits.parse::<u64>()) {
        (true, _) => 0,
        (false, Ok(n)) => n,
        (false, Err(_)) => u64::MAX,
    })
}

/// The words that start a part of `go`.
fn is_go_keyword(word: &str) -> bool {
    matches!(
        word,
        "searchmoves"
            | "ponder"
            | "wtime"
            | "btime"
            | "winc"
            | "binc"
            | "movestogo"
            | "depth"
            | "nodes"
            | "mate"
            | "movetime"
            | "infinite"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_become_limits() {
        let overhead = Duration::from_millis(50);
        let limits = |line: &str, mover: Player| {
            let args: Vec<&str> = line.split_whitespace().collect();
            GoCommand::parse(&args)
                .unwrap()
                .limits(mover, 400, overhead)
        };
        let ms = |n: u64| Some(Duration::from_millis(n));
        let clock = "wtime 60000 btime 30050 winc 1000 binc 0";
        assert_eq!(
            limits(clock, Player::FIRST).time,
            Some(Duration::from_millis(59_950) / 30 + Duration::from_millis(750))
        );
        assert_eq!(limits(clock, Player::SECOND).time, ms(1000));
        assert_eq!(
            limits("btime 1050 movestogo 1", Player::SECOND).time,
            ms(1000)
        );
        assert_eq!(limits("wtime -20", Player::FIRST).time, ms(0));
        assert_eq!(
            limits("btime 4294967296050 movestogo 4294967296", Player::SECOND).time,
            ms(1000),
            "a count of moves past 32 bits divides the clock, not by zero"
        );
        assert_eq!(limits("movetime 1000", Player::SECOND).time, ms(950));
        assert_eq!(limits("movetime 1000", Player::SECOND).nodes, None);
        assert_eq!(
            limits("", Player::FIRST),
            Limits {
                nodes: Some(400),
                time: None,
                infinite: false,
                tree_nodes: None,
            }
        );
        assert_eq!(limits("depth 7 nodes 100", Player::FIRST).nodes, Some(7));
        assert_eq!(limits("nodes 0", Player::FIRST).nodes, Some(1));
        assert_eq!(
            limits("infinite", Player::FIRST),
            Limits {
                nodes: None,
                time: None,
                infinite: true,
                tree_nodes: None,
            }
        );
        assert_eq!(
            limits("nodes 99999999999999999999999", Player::FIRST).nodes,
            Some(u64::MAX)
        );
        assert_eq!(limits("nodes -5", Player::FIRST).nodes, Some(1));
        for bad in [
            "nodes",
            "movetime soon",
            "wtime 1 btime x",
            "nodes 1e23",
            "nodes -",
            "nodes +3",
        ] {
            let args: Vec<&str> = bad.split_whitespace().collect();
            assert!(GoCommand::parse(&args).is_err(), "{bad}");
        }
    }
}
