//! The gate's own promises: a deviation fails it until a ledger explains it or the test
//! accepts its exact signature, and an acceptance that matches nothing fails it as stale.

use sframe_harness::impls::reference::Reference;
use sframe_harness::prelude::*;

/// The reference, but refusing every version 1 section it is given (it claims to read them).
struct NoV1;

fn is_v1(data: &[u8]) -> bool {
    data.get(2) == Some(&1)
}

impl Implementation for NoV1 {
    fn name(&self) -> String {
        "no-v1-reader".into()
    }
    fn version(&self) -> String {
        "0".into()
    }
    fn supports(&self, _: Version) -> bool {
        true
    }
    fn decode(&self, data: &[u8]) -> Outcome<Decoded> {
        if is_v1(data) {
            return Outcome::rejected("no-v1", None);
        }
        Reference.decode(data)
    }
    fn find_fre(&self, data: &[u8], pc: i64) -> Outcome<Option<Found>> {
        if is_v1(data) {
            return Outcome::rejected("no-v1", None);
        }
        Reference.find_fre(data, pc)
    }
}

fn gate() -> Gate<'static> {
    Gate::new(&NoV1).corpus(Corpus::builtin())
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
