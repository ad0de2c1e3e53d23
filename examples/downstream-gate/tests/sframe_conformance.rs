//! `tiny-sframe` under the conformance gate of `sframe-harness`: every built-in section (each
//! version, ABI, byte order and start encoding) decoded and looked up by this crate and by
//! the reference, field by field.

use sframe_harness::gate::{self, Corpus};
use sframe_harness::impls::{Decoded, Found, FreFacts, FunctionFacts, HeaderFacts};
use sframe_harness::impls::{Implementation, Outcome};
use sframe_harness::ledger::Ledger;
use std::path::Path;

/// This crate's parser behind the harness's trait, its answers normalized into the row model.
/// Fields it does not report (the recovery rules of rows) stay `None` and are not compared.
struct TinySframe;

impl Implementation for TinySframe {
    fn name(&self) -> String {
        "tiny-sframe".into()
    }
    fn version(&self) -> String {
        env!("CARGO_PKG_VERSION").into()
    }
    fn supports(&self, v: sframe_spec::Version) -> bool {
        v != sframe_spec::Version::V1
    }
    fn decode(&self, data: &[u8]) -> Outcome<Decoded> {
        match tiny_sframe::parse(data) {
            Ok(s) => Outcome::ok(Decoded {
                header: HeaderFacts {
                    version: Some(s.header.version),
                    flags: Some(s.header.flags),
                    abi: Some(s.header.abi),
                    cfa_fixed_fp_offset: Some(s.header.cfa_fixed_fp_offset),
                    cfa_fixed_ra_offset: Some(s.header.cfa_fixed_ra_offset),
                    num_fdes: Some(s.header.num_fdes),
                    num_fres: Some(s.header.num_fres),
                },
                functions: s
                    .functions
                    .iter()
                    .map(|f| FunctionFacts {
                        start: Some(f.start),
                        size: Some(f.size),
                        fre_type: Some(f.fre_type.into()),
                        pc_type: Some(f.pc_type.into()),
                        rep_size: Some(f.rep_size),
                        num_fres: Some(f.fre_starts.len() as u32),
                        fres: f
                            .fre_starts
                            .iter()
                            .map(|&start| FreFacts {
                                start: Some(start),
                                ..FreFacts::default()
                            })
                            .collect(),
                        ..FunctionFacts::default()
                    })
                    .collect(),
            }),
            Err(e) => Outcome::rejected(e.class(), Some(format!("{e:?}"))),
        }
    }
    fn find_fre(&self, data: &[u8], pc: i64) -> Outcome<Option<Found>> {
        match tiny_sframe::parse(data) {
            Ok(s) => Outcome::ok(s.find(pc).map(|hit| {
                let f = &s.functions[hit.function];
                Found {
                    function_start: Some(f.start),
                    fre_start: Some(f.fre_starts[hit.fre]),
                    ..Found::default()
                }
            })),
            Err(e) => Outcome::rejected(e.class(), Some(format!("{e:?}"))),
        }
    }
}

fn ledger() -> Ledger {
    Ledger::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sframe-findings")).unwrap()
}

#[test]
fn conforms() {
    let corpus = Corpus::builtin(); // or .with_mutations(500, 1), Corpus::from_dir(...)
    let report = gate::run_explained(&TinySframe, &corpus, &ledger());
    // Known deviations go in a ledger of your own; everything else fails with a listing.
    report.assert_explained(&ledger());
}

/// The gate is not vacuous: without its ledger entry the known deviation fails the test, and
/// the parser agrees with the reference on every little-endian v2/v3 section.
#[test]
fn the_deviation_fails_the_gate_without_the_ledger() {
    let report = gate::run(&TinySframe, &Corpus::builtin());
    let no_ledger = Ledger::default();
    let unexplained = report.unexplained(&no_ledger);
    assert!(!unexplained.is_empty(), "no discrepancy without the ledger");
    for (case, d) in &unexplained {
        assert!(
            matches!(
                &d.signature,
                sframe_harness::signature::Signature::RejectedValid { imp, error, .. }
                    if imp.to_string() == "tiny-sframe" && error == "big-endian"
            ),
            "{case}: {}",
            d.signature
        );
        assert!(
            case.contains("aarch64-be") || case.contains("s390x"),
            "{case}: refused a section that is not big endian"
        );
    }
    // Each built-in v2/v3 section is one case: the big-endian ones are refused, every other
    // one agrees.
    let v23 = |c: &str| c.starts_with("builtin:v2-") || c.starts_with("builtin:v3-");
    let big = |c: &str| c.contains("aarch64-be") || c.contains("s390x");
    let cases: Vec<&str> = report.results.iter().map(|r| r.case.as_str()).collect();
    assert!(cases.iter().any(|c| v23(c) && big(c)));
    assert!(cases.iter().any(|c| v23(c) && !big(c)));
    for r in &report.results {
        if v23(&r.case) && !big(&r.case) {
            assert!(
                r.results
                    .iter()
                    .all(|i| i.status == sframe_harness::diff::Status::Agree),
                "{}: {:?}",
                r.case,
                r.results
            );
        }
    }
    let refused = std::panic::catch_unwind(|| report.assert_explained(&no_ledger));
    assert!(
        refused.is_err(),
        "assert_explained passed without the ledger"
    );
}
