//! Fuzz drivers: each is a plain `run(&mut Unstructured) -> arbitrary::Result<()>` that
//! panics when a property fails, usable as the body of a libFuzzer target and run from a
//! seeded `#[test]` (wasm-tools style; see [`seeded::run_seeded`]).

pub mod malformed;
pub mod seeded;
pub mod valid;

use crate::Config;

/// Fail a driver: the property's message and the configuration that broke it.
fn check(checked: Result<(), String>, cfg: &Config) {
    if let Err(e) = checked {
        panic!("{e}\nconfig: {cfg:?}");
    }
}

#[cfg(test)]
mod tests {
    use super::{malformed, seeded::run_seeded, valid};

    #[test]
    fn valid_seeded() {
        run_seeded(200, 8192, valid::run);
    }

    #[test]
    fn malformed_seeded() {
        run_seeded(200, 8192, malformed::run);
    }
}
