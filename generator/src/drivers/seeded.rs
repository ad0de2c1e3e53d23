//! Running a driver over seeded pseudo-random inputs, for `cargo test`.

use crate::rng::SplitMix64;
use arbitrary::Unstructured;

/// Run `driver` `iterations` times on inputs of up to `max_len` bytes from seeds
/// `0..iterations`. Running out of input is a normal end of an iteration.
pub fn run_seeded(
    iterations: u64,
    max_len: usize,
    driver: impl Fn(&mut Unstructured) -> arbitrary::Result<()>,
) {
    for seed in 0..iterations {
        let mut rng = SplitMix64::new(seed);
        let len = rng.index(max_len);
        let data = rng.bytes(len);
        let _ = driver(&mut Unstructured::new(&data));
    }
}
