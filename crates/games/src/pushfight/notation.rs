//! Push Fight notation, the text board, and positions written as square strings.

use std::fmt;

use super::geometry::{
    cell, cell_name, parse_cell, Direction, HEIGHT, NEIGHBOR, NUM_SQUARES, OFF, SQUARES, WIDTH,
};
use super::{Act, Piece, PushFight, NO_ANCHOR, PIECES_PER_PLAYER, SETUP_PLIES};
use crate::error::GameError;
use crate::outcome::{Action, Outcome, Player};

/// What a move looks like, for error messages.
const EXPECTED: &str = "a square to place (c3), c3-e2 to move, or d3>e3 to push from d3 to e3";

/// `c3` to place, `c3-e2` to move, `d3>e3` to push from d3 towards e3. A push towards a
/// square off the board (never legal) is written the oracle's way, `push c4 up`.
pub fn format_action(action: Action) -> String {
    match Act::of_action(action) {
        Act::Place(to) => cell_name(to),
        Act::Move(from, to) => format!("{}-{}", cell_name(from), cell_name(to)),
        Act::Push(from, direction) => match NEIGHBOR[from][direction.index()] {
            next if next < OFF => format!("{}>{}", cell_name(from), cell_name(next.into())),
            _ => format!("push {} {}", cell_name(from), direction.name()),
        },
    }
}

/// Reads [`format_action`]'s notation, and the oracle's `place c3`, `move c3-e2` and
/// `push d3 right`; any case, surrounding space ignored.
pub fn parse_action(text: &str) -> Result<Action, GameError> {
    let bad = || GameError::BadNotation {
        text: text.to_string(),
        expected: EXPECTED.to_string(),
    };
    let lower = text.trim().to_ascii_lowercase();
    let (kind, rest) = match lower.split_once(' ') {
        Some((kind @ ("place" | "move" | "push"), rest)) => (kind, rest.trim()),
        Some(_) => return Err(bad()),
        None => ("", lower.as_str()),
    };
    let at = |name: &str| parse_cell(name.trim()).ok_or_else(bad);
    let act = if let Some((from, to)) = rest.split_once('-') {
        if !matches!(kind, "" | "move") {
            return Err(bad());
        }
        Act::Move(at(from)?, at(to)?)
    } else if let Some((from, to)) = rest.split_once('>') {
        if !kind.is_empty() {
            return Err(bad());
        }
        let (from, to) = (at(from)?, at(to)?);
        let direction = Direction::ALL
            .into_iter()
            .find(|d| usize::from(NEIGHBOR[from][d.index()]) == to)
            .ok_or_else(bad)?;
        Act::Push(from, direction)
    } else if kind == "push" {
        let (from, name) = rest.split_once(' ').ok_or_else(bad)?;
        let direction = Direction::ALL
            .into_iter()
            .find(|d| d.name() == name.trim())
            .ok_or_else(bad)?;
        Act::Push(at(from)?, direction)
    } else {
        if !matches!(kind, "" | "place") {
            return Err(bad());
        }
        Act::Place(at(rest)?)
    };
    Ok(act.action())
}

/// The letter of a piece in board strings and the text board: `O`/`o` for the first
/// player's square/round, `X`/`x` for the second player's.
fn letter(piece: Option<Piece>) -> char {
    match piece {
        None => '.',
        Some(Piece { owner, pusher }) => {
            let letter = if owner == Player::FIRST { 'o' } else { 'x' };
            if pusher {
                letter.to_ascii_uppercase()
            } else {
                letter
            }
        }
    }
}

impl PushFight {
    /// The board as 26 letters in square-index order (`c4`..`g4`, `a3`..`h3`, `a2`..`h2`,
    /// `b1`..`f1`): `O`/`o` the first player's square/round pieces, `X`/`x` the second's,
    /// `.` empty. This is the "permutation string" of the rules document.
    pub fn board_string(&self) -> String {
        (0..NUM_SQUARES)
            .map(|s| letter(self.piece(cell(s))))
            .collect()
    }

    /// A position after setup from a [`PushFight::board_string`] (the oracle's `W`/`w`/
    /// `B`/`b` are read as `O`/`o`/`X`/`x`), the player to move, the moves it has left
    /// (0-2) and the anchored square (`None` before the first push). Each player must have
    /// three square and two round pieces, and the anchor must sit on a square piece of the
    /// player not to move. The ply count starts at 10 (after setup), the cap at its default.
    /// A mover without a legal action has lost already.
    pub fn try_from_board(
        board: &str,
        to_move: Player,
        moves_left: usize,
        anchor: Option<&str>,
    ) -> Result<PushFight, GameError> {
        let bad = |reason: String| GameError::BadPosition {
            text: format!("{board} {to_move} to move, {moves_left} moves left, anchor {anchor:?}"),
            reason,
        };
        let mut game = PushFight::new();
        game.set_board(board).map_err(bad)?;
        if moves_left > 2 {
            return Err(bad("at most 2 moves are left in a turn".to_string()));
        }
        if let Some(name) = anchor {
            let at = parse_cell(name.trim()).ok_or_else(|| bad(format!("no square {name}")))?;
            if game.pushers[to_move.opponent().index()] >> at & 1 == 0 {
                return Err(bad(format!(
                    "the anchor must be on a square piece of the {} player",
                    to_move.opponent()
                )));
            }
            game.anchor = at as u8;
        }
        game.placed = SETUP_PLIES;
        game.plies = u32::from(SETUP_PLIES);
        game.to_move = to_move;
        game.moves_left = moves_left as u8;
        game.hash = game.full_hash();
        if !game.has_legal_action() {
            game.outcome = Some(Outcome::Win(to_move.opponent()));
        }
        Ok(game)
    }

    /// Sets the pieces of a [`PushFight::board_string`] on this empty board; the reason
    /// when it is not one, or a player lacks pieces.
    fn set_board(&mut self, board: &str) -> Result<(), String> {
        let letters: Vec<char> = board.trim().chars().collect();
        if letters.len() != NUM_SQUARES {
            return Err(format!("{} squares, not {NUM_SQUARES}", letters.len()));
        }
        for (s, &ch) in letters.iter().enumerate() {
            let piece = |owner, pusher| Some(Piece { owner, pusher });
            let piece = match ch {
                '.' => None,
                'O' | 'W' => piece(Player::FIRST, true),
                'o' | 'w' => piece(Player::FIRST, false),
                'X' | 'B' => piece(Player::SECOND, true),
                'x' | 'b' => piece(Player::SECOND, false),
                _ => return Err(format!("'{ch}' is none of . O o X x")),
            };
            if let Some(piece) = piece {
                self.set_cell(cell(s), piece.code());
            }
        }
        for player in Player::ALL {
            let (all, pushers) = (self.occupied[player.index()], self.pushers[player.index()]);
            if all.count_ones() as usize != PIECES_PER_PLAYER || pushers.count_ones() != 3 {
                return Err(format!(
                    "the {player} player needs 3 square and 2 round pieces"
                ));
            }
        }
        Ok(())
    }
}

impl fmt::Display for PushFight {
    /// The board, rank 4 at the top, with the rails as `=` and the file letters below,
    /// then one line saying whose turn it is:
    ///
    /// ```text
    ///        =========
    /// 4      . O X . .
    /// 3  . . . o x X . .
    /// 2  . . O o x . . .
    /// 1    . . O X .
    ///      =========
    ///    a b c d e f g h
    /// first (O) to move: 2 moves left, then a push; no anchor
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "       =========")?;
        for row in 0..HEIGHT {
            let mut line = format!("{} ", HEIGHT - row);
            for file in 0..WIDTH {
                let c = row * WIDTH + file;
                line.push(' ');
                line.push(if SQUARES >> c & 1 == 1 {
                    letter(self.piece(c))
                } else {
                    ' '
                });
            }
            writeln!(f, "{}", line.trim_end())?;
        }
        writeln!(f, "     =========")?;
        writeln!(f, "   a b c d e f g h")?;
        let mark = if self.to_move == Player::FIRST {
            'O'
        } else {
            'X'
        };
        let anchor = match self.anchor {
            NO_ANCHOR => "no anchor".to_string(),
            at => format!("anchor {}", cell_name(at.into())),
        };
        match self.outcome {
            Some(Outcome::Win(player)) => write!(f, "{player} player won; {anchor}"),
            Some(Outcome::Draw) => write!(f, "draw at the ply cap ({})", self.max_plies),
            None if self.in_setup() => {
                let n = usize::from(self.placed) % PIECES_PER_PLAYER;
                let kind = if n < 3 { "square" } else { "round" };
                write!(f, "setup: {} ({mark}) places a {kind} piece", self.to_move)
            }
            None => write!(
                f,
                "{} ({mark}) to move: {} moves left, then a push; {anchor}",
                self.to_move, self.moves_left
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::geometry::square;
    use super::*;
    use crate::game::Game;

    #[test]
    fn every_action_formats_and_parses_back() {
        let mut seen = std::collections::HashSet::new();
        for action in 0..super::super::NUM_ACTIONS {
            let text = format_action(action);
            assert_eq!(parse_action(&text), Ok(action), "{text}");
            assert!(seen.insert(text));
        }
        assert_eq!(format_action(7), "c3");
        assert_eq!(format_action(26 + 6 * 26 + 14), "b3-b2");
        assert_eq!(format_action(702 + 16 * 4 + 2), "d2>e2");
        assert_eq!(format_action(702), "push c4 up");
        assert_eq!(square(parse_cell("f1").unwrap()), 25);
    }

    #[test]
    fn the_oracle_forms_parse() {
        for (text, ours) in [
            ("place c3", "c3"),
            ("move b3-b2", "b3-b2"),
            ("push d2 right", "d2>e2"),
            ("push f2 up", "f2>f3"),
            ("  PUSH E2 LEFT ", "e2>d2"),
            ("push c2 down", "c2>c1"),
        ] {
            assert_eq!(parse_action(text), parse_action(ours), "{text}");
            assert!(parse_action(ours).is_ok());
        }
    }

    #[test]
    fn garbage_is_a_one_line_error() {
        for text in [
            "",
            "zz9",
            "a1",
            "c3-",
            "c3-a1",
            "d3>f3",
            "d3>e2",
            "c3>c3",
            "place c3-e2",
            "move c3",
            "push d3 sideways",
            "push d3>e3",
            "jump c3",
            "c3 e2",
            "x",
            "h4",
        ] {
            let err = parse_action(text).unwrap_err();
            assert!(matches!(err, GameError::BadNotation { .. }), "{text}");
            assert!(!err.to_string().contains('\n'));
        }
    }

    #[test]
    fn board_strings_round_trip_and_are_checked() {
        let board = ".OX.....oxX....Oox.....OX.";
        let game = PushFight::try_from_board(board, Player::FIRST, 2, None).unwrap();
        assert_eq!(game.board_string(), board);
        let oracle = board
            .replace('O', "W")
            .replace('X', "B")
            .replace('o', "w")
            .replace('x', "b");
        let again = PushFight::try_from_board(&oracle, Player::FIRST, 2, None).unwrap();
        assert_eq!(again, game);
        let text = [
            "       =========",
            "4      . O X . .",
            "3  . . . o x X . .",
            "2  . . O o x . . .",
            "1    . . O X .",
            "     =========",
            "   a b c d e f g h",
            "first (O) to move: 2 moves left, then a push; no anchor",
        ];
        assert_eq!(game.to_string(), text.join("\n"));
        for (board, to_move, moves, anchor) in [
            (".OX.....oxX....Oox.....OX", Player::FIRST, 2, None),
            (".OX.....oxX....Oox.....OXO", Player::FIRST, 2, None),
            (".OX.....oxX....Oox.....Ox.", Player::FIRST, 2, None),
            (".OX.....oxX....Oox.....OX?", Player::FIRST, 2, None),
            (".OX.....oxX....Oox.....OX.", Player::FIRST, 3, None),
            (".OX.....oxX....Oox.....OX.", Player::FIRST, 2, Some("d4")),
            (".OX.....oxX....Oox.....OX.", Player::FIRST, 2, Some("e3")),
            (".OX.....oxX....Oox.....OX.", Player::FIRST, 2, Some("a1")),
        ] {
            let err = PushFight::try_from_board(board, to_move, moves, anchor).unwrap_err();
            assert!(matches!(err, GameError::BadPosition { .. }), "{board}");
            assert!(!err.to_string().contains('\n'));
        }
        let anchored = PushFight::try_from_board(board, Player::FIRST, 0, Some("e4")).unwrap();
        assert_eq!(anchored.anchor(), parse_cell("e4"));
        assert_ne!(Game::hash(&anchored), Game::hash(&game));
    }
}
