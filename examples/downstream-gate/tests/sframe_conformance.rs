//! `tiny-sframe` under the conformance gate of `sframe-harness`: the standard corpus (real
//! sections of GNU as and ld, generated ones of every version, ABI and layout, and their
//! mutations) decoded and looked up by this crate and by the reference, field by field; its
//! known deviations explained by its own findings ledger, or accepted by exact signature.

mod adapter;
use sframe_harness::prelude::*;

const OVERLAP: &str = "overlapping functions (an invalid section): the last one in FDE order \
                       that contains the PC, where the reference takes the last to start";

#[test]
fn conforms() {
    Gate::new(&adapter::TinySframe)
        .ledger(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/sframe-findings"
        ))
        .accept("diff:tiny-sframe:v2:find_fre:overlap.fre_start", OVERLAP)
        .accept(
            "diff:tiny-sframe:v2:find_fre:overlap.function_start",
            OVERLAP,
        )
        .accept(
            "diff:tiny-sframe:v3-pcrel:find_fre:overlap.fre_start",
            OVERLAP,
        )
        .accept(
            "diff:tiny-sframe:v3-pcrel:find_fre:overlap.function_start",
            OVERLAP,
        )
        .accept("diff:tiny-sframe:v3:find_fre:overlap.extra", OVERLAP)
        .assert();
}
