//! The never-stop path of the differential targets, with a planted gap: a ledger without any
//! finding (so no quirk explains what the real ledger's reproducers show). Each discrepancy is
//! logged with the first input that showed it, once per signature, and the harness returns
//! normally; strict, it panics; the summary calls every logged cause new and minimizes it
//! keeping its signature.

use sframe_fuzz::differential::{self, Differential};
use sframe_fuzz::findings_log::{key, read};
use sframe_fuzz::{settings, summary};
use sframe_harness::diff::{Case, CaseResult, Engine};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// A scratch directory with an empty ledger; the findings go to `<dir>/new`.
fn planted(name: &str, strict: bool) -> (Differential, PathBuf) {
    let dir = std::env::temp_dir().join(format!("sframe-fuzz-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("ledger")).expect("scratch directory");
    let d = differential::build_with(
        &settings::excluded(),
        &dir.join("ledger"),
        strict,
        dir.join("new"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    (d, dir)
}

/// The first reproducers of the real ledger (each shows at least one discrepancy without it).
fn inputs() -> Vec<(String, Vec<u8>)> {
    let mut v = differential::ledger_reproducers();
    v.truncate(3);
    assert!(!v.is_empty(), "no reproducers in the ledger");
    v
}

fn run(d: &Differential, data: &[u8]) -> CaseResult {
    d.engine.run_case(&Case {
        name: "decode_diff".into(),
        data: data.to_vec(),
    })
}

#[test]
fn a_discrepancy_the_ledger_lacks_is_logged_once_and_the_run_goes_on() {
    let (d, dir) = planted("log", false);
    // Signature -> the first input that showed it, and how many inputs did.
    let mut first: BTreeMap<String, (Vec<u8>, u64)> = BTreeMap::new();
    // Every input twice: the second round adds hits, not entries.
    for _ in 0..2 {
        for (_, data) in inputs() {
            let r = run(&d, &data);
            let mut sigs: Vec<String> = r
                .discrepancies()
                .filter(|x| x.explained_by.is_empty())
                .map(|x| x.signature.to_string())
                .collect();
            sigs.sort();
            sigs.dedup();
            for s in sigs {
                first.entry(s).or_insert((data.clone(), 0)).1 += 1;
            }
            // Returns normally: a panic here fails the test.
            differential::assert_ledgered(&d, &r, &data, "decode_diff");
        }
    }
    assert!(!first.is_empty(), "the planted gap shows no discrepancy");
    d.log.flush();
    let entries = read(&dir.join("new"));
    let logged: Vec<&str> = entries.iter().map(|e| e.cause.signature.as_str()).collect();
    assert_eq!(
        logged,
        first.keys().map(String::as_str).collect::<Vec<_>>(),
        "one entry per signature"
    );
    for e in &entries {
        let sig = &e.cause.signature;
        assert!(e.dir.ends_with(key(sig)), "{}", e.dir.display());
        let input = std::fs::read(e.dir.join(&e.cause.input)).expect("logged input");
        assert_eq!(
            input, first[sig].0,
            "{sig}: not the first input that showed it"
        );
        assert_eq!(e.hits, first[sig].1, "{sig}: counted wrong");
        assert_eq!(e.cause.target, "decode_diff");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn strict_a_discrepancy_the_ledger_lacks_panics() {
    let (d, dir) = planted("strict", true);
    let (_, data) = inputs().remove(0);
    let r = run(&d, &data);
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        differential::assert_ledgered(&d, &r, &data, "decode_diff")
    }));
    assert!(
        outcome.is_err(),
        "strict, a new discrepancy did not stop the run"
    );
    assert!(read(&dir.join("new")).is_empty(), "strict, it was logged");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_summary_minimizes_each_new_cause_keeping_its_signature() {
    let (d, dir) = planted("summary", false);
    let (_, data) = inputs().remove(0);
    differential::assert_ledgered(&d, &run(&d, &data), &data, "decode_diff");
    let report = summary::summarize(&dir.join("new"), &d.ledger, Some(&d.engine));
    assert!(report.known.is_empty(), "an empty ledger knows nothing");
    assert!(!report.new.is_empty(), "nothing logged");
    let text = report.render();
    for n in &report.new {
        let c = &n.entry.cause;
        let Some(m) = &n.minimized else {
            panic!("{} not minimized: {:?}", c.signature, n.note);
        };
        let small = std::fs::read(m).expect("minimized input");
        assert!(small.len() <= data.len());
        let imp = d
            .engine
            .impls
            .iter()
            .find(|i| Some(i.name()) == c.implementation)
            .expect("its implementation");
        let with_finds = c.example["op"] == "find_fre";
        assert!(
            Engine::unexplained_signatures_of(
                imp.as_ref(),
                &small,
                summary::MINIMIZE_PCS,
                with_finds,
                &d.engine.quirks
            )
            .contains(&c.signature.parse().unwrap()),
            "{}: the minimized input lost it",
            c.signature
        );
        assert!(
            text.contains(&format!("sframe-conform diff --record {}", m.display())),
            "{text}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
