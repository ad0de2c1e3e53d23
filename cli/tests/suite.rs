//! `sframe-conform suite export` and `suite score`: the exported files are what they claim
//! (every case file parses, names its section, and a valid case's expected decode is the
//! reference's decode of the bytes, read back from the file), the reference passes every
//! valid and malformed case, and other implementations are scored with a table and exit 0.
//!
//! Scoring libsframe needs the provisioned toolchains: the test fails (not skips) when
//! libsframe-2.47 is missing, naming `ci/toolchains`, which provisions it.

use sframe_harness::impls::reference::Reference;
use sframe_harness::impls::{Decoded, Found, Implementation, Outcome};
use sframe_impls::registry::{Options, Registry};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sframe-conform"))
        .args(args)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    v.sort();
    v
}

/// Export a small suite into a fresh temporary directory.
fn export() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sframe-suite-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = run(&[
        "suite",
        "export",
        dir.to_str().unwrap(),
        "--mutations",
        "100",
    ]);
    assert!(out.status.success(), "export failed: {}", text(&out));
    dir
}

fn score(dir: &Path, imp: &str, json: bool) -> Output {
    let mut args = vec!["suite", "score", dir.to_str().unwrap(), "--impl", imp];
    if json {
        args.push("--json");
    }
    run(&args)
}

fn assert_table(out: &Output, imp: &str) {
    assert_eq!(out.status.code(), Some(0), "{imp}: {}", text(out));
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(
        s.contains("class") && s.contains("passed") && s.contains("failed"),
        "{imp}: no table: {}",
        text(out)
    );
    assert!(
        s.lines().any(|l| l.starts_with("valid ")),
        "{imp}: no row for valid cases: {}",
        text(out)
    );
}

#[test]
fn export_then_score() {
    let dir = export();

    // The layout: the three class directories, the index and the README.
    for f in ["index.json", "README.md"] {
        assert!(dir.join(f).is_file(), "no {f}");
    }
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    for word in [
        "valid/",
        "malformed/",
        "invalid/",
        "expected_rows",
        "same_value",
    ] {
        assert!(readme.contains(word), "README.md does not mention {word}");
    }
    let mut per_class = std::collections::BTreeMap::new();
    for class in ["valid", "malformed", "invalid"] {
        let sub = dir.join(class);
        assert!(sub.is_dir(), "no {class}/");
        let jsons = files(&sub, "json");
        let sframes = files(&sub, "sframe");
        assert_eq!(jsons.len(), sframes.len(), "{class}: one .json per .sframe");
        per_class.insert(class, jsons);
    }
    assert!(!per_class["valid"].is_empty(), "no valid case");
    assert!(
        !per_class["malformed"].is_empty(),
        "no malformed case from 100 mutations"
    );

    // Every case file parses and names an existing section; names are unique per bytes.
    let mut seen = std::collections::HashSet::new();
    let mut round_trips = 0;
    for (class, jsons) in &per_class {
        for j in jsons {
            let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(j).unwrap())
                .unwrap_or_else(|e| panic!("{}: {e}", j.display()));
            assert_eq!(v["class"], *class, "{}", j.display());
            let file = v["file"]
                .as_str()
                .unwrap_or_else(|| panic!("{}: no file", j.display()));
            let data = std::fs::read(dir.join(class).join(file))
                .unwrap_or_else(|e| panic!("{}: {file}: {e}", j.display()));
            assert!(seen.insert(data.clone()), "{file}: duplicate bytes");
            assert!(v["source"].is_string(), "{}: no source", j.display());
            match *class {
                "valid" => {
                    // The expectation as stored equals the reference's decode of the bytes.
                    let stored: Decoded = serde_json::from_value(v["expected_decode"].clone())
                        .unwrap_or_else(|e| panic!("{}: expected_decode: {e}", j.display()));
                    assert_eq!(
                        Reference.decode(&data),
                        Outcome::ok(stored),
                        "{}",
                        j.display()
                    );
                    let rows = v["expected_rows"].as_array().expect("expected_rows");
                    assert!(rows.len() <= 64);
                    for r in rows {
                        let pc = r["pc"].as_i64().expect("pc");
                        let row: Option<Found> = serde_json::from_value(r["row"].clone()).unwrap();
                        assert_eq!(
                            Reference.find_fre(&data, pc),
                            Outcome::ok(row),
                            "{} at pc {pc}",
                            j.display()
                        );
                    }
                    round_trips += 1;
                }
                _ => {
                    let rules = v["rules_broken"].as_array().expect("rules_broken");
                    if *class == "invalid" {
                        assert!(!rules.is_empty(), "{}: no rule broken", j.display());
                        assert!(v["expected_decode"].is_object());
                    }
                    for r in rules {
                        assert!(r["rule"].is_string() && r["offset"].is_u64(), "{r}");
                    }
                }
            }
        }
    }
    assert!(round_trips > 0);

    // index.json lists every case.
    let index: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("index.json")).unwrap()).unwrap();
    let listed = index["cases"].as_array().unwrap();
    assert_eq!(listed.len(), seen.len());
    for c in listed {
        for k in ["sframe", "json"] {
            let p = dir.join(c[k].as_str().unwrap());
            assert!(p.is_file(), "index names {} that is not there", p.display());
        }
    }

    // The reference passes every valid and malformed case.
    let out = score(&dir, "reference", true);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut scored = 0;
    for t in report["tallies"].as_array().unwrap() {
        scored += t["cases"].as_u64().unwrap();
        if t["class"] != "invalid" {
            assert_eq!(t["failed"], 0, "reference fails: {t}\n{}", text(&out));
            assert_eq!(t["crashed"], 0, "{t}");
            assert_eq!(t["unsupported"], 0, "{t}");
            assert_eq!(t["passed"], t["cases"], "{t}");
        }
    }
    assert_eq!(scored as usize, seen.len());
    assert_table(&score(&dir, "reference", false), "reference");

    // simple-frame-rs deviates (known): scored, with a table, exit 0.
    let out = score(&dir, "simple-frame-rs", false);
    assert_table(&out, "simple-frame-rs");
    assert!(String::from_utf8_lossy(&out.stdout).contains("simple-frame-rs"));

    // libsframe 2.47, as ci/toolchains provisions it.
    let reg = Registry::discover(&Options {
        objdump: false,
        ..Options::default()
    });
    assert!(
        reg.get("libsframe-2.47").is_some(),
        "libsframe-2.47 is not provisioned: run `ci/toolchains` (it installs GNU binutils with \
         their libsframe into ~/.cache/sframe-conform); available: {:?}, unavailable: {:?}",
        reg.available.iter().map(|i| i.name()).collect::<Vec<_>>(),
        reg.unavailable
            .iter()
            .map(|u| format!("{}: {}", u.name, u.reason))
            .collect::<Vec<_>>()
    );
    drop(reg);
    assert_table(&score(&dir, "libsframe-2.47", false), "libsframe-2.47");

    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn scoring_a_directory_that_is_no_suite_is_a_usage_error() {
    let dir = std::env::temp_dir().join(format!("sframe-suite-none-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = score(&dir, "reference", false);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    assert!(err.contains("index.json"), "{err}");
}
