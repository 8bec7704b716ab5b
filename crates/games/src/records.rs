//! What a game record in a standard format (SGF for Go, PGN for chess) says beyond the
//! moves, and the text helpers those formats share.
//!
//! [`crate::Game::standard_record`] writes one game from its initial position and its
//! actions; the tags here fill the record's header.

/// The header of a game record: who played, where and when, and how it ended when the
/// board does not say (a resignation, an adjudication).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecordTags {
    /// The event or match name; empty for unknown.
    pub event: String,
    /// The players' names, first player (black in Go, white in chess) then second; empty
    /// for unknown.
    pub players: [String; 2],
    /// The result in the format's own notation (`B+R`, `W+T`, `1-0`), for a game whose end
    /// the moves do not show; `None` reads the result off the final position.
    pub result: Option<String>,
    /// The date the game was played, `YYYY-MM-DD`.
    pub date: Option<String>,
    /// The game's number within its event, from 1.
    pub round: Option<usize>,
}

impl RecordTags {
    /// Tags naming the two players, all else unknown.
    pub fn with_players(first: impl Into<String>, second: impl Into<String>) -> RecordTags {
        RecordTags {
            players: [first.into(), second.into()],
            ..RecordTags::default()
        }
    }
}

/// `text` as an SGF SimpleText/Text value: `\` and `]` escaped, line breaks kept.
pub(crate) fn sgf_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\\' || c == ']' {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `text` as a PGN tag value (inside the quotes): `\` and `"` escaped, control
/// characters (line breaks, tabs) turned into spaces.
pub(crate) fn pgn_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' | '"' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// Joins `tokens` with single spaces into lines of at most `width` characters (a token
/// longer than that gets a line of its own).
pub(crate) fn wrap(tokens: &[String], width: usize) -> String {
    let mut text = String::new();
    let mut line_len = 0;
    for token in tokens {
        if line_len > 0 && line_len + 1 + token.len() > width {
            text.push('\n');
            line_len = 0;
        } else if line_len > 0 {
            text.push(' ');
            line_len += 1;
        }
        text.push_str(token);
        line_len += token.len();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_wraps() {
        assert_eq!(sgf_escape(r"a]b\c"), r"a\]b\\c");
        assert_eq!(pgn_escape("say \"hi\"\n\\"), r#"say \"hi\" \\"#);
        let tokens: Vec<String> = ["1.", "e4", "e5", "2.", "Nf3"]
            .iter()
            .map(|t| t.to_string())
            .collect();
        assert_eq!(wrap(&tokens, 9), "1. e4 e5\n2. Nf3");
        assert_eq!(wrap(&tokens, 2), "1.\ne4\ne5\n2.\nNf3");
    }
}
