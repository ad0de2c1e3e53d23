//! The gate's own promises: a deviation fails it until a ledger explains it or the test
//! accepts its exact signature, and an acceptance that matches nothing fails it as stale.

use sframe_harness::prelude::*;

mod common;

use common::NoV1;

fn gate() -> Gate<'static> {
    Gate::new(&NoV1::Refuses).corpus(Corpus::builtin())
}

fn fails(g: Gate<'static>) -> String {
    let e = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| g.assert()))
        .expect_err("the gate passed");
    e.downcast_ref::<String>().cloned().unwrap_or_default()
}

const DECODE: &str = "rejected-valid:no-v1-reader:v1:decode:no-v1";
const FIND: &str = "rejected-valid:no-v1-reader:v1:find_fre:no-v1";

#[test]
fn a_deviation_fails_the_gate_until_its_exact_signature_is_accepted() {
    let listing = fails(gate());
    assert!(listing.contains(DECODE), "{listing}");
    gate()
        .accept(DECODE, "no v1 here")
        .accept(FIND, "no v1 here")
        .assert();
    // Accepting one signature leaves the other one failing.
    let listing = fails(gate().accept(DECODE, "no v1 here"));
    assert!(!listing.contains(&format!("  {DECODE} ")), "{listing}");
}

#[test]
fn an_acceptance_nothing_matches_is_stale() {
    let stale = "rejected-valid:no-v1-reader:v2:decode:no-v1";
    let listing = fails(
        gate()
            .accept(DECODE, "no v1 here")
            .accept(FIND, "no v1 here")
            .accept(stale, "never seen"),
    );
    assert!(
        listing.contains("accepted but not seen") && listing.contains(stale),
        "{listing}"
    );
}
