//! `sframe-conform check` as a report: terse lines, a summary per producer, format version
//! and ABI (producers from a manifest.json), the ledger's reproducers apart, and an exit
//! status that reflects the real sections only.

mod common;
use serde_json::Value;
use sframe_spec::layout::header;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sframe-conform"))
        .args(args)
        .output()
        .unwrap()
}

/// The same with the AMD64 fixed RA offset -16 (byte 6): the v2 text fixes it at -8, an
/// error (HDR-FIXED-RA-AMD64).
fn bad_v2() -> Vec<u8> {
    let mut b = common::valid_v2();
    b[header::CFA_FIXED_RA_OFFSET] = 0xf0;
    b
}

fn write(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// `root/manifest.json` naming two files of `test-as-1.0`; `root/elf/{good,bad,stray}.sframe`
/// (stray is in no manifest); a ledger entry with a rule-breaking reproducer in
/// `root/findings/`. Without `with_bad`, the corpus has no error.
fn tree(name: &str, with_bad: bool) -> PathBuf {
    let root = std::env::temp_dir().join(format!("sframe-check-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    write(&root.join("elf/good.sframe"), &common::valid_v2());
    write(&root.join("elf/stray.sframe"), &common::valid_v2());
    if with_bad {
        write(&root.join("elf/bad.sframe"), &bad_v2());
    }
    write(
        &root.join("manifest.json"),
        br#"[{"file": "elf/good.sframe", "producer": "test-as", "release": "1.0"},
             {"file": "elf/bad.sframe", "producer": "test-as", "release": "1.0"}]"#,
    );
    write(&root.join("findings/F9999-test/finding.json"), b"{}");
    let mut repro = bad_v2();
    repro[header::FLAGS] |= 0x40; // and an undefined flag bit
    write(&root.join("findings/F9999-test/input.sframe"), &repro);
    root
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn a_directory_gets_terse_lines_a_summary_and_the_reproducers_apart() {
    let root = tree("text", true);
    let out = run(&["check", root.to_str().unwrap()]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    // One line for the file with a problem, none for the clean ones, no hex excerpts.
    let lines: Vec<&str> = t.lines().filter(|l| l.contains("bad.sframe")).collect();
    assert_eq!(lines.len(), 1, "{t}");
    assert!(
        lines[0].contains("1 errors") && lines[0].contains("HDR-FIXED-RA-AMD64"),
        "{t}"
    );
    assert!(
        !t.contains("good.sframe") && !t.contains("stray.sframe"),
        "{t}"
    );
    assert!(!t.contains("[f0]"), "no excerpts without --verbose: {t}");
    // The reproducer is not listed with the corpus, and is counted apart.
    assert!(!t.contains("input.sframe"), "{t}");
    let repro = t
        .lines()
        .find(|l| l.contains("expected to break rules"))
        .unwrap_or_else(|| panic!("no reproducer section: {t}"));
    assert!(
        repro.contains("1 files, 1 with errors, 1 with warnings"),
        "{repro}"
    );
    // Summary: test-as-1.0 (from the manifest) has good and bad; stray is unattributed.
    let row = |producer: &str| -> Vec<String> {
        t.lines()
            .find(|l| l.starts_with(producer))
            .unwrap_or_else(|| panic!("no row for {producer}: {t}"))
            .split_whitespace()
            .map(str::to_string)
            .collect()
    };
    assert_eq!(
        row("test-as-1.0")[1..7],
        ["v2", "amd64", "2", "1", "1", "0"],
        "{t}"
    );
    assert!(
        row("test-as-1.0").contains(&"HDR-FIXED-RA-AMD64".to_string()),
        "{t}"
    );
    assert_eq!(row("- ")[1..7], ["v2", "amd64", "1", "1", "0", "0"], "{t}");
    assert_eq!(row("all ")[1..7], ["*", "*", "3", "2", "1", "0"], "{t}");

    // With --verbose, every violation with its excerpt, reproducers listed.
    let t = text(&run(&["check", "--verbose", root.to_str().unwrap()]));
    assert!(
        t.contains("HDR-FIXED-RA-AMD64 at offset 0x6") && t.contains("[f0]"),
        "{t}"
    );
    assert!(t.contains("input.sframe"), "{t}");
}

#[test]
fn the_exit_status_ignores_the_ledgers_reproducers() {
    let root = tree("exit", false);
    let out = run(&["check", root.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("expected to break rules"));
    // Named directly, a reproducer is checked like any file.
    let repro = root.join("findings/F9999-test/input.sframe");
    assert_eq!(
        run(&["check", repro.to_str().unwrap()]).status.code(),
        Some(1)
    );
}

#[test]
fn json_gives_the_same_summary() {
    let root = tree("json", true);
    let out = run(&["check", "--json", root.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["failed"], true);
    assert_eq!(v["files"].as_array().unwrap().len(), 3);
    let rows = v["summary"].as_array().unwrap();
    let row = rows
        .iter()
        .find(|r| r["producer"] == "test-as-1.0")
        .unwrap_or_else(|| panic!("{v:#}"));
    assert_eq!(
        (
            &row["version"],
            &row["abi"],
            &row["files"],
            &row["clean"],
            &row["with_errors"]
        ),
        (
            &"v2".into(),
            &"amd64".into(),
            &2.into(),
            &1.into(),
            &1.into()
        )
    );
    assert_eq!(row["top_rules"][0][0], "HDR-FIXED-RA-AMD64");
    assert_eq!(v["total"]["files"], 3);
    assert_eq!(v["reproducers"]["total"]["files"], 1);
    assert_eq!(v["reproducers"]["total"]["with_errors"], 1);
}

/// The bundled corpus: every file of corpus/elf counts, attributed to a producer when the
/// manifest lists it, and every reproducer of corpus/findings is apart.
#[test]
fn the_bundled_corpus_is_summarized_per_producer() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let out = run(&["check", "--json", corpus.to_str().unwrap()]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    // Every file under corpus/elf starting with the ELF magic, counted here.
    fn elf_files(d: &Path, n: &mut usize) {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                elf_files(&p, n);
            } else if std::fs::read(&p).unwrap().starts_with(b"\x7fELF") {
                *n += 1;
            }
        }
    }
    let mut n = 0;
    elf_files(&corpus.join("elf"), &mut n);
    assert_eq!(v["total"]["files"], n, "{:#}", v["summary"]);
    let manifest: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(corpus.join("manifest.json")).unwrap())
            .unwrap();
    let attributed: u64 = v["summary"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["producer"] != "-")
        .map(|r| r["files"].as_u64().unwrap())
        .sum();
    assert_eq!(attributed as usize, manifest.len());
    for p in [
        "gnu-as-2.40",
        "gnu-as-2.44",
        "gnu-as-2.47",
        "gnu-as-2.47+ld-2.47",
        "llvm-23",
    ] {
        assert!(
            v["summary"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| r["producer"] == p),
            "no row for {p}"
        );
    }
    assert!(v["reproducers"]["total"]["files"].as_u64().unwrap() > 0);
    // The exit status is the real corpus's: 1 exactly when one of its files has an error.
    let with_errors = v["total"]["with_errors"].as_u64().unwrap();
    assert_eq!(out.status.code(), Some(if with_errors > 0 { 1 } else { 0 }));
}

/// An FRE at its function's end, as GNU as 2.47 writes it after a trailing CFI directive
/// (finding F0006's reproducer): a warning, FRE-START-AT-END, whose message says where the
/// FRE starts against the function's end; no message says "found X, expected X".
#[test]
fn an_fre_at_the_function_end_is_a_warning_in_words() {
    let gas = sframe_harness::cache_dir().join("bin/x86_64-linux-gnu-as-2.47");
    assert!(gas.exists(), "{}: run ci/toolchains", gas.display());
    let repro = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus/findings/F0006-fre-at-function-end/repro.s");
    let obj = std::env::temp_dir().join(format!("sframe-check-f0006-{}.o", std::process::id()));
    let out = Command::new(&gas)
        .arg("--gsframe")
        .arg("-o")
        .arg(&obj)
        .arg(&repro)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let o = run(&["check", obj.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        text(&o).contains("warning FRE-START-AT-END")
            && text(&o).contains(
                "(starts at 0x1, where its function or repeated block, 0x1 bytes long, ends)"
            ),
        "{}",
        text(&o)
    );
    let o = run(&["check", "--json", obj.to_str().unwrap()]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let violations = v["files"][0]["violations"].as_array().unwrap();
    assert_eq!(violations.len(), 1, "{v}");
    assert_eq!(violations[0]["rule"], "FRE-START-AT-END");
    assert_eq!(violations[0]["severity"], "warning");
    for viol in violations {
        let (found, expected) = (&viol["found"], &viol["expected"]);
        let message = viol["message"].as_str().unwrap();
        assert!(
            !message.contains(&format!("found {found}, expected {expected})")) || found != expected,
            "{message}"
        );
    }
    assert_eq!(
        run(&["check", "--strict", obj.to_str().unwrap()])
            .status
            .code(),
        Some(1)
    );
    let _ = std::fs::remove_file(&obj);
}
