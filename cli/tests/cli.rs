//! The `sframe-conform` command as a user runs it: exit statuses, messages, JSON shapes.

mod common;
use sframe_spec::layout::header;
use std::path::PathBuf;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sframe-conform"))
        .args(args)
        .output()
        .unwrap()
}

fn tmp(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sframe-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn check_exit_statuses() {
    let good = tmp("good.sframe", &common::valid_v2());
    let out = run(&["check", good.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );

    let mut bad = common::valid_v2();
    bad[header::FLAGS] = 0x80; // an undefined flag bit: a warning in v2
    bad[header::CFA_FIXED_RA_OFFSET] = 0xf0; // AMD64 fixed RA -16: an error
    let bad = tmp("bad.sframe", &bad);
    let out = run(&["check", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("HDR-FIXED-RA-AMD64 at offset 0x6"), "{text}");
    assert!(text.contains("[f0]"), "hex excerpt marks the byte: {text}");

    // Only a warning: passes unless --strict.
    let mut warn = common::valid_v2();
    warn[header::FLAGS] |= 0x40;
    let warn = tmp("warn.sframe", &warn);
    assert_eq!(
        run(&["check", warn.to_str().unwrap()]).status.code(),
        Some(0)
    );
    assert_eq!(
        run(&["check", "--strict", warn.to_str().unwrap()])
            .status
            .code(),
        Some(1)
    );
}

#[test]
fn usage_and_io_errors_are_one_line_and_exit_2() {
    let not_sframe = tmp("text.txt", b"hello world");
    for args in [
        vec!["check", "/nonexistent/file"],
        vec!["check", not_sframe.to_str().unwrap()],
        vec!["dump", not_sframe.to_str().unwrap()],
        vec!["check"],
        vec!["frobnicate"],
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
            "{args:?}: {err}"
        );
    }
    let out = run(&["check", not_sframe.to_str().unwrap()]);
    assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1);
}

#[test]
fn elf_without_sframe_is_a_usage_error() {
    // The test binary itself is an ELF file without .sframe.
    let me = std::env::current_exe().unwrap();
    let out = run(&["check", me.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no .sframe section"));
}

#[test]
fn json_outputs_have_the_documented_keys() {
    let out = run(&["rules", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let rules: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rules = rules.as_array().unwrap();
    assert!(rules.len() >= 40, "{} rules", rules.len());
    for r in rules {
        for k in ["id", "versions", "abis", "basis", "source"] {
            assert!(r.get(k).is_some(), "rule without {k}: {r}");
        }
    }
    let out = run(&["rules", "--json", "--discrepancies"]);
    let d: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(d
        .as_array()
        .unwrap()
        .iter()
        .any(|x| x["id"] == "D-V1-ADDR-LIMIT-MACROS"));

    let good = tmp("dump.sframe", &common::valid_v2());
    let out = run(&["dump", "--json", good.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let v = &v["files"];
    assert_eq!(v[0]["version"], 2);
    assert_eq!(v[0]["abi"], "amd64");
    assert_eq!(v[0]["functions"][0]["start"], 0x40);
    assert_eq!(v[0]["functions"][0]["fres"][0]["rules"]["cfa"]["offset"], 8);

    let out = run(&["check", "--json", good.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["files"][0]["valid"], true);
}

#[test]
fn bench_json_ends_with_the_summary_of_every_ratio() {
    // Every figure of issue 16's summary is measured (a number, not null) when the
    // toolchains are provisioned, as ci/test provisions them; no time is asserted.
    let v = common::run_json(&["bench", "--functions", "2000", "--json"]);
    let s = &v["summary"];
    for k in [
        "lookup_ratio_min",
        "validate_mb_s",
        "validate_ratio_to_copy",
        "decode_owned_mb_s",
        "differential_cost",
        "text_sections_per_s",
        "oracle_checked_per_s_per_core",
    ] {
        assert!(s[k].as_f64().is_some_and(|x| x > 0.0), "summary.{k}: {s}");
    }
    assert_eq!(s["lookup_ratios"].as_array().map(Vec::len), Some(3), "{s}");
}

#[test]
fn dump_reads_like_objdump() {
    let good = tmp("dump2.sframe", &common::valid_v2());
    let out = run(&["dump", good.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Version: SFRAME_VERSION_2"), "{text}");
    assert!(
        text.contains("func idx [0]: pc = 0x40, size = 16 bytes"),
        "{text}"
    );
    assert!(text.contains("0000000000000040  sp+8"), "{text}");
}

/// `gen` writes what it was asked for: the header of every file says the pinned version, ABI
/// and byte order (v3 manual §2.1/§2.2: magic 0xdee2 in the section's byte order, version
/// byte, `sfh_abi_arch` at offset 4), valid sections pass `check`, malformed ones fail it with the
/// rules their sidecar names; impossible pins are one-line usage errors.
#[test]
fn gen_writes_pinned_valid_and_tagged_malformed_sections() {
    let dir = std::env::temp_dir().join(format!("sframe-cli-gen-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let valid = dir.join("valid");
    let out = run(&[
        "gen",
        "--version",
        "3",
        "--abi",
        "aarch64",
        "--endian",
        "big",
        "--count",
        "6",
        "--seed",
        "9",
        "--out",
        valid.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let files: Vec<_> = std::fs::read_dir(&valid)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 6);
    for f in &files {
        let b = std::fs::read(f).unwrap();
        assert_eq!(
            &b[..4],
            &[0xde, 0xe2, 3, b[3]],
            "{}: big-endian magic, version 3",
            f.display()
        );
        assert_eq!(
            b[4],
            1,
            "{}: SFRAME_ABI_AARCH64_ENDIAN_BIG is 1 (v1 texinfo 1.2.1)",
            f.display()
        );
    }
    let out = run(&["check", valid.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );

    let bad = dir.join("bad");
    let out = run(&[
        "gen",
        "--version",
        "1",
        "--count",
        "8",
        "--seed",
        "2",
        "--malformed",
        "--out",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut seen = 0;
    for e in std::fs::read_dir(&bad).unwrap() {
        let p = e.unwrap().path();
        if p.extension().and_then(|x| x.to_str()) != Some("sframe") {
            continue;
        }
        seen += 1;
        let side: serde_json::Value =
            serde_json::from_slice(&std::fs::read(p.with_extension("json")).unwrap()).unwrap();
        let out = run(&["check", "--strict", "--json", p.to_str().unwrap()]); // some rules are warnings
        if side["violates"] == serde_json::json!(["PRE-MAGIC"]) {
            // Without the magic the bytes are no SFrame section at all: an input error.
            assert_eq!(out.status.code(), Some(2), "{}", p.display());
            assert!(String::from_utf8_lossy(&out.stderr).contains("magic"));
            continue;
        }
        assert_eq!(
            out.status.code(),
            Some(1),
            "{} should fail check --strict",
            p.display()
        );
        let text = String::from_utf8_lossy(&out.stdout);
        for rule in side["violates"].as_array().unwrap() {
            assert!(
                text.contains(rule.as_str().unwrap()),
                "{}: check does not report {rule}",
                p.display()
            );
        }
    }
    assert_eq!(seen, 8);

    for (args, needle) in [
        (
            vec!["gen", "--version", "1", "--abi", "s390x"],
            "not defined in SFrame",
        ),
        (
            vec!["gen", "--abi", "amd64", "--endian", "big"],
            "no big endian",
        ),
        (vec!["gen", "--version", "4"], "versions 1, 2 and 3"),
        (vec!["gen", "--abi", "mips"], "not an ABI"),
    ] {
        let mut a = args.clone();
        let o = dir.join("x");
        a.extend(["--out", o.to_str().unwrap()]);
        let out = run(&a);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(needle) && err.lines().count() == 1,
            "{args:?}: {err}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn version_names_this_command_and_every_provisioned_implementation() {
    let out = run(&["--version"]);
    assert_eq!(out.status.code(), Some(0));
    let t = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        t.lines().next(),
        Some(format!("sframe-conform {}", env!("CARGO_PKG_VERSION")).as_str())
    );
    let listed = |name: &str| t.lines().any(|l| l.trim_start().starts_with(name));
    assert!(listed("reference ") && listed("simple-frame-rs "), "{t}");
    // Every libsframe release ci/toolchains put in the cache, with a version, not as
    // unavailable.
    let cache = sframe_impls::toolchains::cache_dir();
    let releases: Vec<String> = std::fs::read_dir(cache.join("lib"))
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter_map(|e| {
                    e.file_name()
                        .to_str()?
                        .strip_prefix("libsframe-")
                        .map(str::to_string)
                })
                .collect()
        })
        .unwrap_or_default();
    assert!(
        !releases.is_empty(),
        "no libsframe in {}: run ci/toolchains",
        cache.display()
    );
    for r in releases {
        let line = t
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("libsframe-{r} ")))
            .unwrap_or_else(|| panic!("libsframe-{r} not listed: {t}"));
        assert!(!line.contains("unavailable"), "{line}");
    }
}

#[test]
fn matrix_shows_rules_by_implementation_and_the_quirks_from_the_ledger() {
    let out = run(&["matrix", "--mutations", "40"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    // Every rule row carries one letter per implementation; the reference is not a column.
    let rows = text
        .lines()
        .filter(|l| {
            ["PRE-", "HDR-", "FDE-", "FRE-", "FLEX-"]
                .iter()
                .any(|p| l.starts_with(p))
        })
        .count();
    assert!(rows >= 3, "{text}");
    assert!(!text.contains("= reference"), "{text}");
    // From the ledger: libsframe's look-up refuses unsorted sections (F0110, read in
    // sframe_get_funcdesc_with_addr_internal of every release).
    assert!(
        text.lines()
            .any(|l| l.contains("libsframe-2.47") && l.contains("lookup-requires-sorted")),
        "{text}"
    );
}
