//! `sframe-conform oracle`: exit statuses and the findings-ledger gate.

use std::path::Path;

mod common;
use common::run;

#[test]
fn bad_input_exits_2_with_one_line() {
    let dir = std::env::temp_dir().join(format!("oracle-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let junk = dir.join("junk");
    std::fs::write(&junk, b"not an elf file").unwrap();
    let out = run(&["oracle", junk.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).lines().count(),
        1,
        "{out:?}"
    );
}

/// A corpus file whose mismatches are producer findings of the ledger (F0101, F0106).
const KNOWN: &str = "../corpus/elf/gnu-as-2.40/amd64/cfi-edge.o";

#[test]
fn ledger_covers_known_findings_and_an_empty_ledger_does_not() {
    if !Path::new(env!("CARGO_MANIFEST_DIR")).join(KNOWN).is_file() {
        panic!("{KNOWN} is missing: run ci/build-corpus");
    }
    let v = common::run_json(&["oracle", KNOWN, "--json"]);
    let v = &v["files"];
    let sigs = v[0]["signatures"].as_array().unwrap();
    assert!(
        !sigs.is_empty() && sigs.iter().all(|s| s["finding"].is_string()),
        "{sigs:?}"
    );
    assert_eq!(v[0]["producer"], "gnu-as-2.40");

    let empty = std::env::temp_dir().join(format!("oracle-empty-ledger-{}", std::process::id()));
    let out = run(&[
        "oracle",
        KNOWN,
        "--ledger",
        empty.to_str().unwrap(),
        "--stats",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("oracle:gnu-as-2.40:amd64:edge_cfa_r10:"),
        "{err}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("checked instructions/s"));
}
