//! `structured_diff`: the fuzzer's bytes drive the generator (`sframe-gen`): a swarm
//! configuration, a valid section of any version, ABI and byte order, and, half of the time,
//! a mutation tagged with the rules it breaks; then every implementation as in `decode_diff`.
//! This reaches deep states (many functions, flex FDEs, PC-mask rows, 4-byte data words)
//! that raw bytes rarely do.

use arbitrary::{Arbitrary, Unstructured};
use sframe_gen::{generate, mutate, Config};

pub fn run(u: &mut Unstructured) -> arbitrary::Result<()> {
    let malformed: bool = u.arbitrary()?;
    // The mutation's choices come first, so that generation cannot use them up.
    let choice: [u8; 32] = u.arbitrary()?;
    let cfg = Config::arbitrary(u)?;
    let g = generate(&cfg, u)?;
    let bytes = if malformed {
        mutate(&g, &mut Unstructured::new(&choice))?.bytes
    } else {
        g.bytes
    };
    crate::differential::check(&bytes, "structured_diff");
    Ok(())
}

crate::seeded_test!(differential 300, 4096);
