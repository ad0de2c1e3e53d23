//! Running a harness over seeded pseudo-random inputs (for `cargo test`).

use arbitrary::Unstructured;
use sframe_gen::rng::SplitMix64;

/// Run `harness` `iterations` times on seeded inputs of up to `max_len` bytes.
pub fn run_seeded(
    iterations: u64,
    max_len: usize,
    harness: impl Fn(&mut Unstructured) -> arbitrary::Result<()>,
) {
    for seed in 0..iterations {
        let mut rng = SplitMix64::new(seed);
        let len = rng.index(max_len);
        // One byte an output, its lowest: the inputs these tests have always been given.
        let data: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        // Running out of input is the normal end of an iteration.
        let _ = harness(&mut Unstructured::new(&data));
    }
}

/// The `#[test]` of a harness `run` in the module where it is invoked: `seeded_test!(N,
/// MAX_LEN)` runs it on `N` seeded inputs of up to `MAX_LEN` bytes; `seeded_test!(differential
/// N, MAX_LEN)` first requires every implementation the differential targets compare.
#[macro_export]
macro_rules! seeded_test {
    (differential $n:expr, $max_len:expr) => {
        #[cfg(test)]
        mod tests {
            #[test]
            fn seeded() {
                $crate::differential::require_all();
                $crate::seeded::run_seeded($n, $max_len, super::run);
            }
        }
    };
    ($n:expr, $max_len:expr) => {
        #[cfg(test)]
        mod tests {
            #[test]
            fn seeded() {
                $crate::seeded::run_seeded($n, $max_len, super::run);
            }
        }
    };
}
