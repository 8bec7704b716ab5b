//! Bitboards for Go boards up to 19x19: one bit per point, `row * size + col`, with no
//! padding; the column masks of [`Geometry`] stop shifts from wrapping round the edges.

use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, Not};

/// Words in a stored bitboard: 6 * 64 = 384 >= 19 * 19 = 361 points.
pub(crate) const MAX_WORDS: usize = 6;

/// A set of board points in `W` 64-bit words. Positions store `Bits<MAX_WORDS>`; the hot
/// paths work on the first `W` words only, `W` the fewest that hold the board (one up to
/// 8x8), which makes them several times faster on small boards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Bits<const W: usize = MAX_WORDS>([u64; W]);

impl<const W: usize> Bits<W> {
    /// The empty set.
    pub(crate) const EMPTY: Bits<W> = Bits([0; W]);

    /// The set holding only `point`.
    #[inline]
    pub(crate) fn single(point: usize) -> Bits<W> {
        let mut bits = Bits::EMPTY;
        bits.insert(point);
        bits
    }

    /// The same set in `V` words (points beyond them are dropped; none are, where used).
    #[inline]
    pub(crate) fn resize<const V: usize>(self) -> Bits<V> {
        Bits(std::array::from_fn(|i| if i < W { self.0[i] } else { 0 }))
    }

    /// Whether `point` is in the set.
    #[inline]
    pub(crate) fn contains(&self, point: usize) -> bool {
        self.0[point / 64] >> (point % 64) & 1 == 1
    }

    /// Adds `point`.
    #[inline]
    pub(crate) fn insert(&mut self, point: usize) {
        self.0[point / 64] |= 1 << (point % 64);
    }

    /// Whether the set is empty.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    /// The number of points in the set.
    #[inline]
    pub(crate) fn count(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }

    /// Whether the set holds at least two points.
    #[inline]
    pub(crate) fn has_two(&self) -> bool {
        let mut seen = false;
        for &w in &self.0 {
            if w != 0 {
                if seen || w & (w - 1) != 0 {
                    return true;
                }
                seen = true;
            }
        }
        false
    }

    /// The lowest point in the set.
    #[inline]
    pub(crate) fn first(&self) -> Option<usize> {
        self.0
            .iter()
            .position(|&w| w != 0)
            .map(|i| i * 64 + self.0[i].trailing_zeros() as usize)
    }

    /// The points in increasing order.
    #[inline]
    pub(crate) fn iter(self) -> impl Iterator<Item = usize> {
        self.0.into_iter().enumerate().flat_map(|(i, mut word)| {
            std::iter::from_fn(move || {
                (word != 0).then(|| {
                    let bit = word.trailing_zeros() as usize;
                    word &= word - 1;
                    i * 64 + bit
                })
            })
        })
    }

    /// Every point moved up by `k` (`0 < k < 64`).
    #[inline]
    fn shl(self, k: u32) -> Bits<W> {
        Bits(std::array::from_fn(|i| {
            let carry = if i > 0 { self.0[i - 1] >> (64 - k) } else { 0 };
            self.0[i] << k | carry
        }))
    }

    /// Every point moved down by `k` (`0 < k < 64`).
    #[inline]
    fn shr(self, k: u32) -> Bits<W> {
        Bits(std::array::from_fn(|i| {
            let carry = if i + 1 < W {
                self.0[i + 1] << (64 - k)
            } else {
                0
            };
            self.0[i] >> k | carry
        }))
    }
}

impl<const W: usize> BitAnd for Bits<W> {
    type Output = Bits<W>;
    #[inline]
    fn bitand(self, other: Bits<W>) -> Bits<W> {
        Bits(std::array::from_fn(|i| self.0[i] & other.0[i]))
    }
}

impl<const W: usize> BitOr for Bits<W> {
    type Output = Bits<W>;
    #[inline]
    fn bitor(self, other: Bits<W>) -> Bits<W> {
        Bits(std::array::from_fn(|i| self.0[i] | other.0[i]))
    }
}

impl<const W: usize> Not for Bits<W> {
    type Output = Bits<W>;
    #[inline]
    fn not(self) -> Bits<W> {
        Bits(self.0.map(|w| !w))
    }
}

impl<const W: usize> BitAndAssign for Bits<W> {
    #[inline]
    fn bitand_assign(&mut self, other: Bits<W>) {
        *self = *self & other;
    }
}

impl<const W: usize> BitOrAssign for Bits<W> {
    #[inline]
    fn bitor_assign(&mut self, other: Bits<W>) {
        *self = *self | other;
    }
}

/// The masks of one board size, in `W` words.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Geometry<const W: usize = MAX_WORDS> {
    /// The side of the board.
    size: u32,
    /// Every point of the board.
    pub(crate) board: Bits<W>,
    /// Every point but the first column.
    not_first_col: Bits<W>,
    /// Every point but the last column.
    not_last_col: Bits<W>,
}

impl Geometry {
    /// The masks for a `size` x `size` board, `size <= 19`.
    const fn new(size: usize) -> Geometry {
        let mut board = [0u64; MAX_WORDS];
        let mut not_first_col = [0u64; MAX_WORDS];
        let mut not_last_col = [0u64; MAX_WORDS];
        let mut point = 0;
        while point < size * size {
            let bit = 1u64 << (point % 64);
            board[point / 64] |= bit;
            if point % size != 0 {
                not_first_col[point / 64] |= bit;
            }
            if point % size != size - 1 {
                not_last_col[point / 64] |= bit;
            }
            point += 1;
        }
        Geometry {
            size: size as u32,
            board: Bits(board),
            not_first_col: Bits(not_first_col),
            not_last_col: Bits(not_last_col),
        }
    }

    /// The geometry of a `size` x `size` board, `1 <= size <= 19`.
    #[inline]
    pub(crate) fn of(size: usize) -> &'static Geometry {
        &GEOMETRIES[size]
    }

    /// The same masks in `V` words, enough to hold the board.
    #[inline]
    pub(crate) fn resize<const V: usize>(&self) -> Geometry<V> {
        Geometry {
            size: self.size,
            board: self.board.resize(),
            not_first_col: self.not_first_col.resize(),
            not_last_col: self.not_last_col.resize(),
        }
    }
}

impl<const W: usize> Geometry<W> {
    /// The points next to some point of `set` (`set`'s own points only where they are next
    /// to another point of it).
    #[inline]
    pub(crate) fn neighbours(&self, set: Bits<W>) -> Bits<W> {
        let n = self.size;
        (set.shl(1) & self.not_first_col)
            | (set.shr(1) & self.not_last_col)
            | (set.shl(n) & self.board)
            | set.shr(n)
    }

    /// The points of `within` connected to `seed` through `within`; `seed` must lie in it.
    #[inline]
    pub(crate) fn flood(&self, seed: Bits<W>, within: Bits<W>) -> Bits<W> {
        let mut region = seed;
        loop {
            let next = (region | self.neighbours(region)) & within;
            if next == region {
                return region;
            }
            region = next;
        }
    }
}

/// The geometries of boards `0..=19` (sizes below 1 are never used).
static GEOMETRIES: [Geometry; 20] = {
    let mut all = [Geometry::new(1); 20];
    let mut size = 1;
    while size < 20 {
        all[size] = Geometry::new(size);
        size += 1;
    }
    all
};

#[cfg(test)]
mod tests {
    use super::*;

    /// The neighbours computed naively from coordinates.
    fn naive_neighbours(size: usize, point: usize) -> Vec<usize> {
        let (row, col) = ((point / size) as isize, (point % size) as isize);
        let mut out: Vec<usize> = [(0, 1), (0, -1), (1, 0), (-1, 0)]
            .iter()
            .map(|(dr, dc)| (row + dr, col + dc))
            .filter(|&(r, c)| r >= 0 && c >= 0 && r < size as isize && c < size as isize)
            .map(|(r, c)| r as usize * size + c as usize)
            .collect();
        out.sort_unstable();
        out
    }

    #[test]
    fn neighbours_stay_on_the_board() {
        for size in [5, 7, 8, 9, 13, 19] {
            let geometry = Geometry::of(size);
            assert_eq!(geometry.board.count() as usize, size * size);
            for point in 0..size * size {
                let got: Vec<usize> = geometry.neighbours(Bits::single(point)).iter().collect();
                assert_eq!(
                    got,
                    naive_neighbours(size, point),
                    "size {size} point {point}"
                );
                if size * size <= 64 {
                    let narrow = geometry.resize::<1>();
                    let got: Vec<usize> = narrow.neighbours(Bits::single(point)).iter().collect();
                    assert_eq!(got, naive_neighbours(size, point), "one word, size {size}");
                }
            }
        }
    }

    #[test]
    fn set_operations() {
        let mut set: Bits = Bits::EMPTY;
        assert!(set.is_empty() && set.first().is_none() && !set.has_two());
        set.insert(300);
        assert!(!set.has_two());
        set.insert(5);
        assert!(set.has_two());
        assert_eq!(set.iter().collect::<Vec<_>>(), [5, 300]);
        assert_eq!(set.first(), Some(5));
        assert_eq!(set.count(), 2);
        assert!(set.contains(300) && !set.contains(301));
        let geometry = Geometry::of(19);
        let line = geometry.flood(Bits::single(0), geometry.board & !Bits::single(19));
        assert_eq!(line.count(), 360);
    }
}
