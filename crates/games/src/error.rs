//! Errors of the games crate.

use thiserror::Error;

/// What went wrong with a game name, a move or a position.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GameError {
    /// The registry knows no game of this name.
    #[error("unknown game '{}' (known: {known})", shown(.name))]
    UnknownGame {
        /// The name as given.
        name: String,
        /// The registry names, comma separated.
        known: String,
    },
    /// A game parameter was unknown or had a bad value.
    #[error("bad parameter '{}' for game {game}: {reason}", shown(.param))]
    BadParameter {
        /// The game's registry name.
        game: String,
        /// The parameter as given.
        param: String,
        /// Why it was refused.
        reason: String,
    },
    /// Text that is not a move in this game's notation.
    #[error("'{}' is not a move here: {expected}", shown(.text))]
    BadNotation {
        /// The text as given.
        text: String,
        /// The form a move takes in this game.
        expected: String,
    },
    /// A move in the right notation that the position does not allow.
    #[error("illegal move {action} in position {position}")]
    IllegalAction {
        /// The move, in notation where it has one.
        action: String,
        /// The position, on one line.
        position: String,
    },
    /// A move was given after the game ended.
    #[error("the game is over")]
    GameOver,
    /// A position description (FEN, say) that could not be read.
    #[error("bad position '{}': {reason}", shown(.text))]
    BadPosition {
        /// The text as given.
        text: String,
        /// What was wrong with it.
        reason: String,
    },
    /// A game registered under a name that could not be typed on a command line.
    #[error("'{}' cannot name a game: use letters, digits, '_' and '-'", shown(.name))]
    BadName {
        /// The name as given.
        name: String,
    },
    /// A game registered under a name the table already has.
    #[error("a game named '{name}' is already registered")]
    NameTaken {
        /// The name as given.
        name: String,
    },
}

/// The most characters of someone's text that a message repeats.
const SHOWN_CHARS: usize = 80;

/// Text as it was typed or sent, for a message: control characters escaped (a terminal
/// shows no colours or bells from it) and long text cut, so that the message stays one
/// short line whatever came in.
pub fn shown(text: &str) -> String {
    shown_up_to(text, SHOWN_CHARS)
}

/// [`shown`], cut at `max_chars` characters.
pub fn shown_up_to(text: &str, max_chars: usize) -> String {
    let mut out = String::new();
    for (count, c) in text.chars().enumerate() {
        if count == max_chars {
            out.push_str("...");
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// The error and its causes on one line, each cause once: an error that already says its
/// cause (`PATH: File exists`) is not followed by it again. Every error a person reads (the
/// terminal's, the web board's) is written this way.
pub fn one_line(error: &(dyn std::error::Error + 'static)) -> String {
    let mut line = String::new();
    let mut cause = Some(error);
    while let Some(error) = cause {
        let text = error.to_string().replace('\n', " ");
        if !line.contains(&text) {
            if !line.is_empty() {
                line.push_str(": ");
            }
            line.push_str(&text);
        }
        cause = error.source();
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_came_in_is_repeated_on_one_short_line() {
        let error = GameError::BadNotation {
            text: "\u{1b}[31mred\0\u{7}".into(),
            expected: "a column".into(),
        };
        assert_eq!(
            error.to_string(),
            "'\\u{1b}[31mred\\u{0}\\u{7}' is not a move here: a column"
        );
        let flood = "x".repeat(5_000_000);
        let error = GameError::BadPosition {
            text: flood,
            reason: "no".into(),
        };
        let message = error.to_string();
        assert_eq!(message, format!("bad position '{}...': no", "x".repeat(80)));
        let error = GameError::BadParameter {
            game: "go".into(),
            param: "\u{7}".repeat(1000),
            reason: "unknown".into(),
        };
        let message = error.to_string();
        assert!(
            message.starts_with("bad parameter '\\u{7}\\u{7}"),
            "{message}"
        );
        assert!(message.len() < 600, "{message}");
    }
}
