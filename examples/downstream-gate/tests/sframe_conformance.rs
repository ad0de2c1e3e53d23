//! `tiny-sframe` under the conformance gate of `sframe-harness`: the standard corpus (real
//! sections of GNU as and ld, generated ones of every version, ABI and layout, and their
//! mutations) decoded and looked up by this crate and by the reference, field by field; its
//! known deviations explained by its own findings ledger, or accepted by exact signature.

mod adapter;
mod gate;

#[test]
fn conforms() {
    let ledger = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/sframe-findings");
    gate::gate(ledger.as_ref()).assert();
}
