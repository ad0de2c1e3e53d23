//! Fuzz drivers: each is a plain `run(&mut Unstructured) -> arbitrary::Result<()>` that
//! panics when a property fails, usable as the body of a libFuzzer target and run from a
//! seeded `#[test]` (wasm-tools style; see [`seeded::run_seeded`]).

pub mod malformed;
pub mod seeded;
pub mod valid;
