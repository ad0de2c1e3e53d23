//! Running a harness over seeded pseudo-random inputs (for `cargo test`).

use arbitrary::Unstructured;

/// SplitMix64: a tiny deterministic generator for test inputs.
pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next_u64() as u8).collect()
    }
}

/// Run `harness` `iterations` times on seeded inputs of up to `max_len` bytes.
pub fn run_seeded(
    iterations: u64,
    max_len: usize,
    harness: impl Fn(&mut Unstructured) -> arbitrary::Result<()>,
) {
    for seed in 0..iterations {
        let mut rng = SplitMix(seed);
        let len = (rng.next_u64() as usize) % max_len.max(1);
        let data = rng.bytes(len);
        let mut u = Unstructured::new(&data);
        // Running out of input is the normal end of an iteration.
        let _ = harness(&mut u);
    }
}
