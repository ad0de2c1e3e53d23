//! The one pseudo-random generator of the workspace: SplitMix64 (Steele, Lea, Flood 2014),
//! small, fast and the same sequence on every machine, so that every seeded run (generated
//! corpora, `diff --generate` havoc, the emulator's register and heap fill, the seeded fuzz
//! tests) is reproducible from its seed whatever the thread count.

/// SplitMix64.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub const fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    /// A generator for one of several independent streams, named by `a` and `b`.
    pub fn derive(seed: u64, a: u64, b: u64) -> SplitMix64 {
        let mut r = SplitMix64(seed ^ a.rotate_left(17) ^ b.rotate_left(41));
        r.next_u64();
        r
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`0` when `n` is `0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// An index into something of `len` items (`0` when `len` is `0`).
    pub fn index(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }

    /// True with probability `num / den`.
    pub fn chance(&mut self, num: u64, den: u64) -> bool {
        self.below(den) < num
    }

    /// Fill `buf`: each output in turn, little-endian, the last one cut short.
    pub fn fill(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(8) {
            let v = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    }

    /// `n` pseudo-random bytes, as [`fill`](Self::fill) makes them.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        let mut out = vec![0; n];
        self.fill(&mut out);
        out
    }

    /// Input bytes for item `index` of a run seeded with `seed`, stream `stream` (0 for
    /// generation, 1 for mutation): each item and stream has its own sequence, so item `i`
    /// does not depend on how many items come before it, and generation (which may use up
    /// its input) leaves the mutation choices intact.
    pub fn input(seed: u64, index: u64, stream: u64) -> Vec<u8> {
        let mut rng = SplitMix64::new(
            seed ^ index.wrapping_mul(0xd1b5_4a32_d192_ed03)
                ^ stream.wrapping_mul(0x8cb9_2ba7_2f3d_8dd7),
        );
        rng.next_u64();
        let len = 256 + (rng.next_u64() % 8192) as usize;
        rng.bytes(len)
    }
}

#[cfg(test)]
mod tests {
    use super::SplitMix64;

    #[test]
    fn bytes_are_the_outputs_in_little_endian() {
        let mut a = SplitMix64::new(5);
        let mut b = SplitMix64::new(5);
        let bytes = a.bytes(11);
        let first = b.next_u64().to_le_bytes();
        let second = b.next_u64().to_le_bytes();
        assert_eq!(&bytes[..8], &first);
        assert_eq!(&bytes[8..], &second[..3]);
    }

    #[test]
    fn splitmix_is_the_reference_sequence() {
        // First outputs of SplitMix64 seeded with 0 (Vigna's reference implementation).
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(r.next_u64(), 0x6e78_9e6a_a1b9_65f4);
    }

    #[test]
    fn item_inputs_are_independent_of_the_count() {
        assert_eq!(SplitMix64::input(7, 3, 0), SplitMix64::input(7, 3, 0));
        assert_ne!(SplitMix64::input(7, 3, 0), SplitMix64::input(7, 4, 0));
        assert_ne!(SplitMix64::input(7, 3, 0), SplitMix64::input(8, 3, 0));
        assert_ne!(SplitMix64::input(7, 3, 0), SplitMix64::input(7, 3, 1));
    }
}
