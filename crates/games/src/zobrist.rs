//! Zobrist keys computed at compile time from a fixed seed, so hashes agree across runs and
//! machines.

/// SplitMix64, usable in const context.
const fn splitmix(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (state, z ^ (z >> 31))
}

/// `N` keys drawn from SplitMix64 starting at `seed`.
pub const fn keys<const N: usize>(seed: u64) -> [u64; N] {
    let mut out = [0u64; N];
    let mut state = seed;
    let mut i = 0;
    while i < N {
        let (next, key) = splitmix(state);
        state = next;
        out[i] = key;
        i += 1;
    }
    out
}

/// One key for each (piece kind, cell) pair on boards up to 19x19 with up to 4 piece kinds,
/// plus side-to-move and spare keys at the end.
pub static CELL_KEYS: [u64; 4 * 512 + 64] = keys(0x7A65_726F_7375_6D21);

/// The key for piece kind `kind` (0..4) on cell `cell` (0..512).
#[inline]
pub fn cell_key(kind: usize, cell: usize) -> u64 {
    CELL_KEYS[kind * 512 + cell]
}

/// Spare keys for side to move and small game-specific state, `index < 64`.
#[inline]
pub fn extra_key(index: usize) -> u64 {
    CELL_KEYS[4 * 512 + index]
}
