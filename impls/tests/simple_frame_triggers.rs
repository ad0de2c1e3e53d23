//! The triggers of simple-frame-rs (`sframe_spec::triggers::simple_frame`) hold exactly when
//! the real crate, 0.3.0 from crates.io as the adapter calls it, panics at their site: on
//! every raw reproducer of the ledger (F0117's among them), on sections built to reach each
//! site, and on a sample of generated and mutated sections (`SFRAME_SIMPLE_FRAME_SAMPLE=N`,
//! 400 by default), each decoded and looked up at the PCs the differential engine uses
//! (`asan_triage::lookup_pcs`). The expected side is the crate's own panic location, its
//! `src/` path and line (`CrashSite::panic_at`), never a model of it.
//!
//! Under `cargo test` (debug assertions, so overflow checks) the arithmetic panics happen;
//! in a release build they do not, and the model, built the same way
//! ([`Build::THIS`]), says so.

use sframe_harness::impls::{Implementation, Outcome};
use sframe_harness::ledger::Ledger;
use sframe_harness::signature::CrashSite;
use sframe_impls::asan_triage::lookup_pcs;
use sframe_impls::simple_frame::SimpleFrame;
use sframe_spec::triggers::simple_frame::{first_panic, Build, Call};
use sframe_spec::Trigger;
use std::path::{Path, PathBuf};

fn findings_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/findings")
}

/// Where the crate panicked, as `src/FILE:LINE`, or `None` when it answered.
fn crate_panic<T>(o: Outcome<T>) -> Option<String> {
    match o {
        Outcome::Crashed { site, .. } => Some(match site {
            Some(CrashSite::Source(s)) => s,
            other => format!("{other:?}"),
        }),
        _ => None,
    }
}

fn model(data: &[u8], call: Call) -> Option<String> {
    first_panic(data, call, Build::THIS).map(|p| format!("{}:{}", p.file, p.line))
}

/// Every operation on which the model and the crate differ, as lines; and the panics seen.
fn compare(name: &str, data: &[u8], wrong: &mut Vec<String>, seen: &mut Vec<String>) {
    let mut ops = vec![Call::Decode];
    ops.extend(lookup_pcs(data).into_iter().map(Call::Lookup));
    for call in ops {
        let real = match call {
            Call::Decode => crate_panic(SimpleFrame.decode(data)),
            Call::Lookup(pc) => crate_panic(SimpleFrame.find_fre(data, pc)),
        };
        let m = model(data, call);
        if real != m {
            wrong.push(format!("{name} {call:?}: crate {real:?}, model {m:?}"));
        }
        if let Some(r) = real {
            seen.push(r);
        }
    }
}

fn check(inputs: &[(String, Vec<u8>)]) -> Vec<String> {
    let (mut wrong, mut seen) = (Vec::new(), Vec::new());
    for (name, data) in inputs {
        compare(name, data, &mut wrong, &mut seen);
    }
    assert!(
        wrong.is_empty(),
        "{} disagreements:\n{}",
        wrong.len(),
        wrong[..wrong.len().min(30)].join("\n")
    );
    seen.sort();
    seen.dedup();
    seen
}

#[test]
fn every_ledger_reproducer_panics_exactly_where_the_model_says() {
    let ledger = Ledger::load(&findings_dir()).expect("ledger");
    let mut inputs = Vec::new();
    for f in &ledger.findings {
        for r in f.reproducers.iter().filter(|r| r.ends_with(".sframe")) {
            let data = std::fs::read(findings_dir().join(&f.id).join(r)).unwrap();
            inputs.push((format!("{}/{r}", f.id), data));
        }
    }
    assert!(inputs.len() > 200, "only {} reproducers", inputs.len());
    let seen = check(&inputs);
    eprintln!("panic sites seen on the reproducers: {seen:?}");
    // F0117's reproducers are the attribute's cut-off reads.
    assert!(seen.iter().any(|s| s == "src/v3.rs:271"), "{seen:?}");
}

#[test]
fn f0117_names_every_simple_frame_trigger() {
    let ledger = Ledger::load(&findings_dir()).expect("ledger");
    let f = ledger
        .findings
        .iter()
        .find(|f| f.id.starts_with("F0117"))
        .expect("F0117");
    let named = f
        .triggers
        .get("simple-frame-rs")
        .cloned()
        .unwrap_or_default();
    let all: Vec<Trigger> = Trigger::ALL
        .into_iter()
        .filter(|t| t.name().starts_with("simple-frame-rs-"))
        .collect();
    assert_eq!(named, all);
}

/// A v3 section (`flags`, `abi`) of one function: the FDE index entry (start, size, FRE
/// offset), then at the FRE sub-section `attr` (the function's attribute) and `fres`.
fn v3(
    flags: u8,
    abi: u8,
    start: i64,
    size: u32,
    fre_off: u32,
    attr: &[u8],
    fres: &[u8],
) -> Vec<u8> {
    let mut d = vec![0xe2, 0xde, 3, flags, abi, 0, 0, 0];
    d.extend(1u32.to_le_bytes()); // num_fdes
    d.extend(1u32.to_le_bytes()); // num_fres
    d.extend(((attr.len() + fres.len()) as u32).to_le_bytes());
    d.extend(0u32.to_le_bytes()); // fdeoff
    d.extend(16u32.to_le_bytes()); // freoff
    d.extend(start.to_le_bytes());
    d.extend(size.to_le_bytes());
    d.extend(fre_off.to_le_bytes());
    d.extend(attr);
    d.extend(fres);
    d
}

/// Big-endian s390x v2 (`abi` 4): one function at 0x100 of size 0x40 with one FRE whose
/// first (4-byte) data word is `cfa`.
fn s390x_v2(cfa: i32) -> Vec<u8> {
    let mut d = vec![0xde, 0xe2, 2, 1, 4, 0, 0, 0];
    d.extend(1u32.to_be_bytes());
    d.extend(1u32.to_be_bytes());
    d.extend(6u32.to_be_bytes());
    d.extend(0u32.to_be_bytes());
    d.extend(20u32.to_be_bytes());
    d.extend(0x100i32.to_be_bytes());
    d.extend(0x40u32.to_be_bytes());
    d.extend(0u32.to_be_bytes());
    d.extend(1u32.to_be_bytes());
    d.extend([0, 0, 0, 0]); // info: 1-byte starts, PC increment; rep size; padding
    d.extend([0, 0x42]); // start 0, info: one 4-byte word
    d.extend(cfa.to_be_bytes());
    d
}

/// A built section, the call, and the trigger and line the crate's panic is expected at.
type Case = (String, Vec<u8>, Call, Option<(Trigger, u32)>);

#[test]
fn each_site_is_reached_by_a_section_built_for_it() {
    let overflow = Build::THIS.overflow_checks;
    let one_fre = [0u8, 0x02, 8]; // start 0, info: one 1-byte word (8)
    let attr = [1u8, 0, 0, 0, 0]; // 1 FRE, 1-byte starts, PC increment, default type
    let mut cases: Vec<Case> = Vec::new();
    let past = Trigger::SimpleFrameRsFdeAttributePastEnd;
    // The attribute at, and 1..4 bytes before, the section's end; then past it.
    for (keep, line) in [(0, 269), (1, 269), (2, 276), (3, 283), (4, 290)] {
        let d = v3(1, 3, 0x100, 0x40, 0, &attr[..keep], &[]);
        cases.push((
            format!("attribute cut to {keep}"),
            d,
            Call::Decode,
            Some((past, line)),
        ));
    }
    let d = v3(1, 3, 0x100, 0x40, 7, &[], &[]);
    cases.push((
        "attribute past the end".into(),
        d,
        Call::Decode,
        Some((past, 271)),
    ));
    let d = v3(1, 3, 0x100, 0x40, 0, &attr, &one_fre);
    cases.push(("whole attribute".into(), d.clone(), Call::Decode, None));
    cases.push((
        "whole attribute, look-up".into(),
        d,
        Call::Lookup(0x100),
        None,
    ));
    // s390x: a CFA offset of 2^28 overflows `offset * 8`; -2^28 + ... stays in range.
    let cfa = Trigger::SimpleFrameRsS390xCfaOffsetOverflow;
    let want = overflow.then_some((cfa, 49));
    cases.push(("s390x 2^28".into(), s390x_v2(1 << 28), Call::Decode, want));
    cases.push((
        "s390x 2^28 look-up".into(),
        s390x_v2(1 << 28),
        Call::Lookup(0x100),
        want,
    ));
    cases.push((
        "s390x 2^28-21".into(),
        s390x_v2((1 << 28) - 21),
        Call::Decode,
        None,
    ));
    cases.push((
        "s390x 2^28-20".into(),
        s390x_v2((1 << 28) - 20),
        Call::Decode,
        want,
    ));
    cases.push((
        "s390x -2^28".into(),
        s390x_v2(-(1 << 28)),
        Call::Decode,
        None,
    ));
    cases.push((
        "s390x -2^28-1".into(),
        s390x_v2(-(1 << 28) - 1),
        Call::Decode,
        want,
    ));
    // v3 s390x: the same decoding, but not for a flex function.
    let big = [0u8, 0x42, 0, 0, 0, 0x10]; // start 0, info: one 4-byte word, 2^28
    let d = v3(1, 4, 0x100, 0x40, 0, &attr, &big);
    cases.push(("v3 s390x 2^28".into(), d, Call::Decode, want));
    let d = v3(1, 4, 0x100, 0x40, 0, &[1, 0, 1, 0, 0], &big);
    cases.push(("v3 s390x flex 2^28".into(), d, Call::Decode, None));
    // A function starting 0x20 bytes below 2^64 - 2^48 (the look-up base) ends past 2^64.
    let start = -(1i64 << 48) - 0x20;
    let pc = start + 0x10;
    let d = v3(1, 3, start, 0x40, 0, &attr, &one_fre);
    let end = Trigger::SimpleFrameRsFunctionEndOverflow;
    cases.push((
        "end past 2^64".into(),
        d,
        Call::Lookup(pc),
        overflow.then_some((end, 499)),
    ));
    // Unsorted: the linear scan subtracts; the FRE's start is then added to 2^64 - 0x20.
    let d = v3(0, 3, start, 0x40, 0, &attr, &[0x30, 0x02, 8]);
    let fre = Trigger::SimpleFrameRsFreStartOverflow;
    cases.push((
        "FRE past 2^64".into(),
        d.clone(),
        Call::Lookup(pc),
        overflow.then_some((fre, 819)),
    ));
    let d0 = v3(0, 3, start, 0x40, 0, &attr, &one_fre);
    cases.push(("FRE below 2^64".into(), d0, Call::Lookup(pc), None));
    let mut wrong = Vec::new();
    for (name, data, call, want) in &cases {
        let got = first_panic(data, *call, Build::THIS).map(|p| (p.trigger, p.line));
        if got != *want {
            wrong.push(format!("{name}: model {got:?}, expected {want:?}"));
        }
        let real = match call {
            Call::Decode => crate_panic(SimpleFrame.decode(data)),
            Call::Lookup(pc) => crate_panic(SimpleFrame.find_fre(data, *pc)),
        };
        let m = model(data, *call);
        if real != m {
            wrong.push(format!("{name}: crate {real:?}, model {m:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn generated_and_mutated_sections_panic_exactly_where_the_model_says() {
    let n = std::env::var("SFRAME_SIMPLE_FRAME_SAMPLE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400);
    let seeds = sframe_harness::diff::seeds::builtin();
    let inputs: Vec<(String, Vec<u8>)> = sframe_harness::diff::mutate::inputs(&seeds, n, 29, &[])
        .map(|c| (c.name, c.data))
        .collect();
    let seen = check(&inputs);
    eprintln!("{} inputs; panic sites seen: {seen:?}", inputs.len());
}
