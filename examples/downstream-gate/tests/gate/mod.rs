//! The gate `tiny-sframe` runs under, in its tests and its fuzz target: the crate's own
//! findings ledger (in `ledger`). A deviation that no quirk of the reference reproduces would
//! be accepted here by exact signature with the reason (`.accept(signature, reason)`).

use super::adapter::TinySframe;
use sframe_harness::prelude::*;
use std::path::Path;

pub fn gate(ledger: &Path) -> Gate<'static> {
    Gate::new(&TinySframe).ledger(ledger)
}
