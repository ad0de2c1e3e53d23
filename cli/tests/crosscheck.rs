//! `sframe-conform crosscheck`: every corpus file reported and explained by the ledger, the
//! same report for any `--jobs`, one bad file reported without ending the run, exit
//! statuses.

use std::path::{Path, PathBuf};

mod common;
use common::{run, run_json};

fn corpus_elf() -> PathBuf {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/elf");
    assert!(
        d.is_dir(),
        "{} is missing: run ci/build-corpus",
        d.display()
    );
    d
}

/// The ELF files under `dir`, by their magic.
fn elf_files(dir: &Path) -> usize {
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            n += elf_files(&p);
        } else if std::fs::read(&p).is_ok_and(|b| b.starts_with(b"\x7fELF")) {
            n += 1;
        }
    }
    n
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("crosscheck-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn the_corpus_is_explained_file_by_file_and_the_same_for_any_jobs() {
    let dir = corpus_elf();
    let d = dir.to_str().unwrap();
    let v = run_json(&["crosscheck", d, "--json", "--jobs", "1"]);
    let files = v["files"].as_array().unwrap();
    assert_eq!(files.len(), elf_files(&dir));
    assert!(files.iter().all(|f| f.get("error").is_none()), "{files:?}");
    let sigs = v["signatures"].as_object().unwrap();
    // The ledger's producer findings the corpus is built to show (F0101, F0102, ...).
    assert!(!sigs.is_empty());
    assert!(sigs.values().all(|s| s["finding"].is_string()), "{sigs:?}");
    let summary = v["summary"].as_array().unwrap();
    for abi in ["amd64", "aarch64", "aarch64-be", "s390x"] {
        assert!(
            summary
                .iter()
                .any(|c| c["abi"] == abi && c["pcs_checked"].as_u64() > Some(0)),
            "{abi}"
        );
    }
    // One directory again with another --jobs: seconds differ from run to run, nothing
    // else may.
    let sub = dir.join("gnu-as-2.47/amd64");
    let s = sub.to_str().unwrap();
    let v = run_json(&["crosscheck", s, "--json", "--jobs", "1"]);
    let again = run_json(&["crosscheck", s, "--json", "--jobs", "3"]);
    let strip = |mut v: serde_json::Value| {
        for c in v["summary"].as_array_mut().unwrap() {
            c["seconds"] = serde_json::Value::Null;
        }
        v["total"]["seconds"] = serde_json::Value::Null;
        v["walk"]["seconds"] = serde_json::Value::Null;
        v
    };
    assert_eq!(strip(v), strip(again));
}

#[test]
fn a_bad_file_is_reported_and_the_run_goes_on_and_a_broken_row_is_new() {
    let dir = scratch("bad");
    let junk = dir.join("junk.o");
    std::fs::write(&junk, b"\x7fELF but not really").unwrap();
    let only_junk = run(&["crosscheck", junk.to_str().unwrap()]);
    assert_eq!(only_junk.status.code(), Some(2), "{only_junk:?}");

    // A corpus object with the CFA offset of its last FRE raised by 8 (v2 AMD64: 1-byte
    // data words; the FRE sub-section ends the section, the last FRE's last word is its
    // CFA offset when it has one word).
    let src = corpus_elf().join("gnu-as-2.44/amd64/basic-O2-nofp.o");
    let mut bytes = std::fs::read(&src).unwrap();
    let loaded = sframe_elf::load(&bytes).unwrap();
    let end = loaded.elf.unwrap().file_offset as usize + loaded.bytes.len();
    // info byte two before the end: one word of one byte (0b0000_0011 | SP base).
    assert_eq!(
        bytes[end - 2] & 0b0111_1110,
        0b10,
        "a one-word FRE ends the section"
    );
    bytes[end - 1] = bytes[end - 1].wrapping_add(8);
    let broken = dir.join("broken.o");
    std::fs::write(&broken, &bytes).unwrap();
    let out = run(&[
        "crosscheck",
        "--producer",
        "gnu-as-2.44",
        junk.to_str().unwrap(),
        broken.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("junk.o: error:"), "{stdout}");
    assert!(
        stdout.contains("crosscheck:gnu-as-2.44:amd64:cfi-cfa-sp-offset:cfa: 1 (NEW)"),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_empty_ledger_explains_nothing() {
    let known = corpus_elf().join("gnu-as-2.40/amd64/cfi-edge.o");
    let empty = scratch("ledger");
    let out = run(&[
        "crosscheck",
        known.to_str().unwrap(),
        "--ledger",
        empty.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("crosscheck:gnu-as-2.40:amd64:"));
    let _ = std::fs::remove_dir_all(&empty);
}
