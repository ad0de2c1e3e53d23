//! Every section generated under a swarm configuration is valid and round-trips.

use crate::check::check_valid;
use crate::{generate, Config};
use arbitrary::{Arbitrary, Unstructured};

pub fn run(u: &mut Unstructured) -> arbitrary::Result<()> {
    let cfg = Config::arbitrary(u)?;
    let g = generate(&cfg, u)?;
    super::check(check_valid(&g), &cfg);
    Ok(())
}
