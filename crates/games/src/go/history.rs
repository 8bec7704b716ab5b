//! The record a Go position keeps for positional superko: the hash of every board the game
//! has seen, and the moves that led here (so that a symmetric image can be rebuilt).
//!
//! Positions share one record behind an `Arc` and copy it only when a shared record grows
//! (copy on write): cloning a position is a reference-count increment, and a line of moves
//! played on one clone pushes in place after the first.

use std::fmt;
use std::sync::Arc;

use super::bits::Bits;
use crate::outcome::Player;

/// Bits in the Bloom filter that spares most membership tests a scan.
const BLOOM_BITS: usize = 2048;

/// The boards seen so far and the moves since the start.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct History {
    /// The stones at the start, indexed by [`Player::index`] (empty unless set up).
    pub(crate) start: [Bits; 2],
    /// The player to move at the start.
    pub(crate) start_to_move: Player,
    /// The board hash of the start position.
    start_hash: u64,
    /// Each action since the start, with the hash of the board it left.
    entries: Vec<(u64, u16)>,
    /// Two bits per board hash seen (the start's and every entry's).
    bloom: [u64; BLOOM_BITS / 64],
}

impl History {
    /// A record that starts from `start` with board hash `start_hash`.
    pub(crate) fn new(start: [Bits; 2], start_to_move: Player, start_hash: u64) -> History {
        let mut history = History {
            start,
            start_to_move,
            start_hash,
            entries: Vec::new(),
            bloom: [0; BLOOM_BITS / 64],
        };
        history.mark(start_hash);
        history
    }

    /// The two filter bits of `hash`.
    #[inline]
    fn bloom_bits(hash: u64) -> [usize; 2] {
        [
            (hash >> 53) as usize % BLOOM_BITS,
            (hash >> 32) as usize % BLOOM_BITS,
        ]
    }

    fn mark(&mut self, hash: u64) {
        for bit in Self::bloom_bits(hash) {
            self.bloom[bit / 64] |= 1 << (bit % 64);
        }
    }

    /// Whether a board with hash `hash` has occurred in the game.
    #[inline]
    pub(crate) fn contains(&self, hash: u64) -> bool {
        Self::bloom_bits(hash)
            .iter()
            .all(|&bit| self.bloom[bit / 64] >> (bit % 64) & 1 == 1)
            && (hash == self.start_hash || self.entries.iter().any(|&(h, _)| h == hash))
    }

    /// The actions since the start.
    pub(crate) fn actions(&self) -> impl Iterator<Item = usize> + '_ {
        self.entries.iter().map(|&(_, action)| usize::from(action))
    }

    /// Records `action`, which left a board with hash `hash`, in the record behind `shared`,
    /// copying it first if other positions share it.
    #[inline]
    pub(crate) fn push(shared: &mut Arc<History>, action: usize, hash: u64) {
        if Arc::get_mut(shared).is_none() {
            let old: &History = shared;
            let mut entries = Vec::with_capacity(old.entries.len() + 32);
            entries.extend_from_slice(&old.entries);
            *shared = Arc::new(History { entries, ..*old });
        }
        let history = Arc::get_mut(shared).expect("the record was just made unique");
        history.entries.push((hash, action as u16));
        history.mark(hash);
    }
}

impl fmt::Debug for History {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "History {{ start_hash: {:#x}, moves: {} }}",
            self.start_hash,
            self.entries.len()
        )
    }
}
