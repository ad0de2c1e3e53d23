//! `lookup_diff`: a generated valid section plus PCs the fuzzer chooses (near function and
//! row boundaries, inside PC-mask repetitions, or anywhere): the row each implementation
//! finds, and its CFA/RA/FP rules, against the reference.

use arbitrary::{Arbitrary, Unstructured};
use sframe_gen::{generate, Config};

pub fn run(u: &mut Unstructured) -> arbitrary::Result<()> {
    let cfg = Config::arbitrary(u)?;
    let g = generate(&cfg, u)?;
    let s = &g.section;
    let n = u.int_in_range(1..=24)?;
    let mut pcs = Vec::with_capacity(n);
    for _ in 0..n {
        let pc = match (s.functions.is_empty(), u.int_in_range(0..=7)?) {
            (true, _) | (false, 0) => i64::from(u.arbitrary::<i32>()?),
            (false, k) => {
                let f = u.choose(&s.functions)?;
                let size = i64::from(f.size);
                let near = match k {
                    1 => -1,
                    2 => size,
                    3 => size - 1,
                    4 if !f.fres.is_empty() => {
                        i64::from(u.choose(&f.fres)?.start) + i64::from(u.int_in_range(-1i8..=1)?)
                    }
                    5 if f.rep_size > 0 => {
                        i64::from(f.rep_size) * i64::from(u.int_in_range(0u8..=8)?)
                            + i64::from(u.int_in_range(0..=f.rep_size)?)
                    }
                    _ => u.int_in_range(0..=size.max(0))?,
                };
                // Starts are section-relative in the model, as the engine's PCs are.
                f.start.saturating_add(near)
            }
        };
        pcs.push(pc);
    }
    crate::differential::check_at(&g.bytes, &pcs, "lookup_diff");
    Ok(())
}

crate::seeded_test!(differential 300, 4096);
