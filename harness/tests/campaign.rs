//! A differential campaign keeps what it finds: the first input of every unaccounted
//! signature is saved, and what it records in a ledger accounts for those signatures on
//! the next run.

use sframe_harness::diff::campaign::Campaign;
use sframe_harness::diff::seeds;
use sframe_harness::ledger::Ledger;
use sframe_harness::signature::{Class, Signature, Tool};
use sframe_spec::Version;
use std::sync::Arc;

mod common;

use common::{is_v1, NoV1};

fn run(ledger: &Ledger) -> Campaign<'_> {
    let mut c = Campaign::new(vec![Arc::new(NoV1::Crashes)], ledger, 16);
    c.run_batch(&seeds::builtin(), |_, _| {});
    c
}

#[test]
fn unaccounted_inputs_are_saved_and_recorded_findings_account_for_them() {
    let root = std::env::temp_dir().join(format!("harness-campaign-{}", std::process::id()));
    let ledger_dir = root.join("findings");
    let saved = root.join("saved");
    let ledger = Ledger::load(&ledger_dir).unwrap();
    let c = run(&ledger);
    let new: Vec<Signature> = c
        .summary
        .new_signatures()
        .map(|s| s.signature.clone())
        .collect();
    assert!(!new.is_empty(), "crashing on v1 sections is new");
    assert!(new.iter().all(|s| s.class() == Class::Crash
        && s.imp() == Some(&Tool::named("no-v1-reader"))
        && s.tag().and_then(|t| t.version) == Some(Version::V1)));

    c.save_unexplained(&saved).unwrap();
    let index: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(saved.join("index.json")).unwrap()).unwrap();
    assert_eq!(index.len(), new.len());
    for e in &index {
        assert!(new.contains(&e["signature"].as_str().unwrap().parse().unwrap()));
        let input = std::fs::read(saved.join(e["file"].as_str().unwrap())).unwrap();
        assert!(
            is_v1(&input),
            "the saved input is one the reader crashed on"
        );
    }

    let recorded = c.record_new().unwrap();
    assert_eq!(recorded.len(), new.len());
    let ledger = Ledger::load(&ledger_dir).unwrap();
    let again = run(&ledger);
    assert!(
        !again.summary.has_new(),
        "recorded findings account for what they recorded"
    );
    std::fs::remove_dir_all(&root).unwrap();
}
