//! The AlphaZero action encoding: 64 from-squares x 73 move types = 4672 actions.
//!
//! Squares are seen from the mover's side: the board is mirrored top to bottom for black
//! (rank `r` becomes `7 - r`, files stay), so square `rank * 8 + file` has the mover's back
//! rank as rank 0 and "north" always points at the opponent. See the module docs of
//! [`crate::chess`] for the full layout.

use cozy_chess::{Board, File, Move, Piece, Rank, Square};

use crate::outcome::Action;

/// Move types per from-square: 56 queen-like, 8 knight, 9 underpromotions.
pub const NUM_MOVE_TYPES: usize = 73;
/// The size of the action space, `64 * 73`.
pub const NUM_ACTIONS: usize = 64 * NUM_MOVE_TYPES;

/// The first knight move type.
const KNIGHT_BASE: usize = 56;
/// The first underpromotion move type.
const UNDERPROMOTION_BASE: usize = 64;

/// `(file, rank)` steps of the eight queen directions, clockwise from north (towards the
/// opponent): N, NE, E, SE, S, SW, W, NW.
const DIRECTIONS: [(i8, i8); 8] = [
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
    (-1, 0),
    (-1, 1),
];

/// `(file, rank)` jumps of the eight knight moves, clockwise from north-north-east.
const KNIGHT_JUMPS: [(i8, i8); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];

/// The underpromotion pieces in move-type order.
const UNDERPROMOTIONS: [Piece; 3] = [Piece::Knight, Piece::Bishop, Piece::Rook];

/// A move in the mover's frame: squares `0..64` with the mover's back rank as rank 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Relative {
    pub from: usize,
    pub to: usize,
    /// A knight, bishop or rook promotion; queen promotions are plain queen-like moves.
    pub underpromotion: Option<Piece>,
}

/// The action of a move in the mover's frame, or `None` if no move type has its shape
/// (not a queen line, not a knight jump, or an underpromotion that is not one step forward).
pub(crate) fn encode(relative: Relative) -> Option<Action> {
    let (from, to) = (relative.from, relative.to);
    if from >= 64 || to >= 64 || from == to {
        return None;
    }
    let df = (to % 8) as i8 - (from % 8) as i8;
    let dr = (to / 8) as i8 - (from / 8) as i8;
    let move_type = if let Some(piece) = relative.underpromotion {
        let index = UNDERPROMOTIONS.iter().position(|&p| p == piece)?;
        if dr != 1 || df.abs() > 1 {
            return None;
        }
        UNDERPROMOTION_BASE + index * 3 + (df + 1) as usize
    } else if let Some(jump) = KNIGHT_JUMPS.iter().position(|&j| j == (df, dr)) {
        KNIGHT_BASE + jump
    } else if df == 0 || dr == 0 || df.abs() == dr.abs() {
        let direction = DIRECTIONS
            .iter()
            .position(|&d| d == (df.signum(), dr.signum()))
            .expect("a non-zero straight or diagonal step has one of the eight directions");
        let distance = df.abs().max(dr.abs()) as usize;
        direction * 7 + distance - 1
    } else {
        return None;
    };
    Some(from * NUM_MOVE_TYPES + move_type)
}

/// The move of `action` in the mover's frame, or `None` when it leaves the board.
pub(crate) fn decode(action: Action) -> Option<Relative> {
    if action >= NUM_ACTIONS {
        return None;
    }
    let (from, move_type) = (action / NUM_MOVE_TYPES, action % NUM_MOVE_TYPES);
    let (file, rank) = ((from % 8) as i8, (from / 8) as i8);
    let (df, dr, underpromotion) = if move_type < KNIGHT_BASE {
        let (sf, sr) = DIRECTIONS[move_type / 7];
        let distance = (move_type % 7) as i8 + 1;
        (sf * distance, sr * distance, None)
    } else if move_type < UNDERPROMOTION_BASE {
        let (df, dr) = KNIGHT_JUMPS[move_type - KNIGHT_BASE];
        (df, dr, None)
    } else {
        let index = move_type - UNDERPROMOTION_BASE;
        ((index % 3) as i8 - 1, 1, Some(UNDERPROMOTIONS[index / 3]))
    };
    let (to_file, to_rank) = (file + df, rank + dr);
    if !(0..8).contains(&to_file) || !(0..8).contains(&to_rank) {
        return None;
    }
    Some(Relative {
        from,
        to: (to_rank * 8 + to_file) as usize,
        underpromotion,
    })
}

/// The square of index `index` in the mover's frame of `board`, as an absolute square.
#[inline]
pub(crate) fn absolute(board: &Board, index: usize) -> Square {
    Square::index(index).relative_to(board.side_to_move())
}

/// The index in the mover's frame of absolute square `square`.
#[inline]
pub(crate) fn relative(board: &Board, square: Square) -> usize {
    square.relative_to(board.side_to_move()) as usize
}

/// The action of a move from cozy-chess's generator (castling written king-takes-rook).
#[inline]
pub(crate) fn move_to_action(board: &Board, mv: Move) -> Action {
    let mut to = mv.to;
    if board.colors(board.side_to_move()).has(to) {
        // Castling: the king lands on the g- or c-file.
        let file = if to.file() > mv.from.file() {
            File::G
        } else {
            File::C
        };
        to = Square::new(file, mv.from.rank());
    }
    let underpromotion = mv.promotion.filter(|&p| p != Piece::Queen);
    encode(Relative {
        from: relative(board, mv.from),
        to: relative(board, to),
        underpromotion,
    })
    .expect("every chess move has a queen, knight or underpromotion shape")
}

/// The cozy-chess move (castling as king-takes-rook) that `action` stands for in `board`, or
/// `None` when it leaves the board. The move need not be legal.
pub(crate) fn action_to_move(board: &Board, action: Action) -> Option<Move> {
    let relative_move = decode(action)?;
    let from = absolute(board, relative_move.from);
    let mut to = absolute(board, relative_move.to);
    let mover = board.side_to_move();
    let mut promotion = relative_move.underpromotion;
    match board.piece_on(from) {
        Some(Piece::King)
            if board.color_on(from) == Some(mover)
                && from.rank() == to.rank()
                && (from.file() as i8 - to.file() as i8).abs() == 2 =>
        {
            let rights = board.castle_rights(mover);
            let rook = if to.file() > from.file() {
                rights.short
            } else {
                rights.long
            };
            if let Some(rook) = rook {
                to = Square::new(rook, from.rank());
            }
        }
        Some(Piece::Pawn)
            if promotion.is_none() && to.rank() == Rank::Eighth.relative_to(mover) =>
        {
            promotion = Some(Piece::Queen);
        }
        _ => {}
    }
    Some(Move {
        from,
        to,
        promotion,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_inverts_encode_on_the_board() {
        let mut on_board = 0;
        for action in 0..NUM_ACTIONS {
            if let Some(relative) = decode(action) {
                on_board += 1;
                assert_eq!(encode(relative), Some(action), "{relative:?}");
            }
        }
        // 1456 queen-like and 336 knight moves stay on the board; from the seven lower ranks,
        // three pieces times three directions, less the a- and h-file diagonals.
        let underpromotions = 7 * (8 * 3 - 2) * 3;
        assert_eq!(on_board, 1456 + 336 + underpromotions);
    }

    #[test]
    fn layout_examples() {
        let e2 = 12;
        // e2e4 is north, distance 2: move type 1.
        let action = encode(Relative {
            from: e2,
            to: 28,
            underpromotion: None,
        });
        assert_eq!(action, Some(e2 * 73 + 1));
        // g1f3 (from 6 to 21) is the knight jump (-1, +2), the last one.
        let action = encode(Relative {
            from: 6,
            to: 21,
            underpromotion: None,
        });
        assert_eq!(action, Some(6 * 73 + 63));
        // e7xd8=N: underpromotion to a knight towards the a-file.
        let action = encode(Relative {
            from: 52,
            to: 59,
            underpromotion: Some(Piece::Knight),
        });
        assert_eq!(action, Some(52 * 73 + 64));
        assert_eq!(
            encode(Relative {
                from: 0,
                to: 19,
                underpromotion: None
            }),
            None
        );
    }
}
