//! The real-world corpus (`corpus/real/`, rebuilt by `ci/build-realworld --commit`): the
//! libraries of seven Debian source packages compiled by Debian's GCC 12, assembled by every
//! GNU as release that writes SFrame for x86-64, AArch64 and s390x, and linked by the same
//! release's ld, plus one relocatable object per project. Nothing here was written for
//! SFrame: a verdict of `check` on these files is a verdict on what real producers write.
//!
//! The files are stored xz-compressed (`<file>.xz`, so that the walks of `corpus/` by the
//! other tests, which read ELF and raw SFrame files only, do not change); this test unpacks
//! them with the `xz` program (`ci/install-deps` installs xz-utils) into a temporary
//! directory, with a copy of `corpus/real/manifest.json` beside them so that `check`
//! attributes each file to its producer.
//!
//! Expected values come from the manifest, which `ci/build-realworld` writes from the ELF
//! headers (readelf) and the `.sframe` header bytes (od), and from the findings ledger.

use serde_json::Value;
use sframe_harness::signature::{Producer, Signature};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

fn real() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/real")
}

fn manifest() -> Vec<Value> {
    let text = std::fs::read_to_string(real().join("manifest.json"))
        .expect("corpus/real/manifest.json (ci/build-realworld --commit writes it)");
    serde_json::from_str(&text).expect("corpus/real/manifest.json is JSON")
}

/// The part built from the Debian libraries (the rest is binutils' testsuite).
const LIBRARY_DIRS: [&str; 3] = ["amd64", "aarch64", "s390x"];

fn is_library(e: &Value) -> bool {
    e["project"] != "binutils-testsuite"
}

/// `sframe-conform ARGS... DIR/amd64 DIR/aarch64 DIR/s390x`
fn run_on_libraries(args: &[&str]) -> Output {
    let dir = unpacked();
    let paths: Vec<String> = LIBRARY_DIRS
        .iter()
        .map(|d| dir.join(d).display().to_string())
        .collect();
    let mut all: Vec<&str> = args.to_vec();
    all.extend(paths.iter().map(String::as_str));
    run(&all)
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sframe-conform"))
        .args(args)
        .output()
        .unwrap()
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}); stderr: {}",
            String::from_utf8_lossy(&o.stderr)
        )
    })
}

/// `diff --json --impl objdump-<release>...` for each release; each must be provisioned.
fn diff_objdumps() -> Vec<&'static str> {
    let impls = json(&run(&["impls", "--json"]));
    let names: BTreeSet<String> = impls["available"]
        .as_array()
        .expect("impls --json lists implementations")
        .iter()
        .filter_map(|i| i["name"].as_str().map(str::to_string))
        .collect();
    let mut args = vec!["diff", "--json"];
    for r in ["objdump-2.40", "objdump-2.44", "objdump-2.47"] {
        assert!(
            names.contains(r),
            "{r} is not provisioned (ci/toolchains): {names:?}"
        );
        args.extend(["--impl", r]);
    }
    args
}

/// The discrepancies of a `diff --json` report that no finding of the ledger explains.
fn unexplained(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for c in v["cases"].as_array().unwrap() {
        for r in c["results"].as_array().unwrap() {
            for d in r["discrepancies"].as_array().into_iter().flatten() {
                if d["explained_by"].as_array().is_none_or(|e| e.is_empty()) {
                    out.push(format!("{}: {d}", c["case"]));
                }
            }
        }
    }
    out
}

/// The corpus unpacked once per test process: `DIR/<file>` for every manifest entry, and
/// `DIR/manifest.json`.
fn unpacked() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        // One directory, unpacked afresh by each run of this test binary.
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("realworld");
        let _ = std::fs::remove_dir_all(&dir);
        for e in manifest() {
            let stored = real().join(e["stored"].as_str().unwrap());
            let out = Command::new("xz")
                .arg("-dc")
                .arg(&stored)
                .output()
                .unwrap_or_else(|err| {
                    panic!("xz unpacks corpus/real (ci/install-deps installs xz-utils): {err}")
                });
            assert!(out.status.success(), "xz -dc {}", stored.display());
            let dest = dir.join(e["file"].as_str().unwrap());
            std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
            std::fs::write(&dest, &out.stdout).unwrap();
        }
        std::fs::copy(real().join("manifest.json"), dir.join("manifest.json")).unwrap();
        dir
    })
}

/// Every stored file is in the manifest and the reverse; every one is an ELF file; the
/// corpus has what issue 25 asks: six projects or more (a C++ one among them), each
/// (release, ABI) pair for which GNU as writes SFrame, shared objects and relocatable ones,
/// and the outputs of binutils' own SFrame tests.
#[test]
fn the_manifest_lists_every_stored_file() {
    fn stored(d: &Path, root: &Path, out: &mut BTreeSet<String>) {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stored(&p, root, out);
            } else if p.extension().is_some_and(|x| x == "xz") {
                out.insert(p.strip_prefix(root).unwrap().display().to_string());
            }
        }
    }
    let mut on_disk = BTreeSet::new();
    stored(&real(), &real(), &mut on_disk);
    let m = manifest();
    let listed: BTreeSet<String> = m
        .iter()
        .map(|e| e["stored"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(on_disk, listed);
    let dir = unpacked();
    for e in &m {
        let f = e["file"].as_str().unwrap();
        let bytes = std::fs::read(dir.join(f)).unwrap();
        assert!(bytes.starts_with(b"\x7fELF"), "{f} is not ELF");
    }
    let lib: Vec<&Value> = m.iter().filter(|e| is_library(e)).collect();
    let projects: BTreeSet<&str> = lib.iter().map(|e| e["project"].as_str().unwrap()).collect();
    assert!(projects.len() >= 6, "projects: {projects:?}");
    assert!(
        lib.iter()
            .any(|e| e["compiler"].as_str().unwrap().contains("g++")),
        "no C++ project"
    );
    let pairs: BTreeSet<(&str, &str)> = lib
        .iter()
        .map(|e| (e["release"].as_str().unwrap(), e["abi"].as_str().unwrap()))
        .collect();
    for want in [
        ("2.40", "amd64"),
        ("2.40", "aarch64"),
        ("2.44", "amd64"),
        ("2.44", "aarch64"),
        ("2.47", "amd64"),
        ("2.47", "aarch64"),
        ("2.47", "s390x"),
    ] {
        assert!(pairs.contains(&want), "no file of GNU as {want:?}");
    }
    for kind in ["shared", "relocatable"] {
        assert!(lib.iter().any(|e| e["kind"] == kind), "no {kind} file");
    }
    assert!(m.len() > lib.len(), "no output of binutils' testsuite");
}

/// `check` reads every library file (no unreadable one: exit status 2 would say so),
/// attributes each to its producer, and every violation it reports names a rule of the
/// catalogue.
#[test]
fn check_reads_every_library_file_and_every_verdict_names_a_rule() {
    let m: Vec<Value> = manifest().into_iter().filter(is_library).collect();
    let out = run_on_libraries(&["check", "--json"]);
    assert_ne!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out);
    assert_eq!(v["total"]["files"], m.len(), "{:#}", v["summary"]);
    let rules = json(&run(&["rules", "--json"]));
    let known: BTreeSet<String> = rules
        .as_array()
        .or_else(|| rules["rules"].as_array())
        .expect("rules --json lists rules")
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect();
    let files = v["files"].as_array().unwrap();
    assert_eq!(files.len(), m.len());
    for f in files {
        assert_ne!(f["producer"], "-", "{} has no producer", f["file"]);
        for viol in f["violations"].as_array().unwrap() {
            let rule = viol["rule"].as_str().unwrap_or_default();
            assert!(known.contains(rule), "{}: {viol}", f["file"]);
        }
    }
}

/// The verdicts on real producer output as they stand: no error on any file. A false alarm
/// is a defect of the tool; the warnings seen when this corpus was built are listed here,
/// each with the files it met, so that a change in them is seen.
///
/// FDE-REP-SIZE-INC (inferred rule, warning): ld 2.44 writes repetition size 16 in the FDE of
/// the x86-64 PLT0 (a PC-increment FDE) of every shared object: harmless, the field has no
/// meaning there. HDR-SECTION-END (warning): GNU as 2.47 pads the `.sframe` section of s390x
/// relocatable objects to its 8-byte alignment, so bytes follow the FRE sub-section. Both
/// are candidates for false alarms on real output, reported to the rule owners (issue 25);
/// the expectation below is what `check` says today, not what the texts require.
#[test]
fn check_finds_no_error_in_the_libraries() {
    let dir = unpacked();
    let out = run_on_libraries(&["check", "--json"]);
    let v = json(&out);
    let mut errors = Vec::new();
    let mut warnings: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in v["files"].as_array().unwrap() {
        let file = f["file"].as_str().unwrap();
        let rel = Path::new(file)
            .strip_prefix(dir)
            .unwrap()
            .display()
            .to_string();
        for viol in f["violations"].as_array().unwrap() {
            if viol["severity"] == "error" {
                errors.push(format!("{rel}: {}", viol["message"]));
            } else {
                warnings
                    .entry(viol["rule"].as_str().unwrap().to_string())
                    .or_default()
                    .insert(rel.clone());
            }
        }
    }
    assert!(
        errors.is_empty(),
        "errors on real output:\n{}",
        errors.join("\n")
    );
    assert_eq!(out.status.code(), Some(0));
    // The warnings, by rule: which (release, ABI, kind) they met.
    let m = manifest();
    let meta: BTreeMap<&str, (&str, &str, &str)> = m
        .iter()
        .map(|e| {
            (
                e["file"].as_str().unwrap(),
                (
                    e["release"].as_str().unwrap(),
                    e["abi"].as_str().unwrap(),
                    e["kind"].as_str().unwrap(),
                ),
            )
        })
        .collect();
    let seen: BTreeMap<String, BTreeSet<(&str, &str, &str)>> = warnings
        .iter()
        .map(|(rule, files)| {
            (
                rule.clone(),
                files.iter().map(|f| meta[f.as_str()]).collect(),
            )
        })
        .collect();
    let expected: BTreeMap<String, BTreeSet<(&str, &str, &str)>> = [
        (
            "FDE-REP-SIZE-INC".to_string(),
            BTreeSet::from([("2.44", "amd64", "shared")]),
        ),
        (
            "HDR-SECTION-END".to_string(),
            BTreeSet::from([("2.47", "s390x", "relocatable")]),
        ),
    ]
    .into();
    assert_eq!(seen, expected, "warnings on real output: {warnings:#?}");
}

/// `dump --json` reads every library file, with as many functions as the section header counts
/// (the manifest's num_fdes, read from the bytes by the build script).
#[test]
fn dump_lists_every_function() {
    let dir = unpacked();
    let m: Vec<Value> = manifest().into_iter().filter(is_library).collect();
    let out = run_on_libraries(&["dump", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out);
    let dumped: BTreeMap<String, usize> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let rel = Path::new(d["file"].as_str().unwrap())
                .strip_prefix(dir)
                .unwrap()
                .display()
                .to_string();
            (rel, d["functions"].as_array().unwrap().len())
        })
        .collect();
    assert_eq!(dumped.len(), m.len());
    for e in &m {
        let f = e["file"].as_str().unwrap();
        assert_eq!(
            dumped.get(f).copied(),
            e["num_fdes"].as_u64().map(|n| n as usize),
            "{f}"
        );
    }
}

/// Each release's objdump reads these files as the reference does, or the difference is
/// explained by a finding of the ledger; and the comparison is not vacuous: each objdump
/// agrees on files of the SFrame version its release writes.
#[test]
fn objdump_of_each_release_agrees_or_is_ledgered() {
    let v = json(&run_on_libraries(&diff_objdumps()));
    let unexplained = unexplained(&v);
    assert!(
        unexplained.is_empty(),
        "unexplained discrepancies:\n{}",
        unexplained.join("\n")
    );
    let s = &v["summary"]["implementations"];
    for (imp, ver) in [
        ("objdump-2.40", "v1"),
        ("objdump-2.44", "v2"),
        ("objdump-2.47", "v2"),
        ("objdump-2.47", "v3"),
    ] {
        assert!(
            s[imp][ver]["agree"].as_u64().unwrap_or(0) > 0,
            "{imp} agrees on no {ver} file: {s:#}"
        );
    }
}

/// binutils' own SFrame tests, built with each release's tools (`ci/binutils-sframe-tests`):
/// every output with a `.sframe` section is read, and none whose test passes (binutils
/// accepts the output as what its tools must write) gets an error verdict.
///
/// Each of these was a false alarm at 8baac2d (issue 25): `ld-sframe/pr33401/pr33401.o`
/// (2.47, every ABI) unreadable ("cannot apply relocation type 0": `ld -r` leaves R_*_NONE
/// relocations in `.rela.sframe`); `ld-sframe/pr32769-2`, `-2r`, `-3` an error
/// FRE-START-IN-FUNCTION for an FRE at its function's end, which the tests expect (now the
/// warning FRE-START-AT-END, finding F0006); `sframe-command-line-1/dump` (2.47) an error
/// PRE-MAGIC on the empty `.sframe` that `ld --discard-sframe` leaves (now no SFrame data).
#[test]
fn binutils_testsuite_outputs_are_read_without_false_alarms() {
    let dir = unpacked();
    let m: Vec<Value> = manifest().into_iter().filter(|e| !is_library(e)).collect();
    assert!(m.len() >= 100, "only {} binutils test outputs", m.len());
    let mut unread = Vec::new();
    let mut alarms = Vec::new();
    let accepted: BTreeSet<PathBuf> = m
        .iter()
        .filter(|e| e["test_verdict"] == "pass")
        .map(|e| dir.join(e["file"].as_str().unwrap()))
        .collect();
    let mut errors_in = |v: &Value| {
        for file in v["files"].as_array().unwrap() {
            let f = PathBuf::from(file["file"].as_str().unwrap());
            if !accepted.contains(&f) {
                continue;
            }
            for viol in file["violations"].as_array().unwrap() {
                if viol["severity"] == "error" {
                    let rel = f.strip_prefix(dir).unwrap().display().to_string();
                    alarms.push(format!("{rel}: {}", viol["message"]));
                }
            }
        }
    };
    // All files in one run: the walk reads every file and lists those it could not.
    let paths: Vec<String> = m
        .iter()
        .map(|e| dir.join(e["file"].as_str().unwrap()).display().to_string())
        .collect();
    let mut args = vec!["check", "--json"];
    args.extend(paths.iter().map(String::as_str));
    let v = json(&run(&args));
    errors_in(&v);
    for u in v["walk"]["unreadable"].as_array().unwrap() {
        unread.push(format!("{}: {}", u["path"], u["reason"]));
    }
    let readable: Vec<&str> = paths
        .iter()
        .map(String::as_str)
        .filter(|p| !unread.iter().any(|u| u.contains(p)))
        .collect();
    // Each release's objdump on what could be read: agreement, or a finding explains it.
    let mut args = diff_objdumps();
    args.extend(readable);
    let diff = unexplained(&json(&run(&args)));
    assert!(
        unread.is_empty() && alarms.is_empty() && diff.is_empty(),
        "unreadable:\n{}\nerrors on outputs binutils' tests accept:\n{}\n\
         unexplained discrepancies with objdump:\n{}",
        unread.join("\n"),
        alarms.join("\n"),
        diff.join("\n")
    );
}

/// `crosscheck` on the whole corpus (libraries and binutils' test outputs): every file with
/// SFrame is compared with its own `.eh_frame` at every PC, and every disagreement is a
/// finding of the ledger. Not vacuous: millions of PCs per ABI, and ld's real PLT bugs
/// (F0240, ld 2.40; F0241, ld 2.44 and 2.47) are among the disagreements seen.
#[test]
fn crosscheck_explains_every_disagreement_with_eh_frame() {
    let dir = unpacked();
    let out = run(&["crosscheck", "--json", "--jobs", "2", dir.to_str().unwrap()]);
    let v = json(&out);
    let new: Vec<&String> = v["signatures"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, i)| i["finding"].is_null())
        .map(|(s, _)| s)
        .collect();
    assert!(new.is_empty(), "not in the ledger: {new:?}");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(v["walk"]["unreadable"].as_array().unwrap().is_empty());
    let mut pcs: BTreeMap<String, u64> = BTreeMap::new();
    for c in v["summary"].as_array().unwrap() {
        *pcs.entry(c["abi"].as_str().unwrap().to_string())
            .or_default() += c["pcs_checked"].as_u64().unwrap();
    }
    for abi in ["amd64", "aarch64", "s390x"] {
        assert!(
            pcs.get(abi).copied().unwrap_or(0) > 500_000,
            "{abi}: {pcs:?}"
        );
    }
    let findings: BTreeSet<&str> = v["signatures"]
        .as_object()
        .unwrap()
        .values()
        .filter_map(|i| i["finding"].as_str())
        .map(|f| f.get(..5).unwrap_or(f))
        .collect();
    assert!(
        findings.contains("F0240") && findings.contains("F0241"),
        "{findings:?}"
    );
}

/// The emulator oracle on real libraries (one per ABI and zlib on s390x, GNU as and ld 2.47): every mismatch is
/// a finding of the ledger (F0241: ld's `.plt.got` rows, amd64; F0251: GCC's s390x CFI),
/// never a false alarm, and the report is the same for one worker thread and two.
#[test]
fn oracle_on_real_libraries_is_explained_and_independent_of_jobs() {
    let dir = unpacked();
    let files: Vec<String> = [
        "amd64/gnu-as-2.47/lmdb/liblmdb.so",
        "aarch64/gnu-as-2.47/zlib/libzlib.so",
        "s390x/gnu-as-2.47/expat/libexpat.so",
        "s390x/gnu-as-2.47/zlib/libzlib.so",
    ]
    .iter()
    .map(|f| dir.join(f).display().to_string())
    .collect();
    let report = |jobs: &str| {
        let mut args = vec![
            "oracle", "--json", "--runs", "1", "--seed", "1", "--jobs", jobs,
        ];
        args.extend(files.iter().map(String::as_str));
        let out = run(&args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut v = json(&out);
        // Times differ from run to run; nothing else may.
        for f in v["files"].as_array_mut().unwrap() {
            f["report"]["stats"] = Value::Null;
        }
        v["walk"]["seconds"] = Value::Null;
        v["total"]["seconds"] = Value::Null;
        v
    };
    let two = report("2");
    let mut findings = BTreeSet::new();
    let mut rows = 0;
    for f in two["files"].as_array().unwrap() {
        rows += f["report"]["summary"]["rows_checked"].as_u64().unwrap();
        for s in f["signatures"].as_array().unwrap() {
            let finding = s["finding"].as_str().unwrap_or_else(|| panic!("new: {s}"));
            findings.insert(finding.get(..5).unwrap_or(finding).to_string());
        }
    }
    assert!(rows > 1_000_000, "{rows} rows checked");
    // s390x: a load through a pointer into unmapped memory is mapped on demand and the run
    // goes on, as on the other ABIs (Unicorn's s390x raises a program interruption there,
    // not the unmapped-memory hook); it ended 589 of zlib's 1059 runs as `trap` before.
    let zlib = &two["files"].as_array().unwrap()[3];
    let (mut runs, mut traps) = (0, 0);
    for f in zlib["report"]["functions"].as_array().unwrap() {
        for (k, n) in f["outcomes"].as_object().unwrap() {
            runs += n.as_u64().unwrap();
            traps += if k == "trap" { n.as_u64().unwrap() } else { 0 };
        }
    }
    assert!(traps * 5 < runs, "{traps} of {runs} runs trapped");
    assert_eq!(
        findings,
        BTreeSet::from(["F0241".to_string(), "F0251".to_string()])
    );
    assert!(report("1") == two, "--jobs 1 and --jobs 2 disagree");
}

/// The oracle's false alarms on the real-world corpus at a82fd42, one file per case and ABI,
/// now explained (issue 25): binutils' hand-written CFI tests whose CFI does not describe
/// their code on purpose (the row is wrong in `.eh_frame` too: counted as
/// `cfi-does-not-describe-code`, no signature), FDEs of AArch64 data bytes at addresses no
/// instruction can start at (`misaligned-start`, no run), a forced branch past a jump
/// table's bounds check landing at another function's start with its caller's frame still
/// allocated (lua `getdetails`, AArch64, GNU as 2.40: `unbalanced-tail-call`; not run here,
/// to keep the test short), a noreturn call's emulated return running into the next function
/// with the frame still allocated (libsodium `sodium_base642bin`, s390x: the same reason),
/// and a callee overrunning a buffer into its caller's return-address slot on a forced path
/// (libsodium `stream_ref`, AArch64: `ra-slot-overwritten`, seen in a caller frame). What
/// stays is GCC's CFI (F0251, s390x), whose signature names the compiler, not gas.
#[test]
fn oracle_false_alarms_of_the_real_corpus_are_explained() {
    let dir = unpacked();
    let files: Vec<String> = [
        "binutils-testsuite/2.47.50.20261021-1/amd64/gas/cfi-sframe/cfi-sframe-x86_64-6/cfi-sframe-x86_64-6.o",
        "binutils-testsuite/2.47.50.20261021-1/aarch64/ld/ld-sframe/pr32769-2/pr32769-2.o",
        "binutils-testsuite/2.47.50.20261021-1/s390x/ld/ld-sframe/pr32769-3/pr32769-3.o",
        "aarch64/gnu-as-2.47/sodium/libsodium.so",
        "s390x/gnu-as-2.47/sodium/libsodium.so",
    ]
    .iter()
    .map(|f| dir.join(f).display().to_string())
    .collect();
    let mut args = vec![
        "oracle", "--json", "--runs", "1", "--seed", "1", "--jobs", "2",
    ];
    args.extend(files.iter().map(String::as_str));
    let out = run(&args);
    let v = json(&out);
    let mut faults: BTreeMap<String, u64> = BTreeMap::new();
    let mut skipped: BTreeSet<String> = BTreeSet::new();
    let mut dropped: BTreeSet<String> = BTreeSet::new();
    let mut findings = BTreeSet::new();
    for f in v["files"].as_array().unwrap() {
        for (k, n) in f["mismatches_by_fault"].as_object().unwrap() {
            *faults.entry(k.clone()).or_default() += n.as_u64().unwrap();
        }
        let s = &f["report"]["summary"];
        skipped.extend(s["skipped"].as_object().unwrap().keys().cloned());
        dropped.extend(s["dropped"].as_object().unwrap().keys().cloned());
        for s in f["signatures"].as_array().unwrap() {
            let finding = s["finding"]
                .as_str()
                .unwrap_or_else(|| panic!("new in {}: {s}", f["file"]));
            let sig: Signature = s["signature"].as_str().unwrap().parse().unwrap();
            assert!(
                matches!(&sig, Signature::Oracle { producer, .. } if *producer == Producer::named("gcc-12.2.0")),
                "{s}"
            );
            assert_eq!(s["blame"], "cfi", "{s}");
            findings.insert(finding.get(..5).unwrap_or(finding).to_string());
        }
    }
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(findings, BTreeSet::from(["F0251".to_string()]));
    assert!(
        faults
            .get("cfi-does-not-describe-code")
            .copied()
            .unwrap_or(0)
            > 0,
        "{faults:?}"
    );
    assert!(skipped.contains("misaligned-start"), "{skipped:?}");
    for why in ["unbalanced-tail-call", "ra-slot-overwritten"] {
        assert!(dropped.contains(why), "{why}: {dropped:?}");
    }
}
