//! Running a driver over seeded pseudo-random inputs, for `cargo test`.

use crate::corpus::SplitMix;
use arbitrary::Unstructured;

/// Run `driver` `iterations` times on inputs of up to `max_len` bytes from seeds
/// `0..iterations`. Running out of input is a normal end of an iteration.
pub fn run_seeded(
    iterations: u64,
    max_len: usize,
    driver: impl Fn(&mut Unstructured) -> arbitrary::Result<()>,
) {
    for seed in 0..iterations {
        let mut rng = SplitMix::new(seed);
        let len = (rng.next_u64() as usize) % max_len.max(1);
        let data = rng.bytes(len);
        let _ = driver(&mut Unstructured::new(&data));
    }
}
