//! Fuzz harnesses. Each is a `run(&mut Unstructured)` function: libFuzzer targets in
//! `fuzz_targets/` are a few lines of glue around them, and every one is also a `#[test]`
//! running seeded iterations, so `cargo test` exercises every harness on stable.

#![forbid(unsafe_code)]

pub mod decode_diff;
pub mod differential;
pub mod findings_log;
pub mod implementations;
pub mod lib_coverage;
pub mod lookup_diff;
pub mod oracle_small;
pub mod producer_cfi;
pub mod reference_robustness;
pub mod roundtrip;
pub mod seeded;
pub mod settings;
pub mod structured_diff;
pub mod summary;
