//! The observation planes, from the mover's side (see the module docs of [`crate::chess`]).

use cozy_chess::{BitBoard, Board, Color, Piece};

/// Positions in the observation: the current one and the one before it.
pub const HISTORY: usize = 2;
/// Planes per position: six of the mover's piece kinds, six of the opponent's, and one
/// "this position occurred before" plane.
pub const PLANES_PER_POSITION: usize = 13;
/// Planes that hold one number each: colour, four castling rights, no-progress count and
/// move count.
pub const CONSTANT_PLANES: usize = 7;
/// All planes: `2 * 13 + 7 = 33`.
pub const NUM_PLANES: usize = HISTORY * PLANES_PER_POSITION + CONSTANT_PLANES;

/// Where the pieces stood, as cozy-chess keeps them: 64 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Placement {
    colors: [BitBoard; Color::NUM],
    pieces: [BitBoard; Piece::NUM],
}

impl Placement {
    /// The pieces of `board`.
    pub fn of(board: &Board) -> Placement {
        Placement {
            colors: Color::ALL.map(|c| board.colors(c)),
            pieces: Piece::ALL.map(|p| board.pieces(p)),
        }
    }

    /// Writes the twelve piece planes, `mover`'s pieces first, each mirrored top to bottom
    /// when `mover` is black, into `out` (`[12 * 64]`, already zero).
    fn write(&self, mover: Color, out: &mut [f32]) {
        let flip = if mover == Color::White { 0 } else { 56 };
        for (side, color) in [mover, !mover].into_iter().enumerate() {
            for (kind, &pieces) in self.pieces.iter().enumerate() {
                let plane = &mut out[(side * 6 + kind) * 64..][..64];
                for square in pieces & self.colors[color as usize] {
                    plane[square as usize ^ flip] = 1.0;
                }
            }
        }
    }
}

/// What the observation needs beyond the board.
pub(crate) struct Extras<'a> {
    /// Whether the current position occurred before.
    pub repeated: bool,
    /// The position before this one and whether it had occurred before it, if known.
    pub previous: Option<(&'a Placement, bool)>,
    /// Plies played, and the ply cap (0 for none) that scales them.
    pub ply: u32,
    pub max_plies: u32,
}

/// The ply count that scales the move-count plane when there is no cap.
const UNCAPPED_SCALE: f32 = 1024.0;

/// Writes the observation of `board` into `out`, `[NUM_PLANES * 64]`.
pub(crate) fn write(board: &Board, extras: &Extras<'_>, out: &mut [f32]) {
    let out = &mut out[..NUM_PLANES * 64];
    out.fill(0.0);
    let mover = board.side_to_move();
    let (current, rest) = out.split_at_mut(PLANES_PER_POSITION * 64);
    Placement::of(board).write(mover, current);
    if extras.repeated {
        current[12 * 64..].fill(1.0);
    }
    let (previous, constants) = rest.split_at_mut(PLANES_PER_POSITION * 64);
    if let Some((placement, repeated)) = extras.previous {
        placement.write(mover, previous);
        if repeated {
            previous[12 * 64..].fill(1.0);
        }
    }
    let rights = |color: Color| {
        let rights = board.castle_rights(color);
        [rights.short.is_some(), rights.long.is_some()]
    };
    let [own_short, own_long] = rights(mover);
    let [their_short, their_long] = rights(!mover);
    let scale = if extras.max_plies > 0 {
        extras.max_plies as f32
    } else {
        UNCAPPED_SCALE
    };
    let values = [
        if mover == Color::Black { 1.0 } else { 0.0 },
        f32::from(u8::from(own_short)),
        f32::from(u8::from(own_long)),
        f32::from(u8::from(their_short)),
        f32::from(u8::from(their_long)),
        f32::from(board.halfmove_clock()) / 100.0,
        (extras.ply as f32 / scale).min(1.0),
    ];
    for (plane, value) in constants.chunks_exact_mut(64).zip(values) {
        plane.fill(value);
    }
}
