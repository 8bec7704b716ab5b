//! Move notation: UCI (`e2e4`, `e7e8q`, castling as `e1g1`) both ways, and standard algebraic
//! notation (SAN, `Nf3`, `exd6`, `O-O`, `e8=Q#`) for records.

use cozy_chess::{Board, File, Move, Piece, Rank, Square};

use super::actions::{self, Relative};
use crate::error::GameError;
use crate::outcome::Action;

/// What a UCI move looks like, for error messages.
const UCI_FORM: &str = "a UCI move such as e2e4, e7e8q or e1g1";

/// The UCI text of `action` in `board`: from-square, to-square and, for promotions, the
/// piece (`q`, `r`, `b`, `n`). Actions that leave the board print as `#<index>`.
pub(crate) fn format_uci(board: &Board, action: Action) -> String {
    let Some(relative) = actions::decode(action) else {
        return format!("#{action}");
    };
    let from = actions::absolute(board, relative.from);
    let to = actions::absolute(board, relative.to);
    let mut text = format!("{from}{to}");
    let promotion = relative.underpromotion.or_else(|| {
        let last_rank = Rank::Eighth.relative_to(board.side_to_move());
        (board.piece_on(from) == Some(Piece::Pawn) && to.rank() == last_rank)
            .then_some(Piece::Queen)
    });
    if let Some(piece) = promotion {
        text.push(char::from(piece));
    }
    text
}

/// Parses UCI text in `board`. Castling may also be written king-takes-rook (`e1h1`), and a
/// pawn reaching the last rank without a piece letter promotes to a queen. Legality is not
/// checked, only that the move has a shape of the action space.
pub(crate) fn parse_uci(board: &Board, text: &str) -> Result<Action, GameError> {
    let bad = |why: &str| GameError::BadNotation {
        text: text.to_string(),
        expected: format!("{UCI_FORM} ({why})"),
    };
    let trimmed = text.trim();
    if !trimmed.is_ascii() || !(4..=5).contains(&trimmed.len()) {
        return Err(bad("two squares and an optional promotion letter"));
    }
    let lower = trimmed.to_ascii_lowercase();
    let square = |s: &str| s.parse::<Square>().map_err(|_| bad("bad square"));
    let from = square(&lower[0..2])?;
    let mut to = square(&lower[2..4])?;
    let promotion = match lower.as_bytes().get(4) {
        None => None,
        Some(b'q') => Some(Piece::Queen),
        Some(b'r') => Some(Piece::Rook),
        Some(b'b') => Some(Piece::Bishop),
        Some(b'n') => Some(Piece::Knight),
        Some(_) => return Err(bad("the promotion piece is one of q, r, b, n")),
    };
    let mover = board.side_to_move();
    let ours = board.colors(mover);
    if board.piece_on(from) == Some(Piece::King) && ours.has(from) && ours.has(to) {
        // King takes own rook: castling in the Chess960 style.
        let rights = board.castle_rights(mover);
        if from.rank() == to.rank()
            && (Some(to.file()) == rights.short || Some(to.file()) == rights.long)
        {
            let file = if to.file() > from.file() {
                File::G
            } else {
                File::C
            };
            to = Square::new(file, from.rank());
        }
    }
    let (from_index, to_index) = (actions::relative(board, from), actions::relative(board, to));
    if promotion.is_some() && !(from_index / 8 == 6 && to_index / 8 == 7) {
        return Err(bad("only a move to the last rank promotes"));
    }
    actions::encode(Relative {
        from: from_index,
        to: to_index,
        underpromotion: promotion.filter(|&p| p != Piece::Queen),
    })
    .ok_or_else(|| bad("not a queen-line, knight or promotion move"))
}

/// The SAN of `mv`, which must be legal in `board` (castling written king-takes-rook).
pub(crate) fn san(board: &Board, mv: Move) -> String {
    let mover = board.side_to_move();
    let piece = board
        .piece_on(mv.from)
        .expect("a legal move starts on a piece");
    let mut text = String::new();
    if piece == Piece::King && board.colors(mover).has(mv.to) {
        text.push_str(if mv.to.file() > mv.from.file() {
            "O-O"
        } else {
            "O-O-O"
        });
    } else {
        let pawn_capture = piece == Piece::Pawn && mv.from.file() != mv.to.file();
        if piece != Piece::Pawn {
            text.push(char::from(piece).to_ascii_uppercase());
            text.push_str(&disambiguation(board, piece, mv));
        } else if pawn_capture {
            text.push(char::from(mv.from.file()));
        }
        if pawn_capture || board.piece_on(mv.to).is_some() {
            text.push('x');
        }
        text.push_str(&mv.to.to_string());
        if let Some(promotion) = mv.promotion {
            text.push('=');
            text.push(char::from(promotion).to_ascii_uppercase());
        }
    }
    let mut after = board.clone();
    after.play_unchecked(mv);
    if !after.checkers().is_empty() {
        text.push(if after.generate_moves(|_| true) {
            '+'
        } else {
            '#'
        });
    }
    text
}

/// The file, rank or square that tells `mv` apart from other legal moves of a `piece` to
/// the same square (FIDE: file if that is enough, else rank, else both).
fn disambiguation(board: &Board, piece: Piece, mv: Move) -> String {
    let mut others = Vec::new();
    let mask = board.colored_pieces(board.side_to_move(), piece);
    board.generate_moves_for(mask, |moves| {
        if moves.from != mv.from && moves.to.has(mv.to) {
            others.push(moves.from);
        }
        false
    });
    if others.is_empty() {
        String::new()
    } else if others.iter().all(|s| s.file() != mv.from.file()) {
        char::from(mv.from.file()).to_string()
    } else if others.iter().all(|s| s.rank() != mv.from.rank()) {
        char::from(mv.from.rank()).to_string()
    } else {
        mv.from.to_string()
    }
}

/// `san` without the check and annotation marks (`+`, `#`, `!`, `?`), with `0-0` read as
/// `O-O`: the form two SAN strings are compared in.
pub(crate) fn san_core(text: &str) -> String {
    text.trim()
        .trim_end_matches(['+', '#', '!', '?'])
        .replace('0', "O")
}
