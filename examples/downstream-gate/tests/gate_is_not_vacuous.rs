//! The gate of `sframe_conformance.rs` is not vacuous: without the crate's ledger its known
//! deviations fail it, each of them is one the ledger records, and the parser
//! agrees with the reference on every built-in little-endian v2/v3 section.

mod adapter;
use sframe_harness::diff::Status;
use sframe_harness::prelude::*;
use sframe_harness::signature::{ErrorClass, Signature};

#[test]
fn without_the_ledger_the_known_deviations_fail_the_gate() {
    let gate = Gate::new(&adapter::TinySframe);
    let report = gate.run();
    let unexplained = gate.unexplained(&report);
    assert!(!unexplained.is_empty(), "no discrepancy without the ledger");
    let big = |c: &str| c.contains("aarch64-be") || c.contains("s390x");
    for (case, d) in &unexplained {
        match &d.signature {
            // T0001: big-endian sections refused.
            Signature::RejectedValid { imp, error, .. } => {
                assert_eq!(
                    (imp.to_string().as_str(), error),
                    ("tiny-sframe", &ErrorClass::Named("big-endian".into()))
                );
            }
            // T0002: rules it does not check.
            Signature::AcceptedInvalid { imp, .. } => assert_eq!(imp.to_string(), "tiny-sframe"),
            other => panic!("{case}: {other}"),
        }
        if matches!(d.signature, Signature::RejectedValid { .. }) && case.starts_with("builtin:") {
            assert!(
                big(case),
                "{case}: refused a section that is not big endian"
            );
        }
    }
    assert!(std::panic::catch_unwind(|| Gate::new(&adapter::TinySframe).assert()).is_err());
}

#[test]
fn every_builtin_little_endian_v2_v3_section_agrees() {
    let report = Gate::new(&adapter::TinySframe)
        .corpus(Corpus::builtin())
        .run();
    let v23 = |c: &str| c.starts_with("builtin:v2-") || c.starts_with("builtin:v3-");
    let big = |c: &str| c.contains("aarch64-be") || c.contains("s390x");
    let mut agreed = 0;
    for r in report
        .results
        .iter()
        .filter(|r| v23(&r.case) && !big(&r.case))
    {
        assert!(
            r.results.iter().all(|i| i.status == Status::Agree),
            "{}: {:?}",
            r.case,
            r.results
        );
        agreed += 1;
    }
    assert!(agreed >= 4, "{agreed} sections");
}
