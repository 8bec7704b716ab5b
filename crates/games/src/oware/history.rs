//! The boards seen since the last capture, for the repetition rule.
//!
//! A persistent linked list behind [`Arc`]: cloning a position shares the list (one atomic
//! increment), and `push` allocates one node. Positions without the repetition rule keep
//! the list empty and never allocate. Equality, hashing and dropping walk the list in a
//! loop, never by recursion, so long lists cannot overflow the stack.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// One board as the repetition rule compares it: the twelve houses, then the mover's index.
/// Scores need no place: the list is emptied at every capture, so they are equal along it.
pub(super) type BoardKey = [u8; 13];

/// The boards seen since the last capture, newest first, with a hash of the set.
#[derive(Clone, Default)]
pub(super) struct Seen {
    head: Option<Arc<Node>>,
    len: u32,
    /// XOR of [`key_hash`] over the boards held: a hash of the set, order aside.
    set_hash: u64,
}

struct Node {
    board: BoardKey,
    next: Option<Arc<Node>>,
}

impl Drop for Node {
    fn drop(&mut self) {
        // Unlink iteratively: dropping a long chain by recursion could overflow the stack.
        let mut next = self.next.take();
        while let Some(node) = next {
            match Arc::try_unwrap(node) {
                Ok(mut node) => next = node.next.take(),
                Err(_) => break,
            }
        }
    }
}

/// A 64-bit hash of one board key (FNV-1a, then a SplitMix64 finaliser).
pub(super) fn key_hash(board: &BoardKey) -> u64 {
    let mut hash = 0xCBF2_9CE4_8422_2325u64;
    for &byte in board {
        hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01B3);
    }
    mix(hash)
}

/// The SplitMix64 finaliser: spreads every input bit over the output.
pub(super) fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Seen {
    /// Forgets every board (after a capture).
    pub(super) fn clear(&mut self) {
        *self = Seen::default();
    }

    /// Whether `board` was seen.
    pub(super) fn contains(&self, board: &BoardKey) -> bool {
        self.iter().any(|seen| seen == board)
    }

    /// Records `board`, which must not be held yet.
    pub(super) fn push(&mut self, board: BoardKey) {
        debug_assert!(!self.contains(&board));
        self.set_hash ^= key_hash(&board);
        self.len += 1;
        self.head = Some(Arc::new(Node {
            board,
            next: self.head.take(),
        }));
    }

    /// A hash of the set of boards held.
    pub(super) fn set_hash(&self) -> u64 {
        self.set_hash
    }

    /// How many boards are held.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.len as usize
    }

    fn iter(&self) -> impl Iterator<Item = &BoardKey> {
        std::iter::successors(self.head.as_deref(), |node| node.next.as_deref())
            .map(|node| &node.board)
    }
}

impl PartialEq for Seen {
    fn eq(&self, other: &Seen) -> bool {
        if self.len != other.len || self.set_hash != other.set_hash {
            return false;
        }
        let (mut a, mut b) = (&self.head, &other.head);
        loop {
            match (a, b) {
                (None, None) => return true,
                (Some(x), Some(y)) if Arc::ptr_eq(x, y) => return true,
                (Some(x), Some(y)) if x.board == y.board => (a, b) = (&x.next, &y.next),
                _ => return false,
            }
        }
    }
}

impl Eq for Seen {}

impl Hash for Seen {
    fn hash<H: Hasher>(&self, state: &mut H) {
        // Equal lists hold equal sets.
        self.set_hash.hash(state);
    }
}

impl fmt::Debug for Seen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Seen({} boards)", self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(n: u8) -> BoardKey {
        let mut board = [0; 13];
        board[0] = n;
        board
    }

    #[test]
    fn lists_compare_by_content_and_drop_without_recursion() {
        let mut a = Seen::default();
        for n in 0..5 {
            a.push(key(n));
        }
        let mut b = a.clone();
        assert_eq!(a, b);
        assert!(b.contains(&key(3)) && !b.contains(&key(9)));
        b.push(key(9));
        assert_ne!(a, b);
        let mut c = Seen::default();
        for n in 0..5 {
            c.push(key(n));
        }
        assert_eq!(a, c);
        assert_eq!(a.set_hash(), c.set_hash());
        c.clear();
        assert_eq!(c.len(), 0);
        let mut long = Seen::default();
        for n in 0..300_000u32 {
            let mut board = [0; 13];
            board[..4].copy_from_slice(&n.to_le_bytes());
            long.head = Some(Arc::new(Node {
                board,
                next: long.head.take(),
            }));
        }
        drop(long);
    }
}
