//! The Push Fight board: 26 squares on a 4 x 8 grid, the rails, and the two index orders.
//!
//! Internally a square is a *cell*, a bit of a `u32`: `cell = row * 8 + file` with row 0 the
//! top rank (4) and file 0 the `a` file, so that the whole grid fits one word and a step is
//! a shift. The observation uses the same cell numbering. The action ids and the oracle use
//! the *square index* `0..26` of Verver's solver: reading order from rank 4 down, which is
//! the cells of [`SQUARES`] in increasing order.
//!
//! ```text
//!           a  b  c  d  e  f  g  h
//!                 ===============        rail above c4..g4
//!   rank 4        c4 d4 e4 f4 g4         cells  2..6   squares  0..4
//!   rank 3  a3 b3 c3 d3 e3 f3 g3 h3      cells  8..15  squares  5..12
//!   rank 2  a2 b2 c2 d2 e2 f2 g2 h2      cells 16..23  squares 13..20
//!   rank 1     b1 c1 d1 e1 f1            cells 25..29  squares 21..25
//!              ===============           rail below b1..f1
//! ```
//!
//! The 180° rotation (file `a`↔`h`, rank 1↔4) maps the board onto itself: on cells it is
//! `31 - cell` (`u32::reverse_bits` on masks), on square indices `25 - index`, and it
//! swaps up with down and left with right. The board has no mirror symmetry.

/// Files across the grid (`a`..`h`).
pub const WIDTH: usize = 8;
/// Ranks up the grid (1..4).
pub const HEIGHT: usize = 4;
/// Cells of the grid, board squares or not.
pub const NUM_CELLS: usize = WIDTH * HEIGHT;
/// Squares of the board.
pub const NUM_SQUARES: usize = 26;

/// The 26 board squares as a cell mask.
pub const SQUARES: u32 = 0x3EFF_FF7C;
/// The squares with a rail on one side: c4..g4 and b1..f1.
pub const RAIL_SQUARES: u32 = 0x3E00_007C;
/// Files `a`..`d`: where the first player sets up.
pub const LEFT_HALF: u32 = 0x0F0F_0F0F & SQUARES;
/// Files `e`..`h`: where the second player sets up.
pub const RIGHT_HALF: u32 = 0xF0F0_F0F0 & SQUARES;

/// The `a` file's cells.
const FILE_A: u32 = 0x0101_0101;
/// The `h` file's cells.
const FILE_H: u32 = 0x8080_8080;

/// A direction of a push. The discriminants are the ones in push action ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Towards rank 4.
    Up = 0,
    /// Towards the `a` file.
    Left = 1,
    /// Towards the `h` file.
    Right = 2,
    /// Towards rank 1.
    Down = 3,
}

impl Direction {
    /// The four directions, in action-id order.
    pub const ALL: [Direction; 4] = [
        Direction::Up,
        Direction::Left,
        Direction::Right,
        Direction::Down,
    ];

    /// The direction's index in push action ids.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The direction with this index; `index < 4`.
    pub fn from_index(index: usize) -> Direction {
        Direction::ALL[index]
    }

    /// The opposite direction, which is also its image under the 180° rotation.
    pub fn reverse(self) -> Direction {
        Direction::from_index(3 - self.index())
    }

    /// The name the oracle's strings use: `up`, `left`, `right`, `down`.
    pub fn name(self) -> &'static str {
        ["up", "left", "right", "down"][self.index()]
    }
}

/// What lies one step from a square: another square's cell (`< 32`), [`OFF`] or [`RAIL`].
pub type Step = u8;
/// The step leaves the board over an open edge: a piece pushed there falls off.
pub const OFF: Step = 32;
/// The step runs into a rail: nothing can be pushed there.
pub const RAIL: Step = 33;

/// `NEIGHBOR[cell][direction]`: what lies one step from each board square (unused for cells
/// off the board).
pub const NEIGHBOR: [[Step; 4]; NUM_CELLS] = neighbors();

const fn neighbors() -> [[Step; 4]; NUM_CELLS] {
    let deltas: [(i32, i32); 4] = [(-1, 0), (0, -1), (0, 1), (1, 0)];
    let mut table = [[OFF; 4]; NUM_CELLS];
    let mut cell = 0;
    while cell < NUM_CELLS {
        let (row, file) = ((cell / WIDTH) as i32, (cell % WIDTH) as i32);
        let mut d = 0;
        while d < 4 {
            let (r, f) = (row + deltas[d].0, file + deltas[d].1);
            table[cell][d] = if r < 0 || r >= HEIGHT as i32 {
                // Above rank 4 or below rank 1: every square there has a rail on that side.
                RAIL
            } else if f < 0 || f >= WIDTH as i32 {
                OFF
            } else {
                let next = (r * WIDTH as i32 + f) as usize;
                if SQUARES >> next & 1 == 1 {
                    next as Step
                } else {
                    OFF
                }
            };
            d += 1;
        }
        cell += 1;
    }
    table
}

/// The cells one orthogonal step from any cell of `set` (board squares or not).
#[inline]
pub fn spread(set: u32) -> u32 {
    ((set << 1) & !FILE_A) | ((set >> 1) & !FILE_H) | (set << 8) | (set >> 8)
}

/// The empty squares reachable from `cell` by orthogonal steps through `empty`, which must
/// not contain `cell`.
#[inline]
pub fn reachable(cell: usize, empty: u32) -> u32 {
    let mut reach = 0;
    let mut frontier = spread(1 << cell) & empty;
    while frontier != 0 {
        reach |= frontier;
        frontier = spread(frontier) & empty & !reach;
    }
    reach
}

/// `SQUARE_OF_CELL[cell]`: the square index (`0..26`) of a board cell, [`NOT_A_SQUARE`] for
/// the six cells off the board.
pub const SQUARE_OF_CELL: [u8; NUM_CELLS] = square_of_cell();
/// The entry of [`SQUARE_OF_CELL`] for cells off the board.
pub const NOT_A_SQUARE: u8 = u8::MAX;
/// `CELL_OF_SQUARE[index]`: the cell of square index `index`.
pub const CELL_OF_SQUARE: [u8; NUM_SQUARES] = cell_of_square();

const fn square_of_cell() -> [u8; NUM_CELLS] {
    let mut table = [NOT_A_SQUARE; NUM_CELLS];
    let (mut cell, mut index) = (0, 0);
    while cell < NUM_CELLS {
        if SQUARES >> cell & 1 == 1 {
            table[cell] = index;
            index += 1;
        }
        cell += 1;
    }
    table
}

const fn cell_of_square() -> [u8; NUM_SQUARES] {
    let mut table = [0; NUM_SQUARES];
    let mut cell = 0;
    while cell < NUM_CELLS {
        if SQUARES >> cell & 1 == 1 {
            table[SQUARE_OF_CELL[cell] as usize] = cell as u8;
        }
        cell += 1;
    }
    table
}

/// The square index of a board cell.
#[inline]
pub fn square(cell: usize) -> usize {
    debug_assert!(SQUARES >> cell & 1 == 1, "cell {cell} is off the board");
    SQUARE_OF_CELL[cell] as usize
}

/// The cell of a square index.
#[inline]
pub fn cell(square: usize) -> usize {
    CELL_OF_SQUARE[square] as usize
}

/// The name of a grid cell, `a1`..`h4` (also for the six cells off the board).
pub fn cell_name(cell: usize) -> String {
    let file = (b'a' + (cell % WIDTH) as u8) as char;
    let rank = HEIGHT - cell / WIDTH;
    format!("{file}{rank}")
}

/// The cell of a square name such as `c3` (either case); `None` for anything else,
/// the six missing squares (`a1`, `a4`, `b4`, `g1`, `h1`, `h4`) included.
pub fn parse_cell(text: &str) -> Option<usize> {
    match text.as_bytes() {
        &[file, rank] => {
            let file = file.to_ascii_lowercase();
            if !(b'a'..=b'h').contains(&file) || !(b'1'..=b'4').contains(&rank) {
                return None;
            }
            let cell = (HEIGHT - usize::from(rank - b'0')) * WIDTH + usize::from(file - b'a');
            (SQUARES >> cell & 1 == 1).then_some(cell)
        }
        _ => None,
    }
}

/// The bits of `mask`, lowest first.
#[inline]
pub fn bits(mut mask: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let bit = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            bit
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_board_has_26_squares_in_the_oracle_order() {
        assert_eq!(SQUARES.count_ones(), 26);
        assert_eq!(LEFT_HALF.count_ones(), 13);
        assert_eq!(RIGHT_HALF.count_ones(), 13);
        assert_eq!(RAIL_SQUARES.count_ones(), 10);
        let names: Vec<String> = (0..NUM_SQUARES).map(|s| cell_name(cell(s))).collect();
        assert_eq!(
            names.join(" "),
            "c4 d4 e4 f4 g4 a3 b3 c3 d3 e3 f3 g3 h3 a2 b2 c2 d2 e2 f2 g2 h2 b1 c1 d1 e1 f1"
        );
        for s in 0..NUM_SQUARES {
            assert_eq!(square(cell(s)), s);
            assert_eq!(parse_cell(&cell_name(cell(s))), Some(cell(s)));
            // The 180° rotation.
            assert_eq!(square(31 - cell(s)), 25 - s);
        }
        for missing in [
            "a1", "a4", "b4", "g1", "h1", "h4", "i2", "c0", "c5", "c", "c33",
        ] {
            assert_eq!(parse_cell(missing), None, "{missing}");
        }
        assert_eq!(SQUARES.reverse_bits(), SQUARES);
        assert_eq!(RAIL_SQUARES.reverse_bits(), RAIL_SQUARES);
        assert_eq!(LEFT_HALF.reverse_bits(), RIGHT_HALF);
    }

    #[test]
    fn exactly_the_documented_exits_are_open() {
        // (square, directions in which a piece there falls off), from the rules' table.
        let exits = [
            ("a2", "left down"),
            ("a3", "left up"),
            ("h2", "right down"),
            ("h3", "right up"),
            ("b3", "up"),
            ("c4", "left"),
            ("g4", "right"),
            ("g2", "down"),
            ("b1", "left"),
            ("f1", "right"),
        ];
        let mut open = 0;
        for c in bits(SQUARES) {
            for d in Direction::ALL {
                let step = NEIGHBOR[c][d.index()];
                let listed = exits
                    .iter()
                    .any(|(s, dirs)| *s == cell_name(c) && dirs.contains(d.name()));
                assert_eq!(step == OFF, listed, "{} {}", cell_name(c), d.name());
                open += usize::from(step == OFF);
                let railed = (d == Direction::Up && c < 8) || (d == Direction::Down && c >= 24);
                assert_eq!(step == RAIL, railed, "{} {}", cell_name(c), d.name());
                // The rotation maps steps onto steps.
                let image = NEIGHBOR[31 - c][d.reverse().index()];
                match step {
                    OFF | RAIL => assert_eq!(image, step),
                    next => assert_eq!(image as usize, 31 - next as usize),
                }
            }
        }
        assert_eq!(open, 14);
    }

    #[test]
    fn reachable_squares_go_round_corners_but_not_through_pieces() {
        let at = |name: &str| parse_cell(name).unwrap();
        let mask = |names: &str| names.split_whitespace().map(|n| 1u32 << at(n)).sum::<u32>();
        // A corridor d4-c4 and c3: from d4 every square of it, nothing else.
        let empty = mask("c4 c3 c2");
        assert_eq!(reachable(at("d4"), empty), mask("c4 c3 c2"));
        // a3's only neighbours are b3 and a2: blocked, nothing is reachable.
        assert_eq!(reachable(at("a3"), SQUARES & !mask("b3 a2 a3")), 0);
        // No wrap from the h file to the a file of the next rank.
        assert_eq!(reachable(at("h3"), mask("a2")), 0);
        assert_eq!(reachable(at("a3"), mask("h3")), 0);
        assert_eq!(spread(1 << at("h3")) & SQUARES, mask("h2 g3"));
    }
}
