//! Every section generated under a swarm configuration is valid and round-trips.

use crate::check::check_valid;
use crate::{generate, Config};
use arbitrary::{Arbitrary, Unstructured};

pub fn run(u: &mut Unstructured) -> arbitrary::Result<()> {
    let cfg = Config::arbitrary(u)?;
    let g = generate(&cfg, u)?;
    if let Err(e) = check_valid(&g) {
        panic!("{e}\nconfig: {cfg:?}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn seeded() {
        crate::drivers::seeded::run_seeded(200, 8192, super::run);
    }
}
