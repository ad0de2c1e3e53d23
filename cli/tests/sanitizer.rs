//! The first bad access each memory-safety finding records (`first_bad_access` in its
//! finding.json, the trimmed report in `sanitizer-<implementation>.txt`) is what a fresh run
//! of its reproducer on the ASan+UBSan build of that release shows (`ci/instrumented-libs`,
//! which `ci/test` runs). Without the builds the test is skipped loudly, and fails under CI.
//!
//! The triggers of glibc's reader (`sframe_spec::triggers::glibc`) hold exactly when that
//! build reports their bug, on every reproducer of the findings naming them and on generated
//! inputs (`SFRAME_TRIGGER_SAMPLE=N`, 24 by default): `sframe_conform::trigger_agreement`.
//!
//! `SFRAME_RECORD_SANITIZER=1 cargo test -p sframe-conform --test sanitizer` (re)records
//! them: every reproducer of every finding with a `crash:libsframe-*` or `crash:glibc-*`
//! signature, on the build of each release those signatures name.

use sframe_conform::asan_triage::{self, Run};
use sframe_conform::trigger_agreement::Verdict;
use sframe_harness::ledger::{FirstBadAccess, Ledger};
use sframe_harness::sanitizer::{self, Operation};
use sframe_harness::signature::{Class, SignaturePattern, ToolName};
use sframe_impls::instrumented::InstrumentedBuild;
use sframe_spec::Trigger;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn findings_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/findings")
}

fn worker() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_sframe-worker"))
}

/// The ASan builds, or `None` after saying loudly why the test does not run (a failure
/// under CI, where `ci/test` builds them).
fn builds() -> Option<Vec<InstrumentedBuild>> {
    let b = asan_triage::asan_builds();
    if b.is_empty() {
        let msg = format!(
            "no ASan builds in {}: run `ci/instrumented-libs --flavour asan` (ci/test does)",
            asan_triage::asan_dir().display()
        );
        assert!(std::env::var_os("CI").is_none(), "{msg}");
        eprintln!("SKIPPED: {msg}");
        return None;
    }
    Some(b)
}

/// The C implementations a finding's crash signatures name (`libsframe-2.40`, `glibc-2.43`).
fn crashing_impls(signatures: &[SignaturePattern]) -> BTreeSet<String> {
    signatures
        .iter()
        .filter(|p| p.class() == Class::Crash)
        .filter_map(|p| p.imp())
        .filter(|t| t.release.is_some() && (t.is(ToolName::Libsframe) || t.is(ToolName::Glibc)))
        .map(|t| t.to_string())
        .collect()
}

fn report_name(implementation: &str) -> String {
    format!("sanitizer-{implementation}.txt")
}

fn header(build: &InstrumentedBuild) -> String {
    format!(
        "{} {} built by ci/instrumented-libs --flavour asan ({}: {})\nfrom: {}\nrun in sframe-worker with LD_PRELOAD={} SFRAME_WORKER_ASAN_INPUT=1 ASAN_OPTIONS=detect_leaks=0:allow_user_segv_handler=0:handle_abort=1\n",
        build.implementation(),
        build.version,
        build.cc,
        build.cflags,
        build.origin,
        build.preload.display()
    )
}

/// Records for one implementation: one per distinct first bad access, in reproducer order.
fn records(build: &InstrumentedBuild, runs: &[Run]) -> (Vec<FirstBadAccess>, String) {
    let name = build.implementation();
    let mut out: Vec<FirstBadAccess> = Vec::new();
    let mut text = header(build);
    for r in runs {
        let Some(p) = &r.parsed else {
            text.push_str(&format!(
                "\n== {} ({:?}): {} without a sanitizer report\n",
                r.reproducer, r.operation, r.status
            ));
            continue;
        };
        if let Some(rec) = out
            .iter_mut()
            .find(|rec| rec.operation == r.operation && p.same_site(rec))
        {
            rec.reproducers.push(r.reproducer.clone());
            continue;
        }
        text.push_str(&format!(
            "\n== {} ({:?}): first report\n{}",
            r.reproducer,
            r.operation,
            sanitizer::trim(r.report.as_deref().unwrap_or(""))
        ));
        out.push(p.clone().into_record(
            &name,
            &build.version,
            r.operation,
            vec![r.reproducer.clone()],
            &report_name(&name),
        ));
    }
    (out, text)
}

fn reproducer_inputs(dir: &Path, names: &[String]) -> Vec<(String, Vec<u8>, Option<Operation>)> {
    names
        .iter()
        .filter_map(|n| Some((n.clone(), std::fs::read(dir.join(n)).ok()?, None)))
        .collect()
}

fn record_all(builds: &[InstrumentedBuild]) {
    let ledger = Ledger::load(&findings_dir()).expect("ledger");
    for f in &ledger.findings {
        let impls = crashing_impls(&f.signatures);
        if impls.is_empty() {
            continue;
        }
        let dir = findings_dir().join(&f.id);
        let mut all = Vec::new();
        for imp in &impls {
            let Some(build) = builds.iter().find(|b| &b.implementation() == imp) else {
                eprintln!("{}: no ASan build of {imp}", f.id);
                continue;
            };
            let runs = asan_triage::run(&worker(), build, &reproducer_inputs(&dir, &f.reproducers))
                .expect("the ASan worker runs");
            let (recs, text) = records(build, &runs);
            for r in &recs {
                eprintln!(
                    "{} {}: {:?} {:?} {:?} {}:{} {} ({} reproducers)",
                    f.id,
                    imp,
                    r.error,
                    r.access,
                    r.size,
                    r.file,
                    r.line,
                    r.function,
                    r.reproducers.len()
                );
            }
            if !recs.is_empty() {
                std::fs::write(dir.join(report_name(imp)), text).expect("write the report");
            }
            all.extend(recs);
        }
        let path = dir.join("finding.json");
        let mut finding = f.clone();
        finding.first_bad_access = all;
        let text = serde_json::to_string_pretty(&finding).expect("serializes") + "\n";
        std::fs::write(&path, text).expect("write finding.json");
    }
}

#[test]
fn first_bad_accesses_are_what_asan_reports() {
    let Some(builds) = builds() else { return };
    if std::env::var_os("SFRAME_RECORD_SANITIZER").is_some() {
        record_all(&builds);
    }
    let ledger = Ledger::load(&findings_dir()).expect("ledger");
    let mut checked = 0;
    for f in &ledger.findings {
        let dir = findings_dir().join(&f.id);
        // Every release a crash signature names, with a build here, has its record.
        for imp in crashing_impls(&f.signatures) {
            if builds.iter().any(|b| b.implementation() == imp) {
                assert!(
                    f.first_bad_access.iter().any(|r| r.implementation == imp),
                    "{}: no first_bad_access for {imp} (record with SFRAME_RECORD_SANITIZER=1)",
                    f.id
                );
            }
        }
        for imp in f
            .first_bad_access
            .iter()
            .map(|r| r.implementation.clone())
            .collect::<BTreeSet<_>>()
        {
            let recs: Vec<&FirstBadAccess> = f
                .first_bad_access
                .iter()
                .filter(|r| r.implementation == imp)
                .collect();
            let build = builds
                .iter()
                .find(|b| b.implementation() == imp)
                .unwrap_or_else(|| panic!("{}: no ASan build of {imp}", f.id));
            let inputs: Vec<_> = recs
                .iter()
                .map(|r| {
                    let n = &r.reproducers[0];
                    let bytes = std::fs::read(dir.join(n)).expect("reproducer");
                    (n.clone(), bytes, Some(r.operation))
                })
                .collect();
            let runs = asan_triage::run(&worker(), build, &inputs).expect("the ASan worker runs");
            for (r, run) in recs.iter().zip(&runs) {
                let p = run.parsed.as_ref().unwrap_or_else(|| {
                    panic!(
                        "{} {imp} {}: no sanitizer report now ({})",
                        f.id, run.reproducer, run.status
                    )
                });
                assert!(
                    p.matches(r),
                    "{} {imp} {}: ASan now reports {p:?}, the finding records {r:?}",
                    f.id,
                    run.reproducer
                );
                let report = std::fs::read_to_string(dir.join(&r.report)).expect("the report");
                assert!(
                    report.contains(&format!("{}:{}", r.file, r.line)),
                    "{}: {} does not show {}:{}",
                    f.id,
                    r.report,
                    r.file,
                    r.line
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 0, "no finding records a first bad access");
}

/// The reproducers of the findings that name a trigger of `implementation`, and `sample`
/// generated and mutated sections of `versions` (seed 27): the inputs a trigger is checked
/// on. `SFRAME_TRIGGER_SAMPLE=N` sets the sample's size.
fn trigger_inputs(
    implementation: &str,
    versions: &[sframe_spec::Version],
    sample: usize,
) -> Vec<(String, Vec<u8>)> {
    let ledger = Ledger::load(&findings_dir()).expect("ledger");
    let mut out = Vec::new();
    for f in &ledger.findings {
        if !f.triggers.contains_key(implementation) {
            continue;
        }
        let dir = findings_dir().join(&f.id);
        for (n, bytes, _) in reproducer_inputs(&dir, &f.reproducers) {
            out.push((format!("{}/{n}", f.id), bytes));
        }
    }
    let n = std::env::var("SFRAME_TRIGGER_SAMPLE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(sample);
    let seeds = sframe_harness::diff::seeds::builtin();
    for c in sframe_harness::diff::mutate::inputs(&seeds, n, 27, versions) {
        out.push((c.name, c.data));
    }
    out
}

#[test]
fn glibc_triggers_hold_exactly_when_asan_reports_their_bug() {
    let Some(builds) = builds() else { return };
    let Some(build) = builds.iter().find(|b| b.lib == "glibc") else {
        let msg = "no ASan build of glibc's reader: run `ci/instrumented-libs --flavour asan`";
        assert!(std::env::var_os("CI").is_none(), "{msg}");
        eprintln!("SKIPPED: {msg}");
        return;
    };
    let inputs = trigger_inputs(&build.implementation(), &[sframe_spec::Version::V2], 24);
    let a = sframe_conform::trigger_agreement::glibc(&worker(), build, &inputs)
        .expect("the ASan worker runs");
    eprintln!(
        "{} {} ({}):\n{}",
        build.implementation(),
        build.version,
        build.cflags,
        a.markdown()
    );
    let (all, agree) = a.counts();
    let shown: Vec<String> = a
        .disagreements
        .iter()
        .take(20)
        .map(|d| {
            format!(
                "{} {}: model {}, ASan {}\n{}",
                d.input,
                d.operation,
                d.model,
                d.asan,
                d.report.as_deref().unwrap_or("")
            )
        })
        .collect();
    assert_eq!(agree, all, "disagreements:\n{}", shown.join("\n"));
    // Both triggers were seen to hold, so the check can fail on either.
    for t in [
        Trigger::GlibcReadsOutsideSection,
        Trigger::GlibcMaskRepSizeZero,
    ] {
        let v = Verdict::Trigger(t);
        assert!(a.table.contains_key(&(v.clone(), v)), "{t} never held");
    }
}
