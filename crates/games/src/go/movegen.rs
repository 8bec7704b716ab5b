//! Move generation on bitboards: captures, suicide, the superko hash of each move, and
//! area counting. Every routine runs on the fewest 64-bit words that hold the board
//! (`by_words!`), one word up to 8x8.

use super::bits::{Bits, MAX_WORDS};
use super::{Geometry, Go};
use crate::zobrist::cell_key;

/// Calls `$self.$method::<W>(args)`, `W` the fewest 64-bit words that hold the board, so
/// that the bitboard loops of small boards run over one word instead of six.
macro_rules! by_words {
    ($self:ident . $method:ident ( $($arg:expr),* )) => {
        match $self.words() {
            1 => $self.$method::<1>($($arg),*),
            2 => $self.$method::<2>($($arg),*),
            3 => $self.$method::<3>($($arg),*),
            4 => $self.$method::<4>($($arg),*),
            5 => $self.$method::<5>($($arg),*),
            _ => $self.$method::<MAX_WORDS>($($arg),*),
        }
    };
}

impl Go {
    /// [`Go::area`], on the fewest words.
    pub(super) fn tromp_taylor_area(&self) -> [u32; 2] {
        by_words!(self.area_in())
    }

    /// The geometry and the stones in `W` words.
    #[inline]
    fn narrow<const W: usize>(&self) -> (Geometry<W>, [Bits<W>; 2]) {
        (self.geometry().resize(), self.stones.map(|s| s.resize()))
    }

    /// [`Go::area`] in `W` words.
    fn area_in<const W: usize>(&self) -> [u32; 2] {
        let (geometry, stones) = self.narrow::<W>();
        let empty = geometry.board & !(stones[0] | stones[1]);
        let reach = |own: Bits<W>| geometry.flood(geometry.neighbours(own) & empty, empty);
        let (black, white) = (reach(stones[0]), reach(stones[1]));
        [
            stones[0].count() + (black & !white).count(),
            stones[1].count() + (white & !black).count(),
        ]
    }

    /// The hash of the board after the mover plays on `point`, or `None` when the point is
    /// taken or the move would be suicide. Superko is not checked.
    pub(super) fn board_hash_after(&self, point: usize) -> Option<u64> {
        by_words!(self.board_hash_after_in(point))
    }

    /// [`Go::board_hash_after`] in `W` words.
    #[inline]
    fn board_hash_after_in<const W: usize>(&self, point: usize) -> Option<u64> {
        let (geometry, stones) = self.narrow::<W>();
        let me = self.to_move.index();
        let (own, opponent) = (stones[me], stones[1 - me]);
        if (own | opponent).contains(point) {
            return None;
        }
        let stone = Bits::single(point);
        let empty_after = geometry.board & !(own | opponent | stone);
        let mut hash = self.board_hash ^ cell_key(me, point);
        let mut captures = false;
        let mut adjacent = geometry.neighbours(stone) & opponent;
        while let Some(next) = adjacent.first() {
            let group = geometry.flood(Bits::single(next), opponent);
            if (geometry.neighbours(group) & empty_after).is_empty() {
                hash ^= group_hash(1 - me, group);
                captures = true;
            }
            adjacent &= !group;
        }
        if !captures {
            let group = geometry.flood(stone, own | stone);
            if (geometry.neighbours(group) & empty_after).is_empty() {
                return None;
            }
        }
        Some(hash)
    }

    /// Calls `visit(point, banned)` for every empty point, in increasing order, where the
    /// mover's stone would not be suicide; `banned` says superko forbids it.
    pub(super) fn scan_moves(&self, visit: impl FnMut(usize, bool)) {
        by_words!(self.scan_moves_in(visit))
    }

    /// [`Go::scan_moves`] in `W` words.
    fn scan_moves_in<const W: usize>(&self, mut visit: impl FnMut(usize, bool)) {
        let (geometry, stones) = self.narrow::<W>();
        let me = self.to_move.index();
        let (own, opponent) = (stones[me], stones[1 - me]);
        let empty = geometry.board & !(own | opponent);
        // Liberties of own groups with two or more: playing there keeps a liberty.
        let mut safe = Bits::EMPTY;
        let mut rest = own;
        while let Some(point) = rest.first() {
            let group = geometry.flood(Bits::single(point), own);
            let liberties = geometry.neighbours(group) & empty;
            if liberties.has_two() {
                safe |= liberties;
            }
            rest &= !group;
        }
        // The last liberty of each opponent group in atari: playing there captures.
        let mut atari = Bits::EMPTY;
        let mut rest = opponent;
        while let Some(point) = rest.first() {
            let group = geometry.flood(Bits::single(point), opponent);
            let liberties = geometry.neighbours(group) & empty;
            if !liberties.has_two() {
                atari |= liberties;
            }
            rest &= !group;
        }
        let breathing = geometry.neighbours(empty);
        for point in empty.iter() {
            let captures = atari.contains(point);
            if !(captures || breathing.contains(point) || safe.contains(point)) {
                continue;
            }
            let hash = if captures {
                self.board_hash_after_in::<W>(point)
                    .expect("a move that captures is never suicide")
            } else {
                self.board_hash ^ cell_key(me, point)
            };
            visit(point, self.history.contains(hash));
        }
    }

    /// Plays a stone on `point` for the mover and removes what it captures.
    pub(super) fn place(&mut self, point: usize) {
        by_words!(self.place_in(point))
    }

    /// [`Go::place`] in `W` words.
    fn place_in<const W: usize>(&mut self, point: usize) {
        let me = self.to_move.index();
        self.stones[me].insert(point);
        self.board_hash ^= cell_key(me, point);
        let (geometry, stones) = self.narrow::<W>();
        let opponent = stones[1 - me];
        let empty = geometry.board & !(stones[0] | stones[1]);
        let mut adjacent = geometry.neighbours(Bits::single(point)) & opponent;
        while let Some(next) = adjacent.first() {
            let group = geometry.flood(Bits::single(next), opponent);
            if (geometry.neighbours(group) & empty).is_empty() {
                self.stones[1 - me] &= !group.resize::<MAX_WORDS>();
                self.board_hash ^= group_hash(1 - me, group);
            }
            adjacent &= !group;
        }
    }
}

/// The Zobrist keys of `player`'s stones in `group`, combined.
fn group_hash<const W: usize>(player: usize, group: Bits<W>) -> u64 {
    group
        .iter()
        .fold(0, |hash, point| hash ^ cell_key(player, point))
}

/// The Zobrist hash of a board.
pub(super) fn stones_hash(stones: [Bits; 2]) -> u64 {
    group_hash(0, stones[0]) ^ group_hash(1, stones[1])
}
