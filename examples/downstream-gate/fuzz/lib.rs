//! The body of `tiny-sframe`'s fuzz target: one input, read as raw section bytes, as an
//! arbitrary valid section or as a mutation of one (`sframe-gen`'s `Arbitrary`), put through
//! the crate's own gate; a discrepancy neither its ledger nor its acceptances cover panics.

use arbitrary::{Arbitrary, Unstructured};
use sframe_gen::{Generated, Mutated};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

#[path = "../tests/adapter/mod.rs"]
mod adapter;
#[path = "../tests/gate/mod.rs"]
mod gate;

/// The crate's ledger: `$SFRAME_GATE_LEDGER`, else `sframe-findings` beside the fuzz binary
/// (where `.clusterfuzzlite/build.sh` puts it), else the source tree's.
fn ledger() -> PathBuf {
    if let Some(d) = std::env::var_os("SFRAME_GATE_LEDGER") {
        return d.into();
    }
    let beside = std::env::current_exe()
        .ok()
        .and_then(|e| Some(e.parent()?.join("sframe-findings")));
    match beside {
        Some(d) if d.is_dir() => d,
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/sframe-findings"),
    }
}

/// Check one input.
pub fn run(data: &[u8]) {
    static GATE: OnceLock<sframe_harness::gate::Gate<'static>> = OnceLock::new();
    let gate = GATE.get_or_init(|| gate::gate(&ledger()));
    let mut u = Unstructured::new(data);
    let section = match u.int_in_range(0..=2u8).unwrap_or(0) {
        0 => u.take_rest().to_vec(),
        1 => Generated::arbitrary(&mut u).map_or_else(|_| Vec::new(), |g| g.bytes),
        _ => Mutated::arbitrary(&mut u).map_or_else(|_| Vec::new(), |m| m.bytes),
    };
    if let Err(listing) = gate.check_input("fuzz", &section) {
        panic!("{listing}");
    }
}
