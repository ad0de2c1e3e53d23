//! Every mutation of a generated section breaks exactly the rules it is tagged with, and
//! the reader fails on it exactly when one of them is a malformed-class rule.

use crate::check::check_mutated;
use crate::{generate, mutate, Config};
use arbitrary::{Arbitrary, Unstructured};

pub fn run(u: &mut Unstructured) -> arbitrary::Result<()> {
    // The mutation's choices come first, so that generation cannot use them up.
    let choice: [u8; 32] = u.arbitrary()?;
    let cfg = Config::arbitrary(u)?;
    let g = generate(&cfg, u)?;
    let m = mutate(&g, &mut Unstructured::new(&choice))?;
    super::check(check_mutated(&m, true), &cfg);
    Ok(())
}
