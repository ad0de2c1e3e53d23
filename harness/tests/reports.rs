//! The bug reports of `corpus/findings/*/report.md` (`sframe_harness::report`):
//!
//! - each is exactly what rendering its `report.json` and `finding.json` gives (regenerate
//!   with `sframe-conform report --all --in-place`, or `SFRAME_REGENERATE_REPORTS=1` here);
//! - each reproducer, run as the report prints it with the upstream tools of every release
//!   the report names (binutils 2.40, 2.44, 2.47 and LLVM 23 from `ci/toolchains`, put on
//!   `PATH` under the names the report uses; `gcc` there builds against that release's
//!   libsframe headers and library, as with its libsframe-dev installed; for simple-frame-rs,
//!   `cargo` and `rustc` of the toolchain running the test, offline, building against the
//!   crate in the local registry cache), ends as the report says and prints every line
//!   the report shows as the actual answer: the lines come from the real tools, and a tool
//!   that no longer prints them fails the test;
//! - glibc's reports build glibc's own `sysdeps/generic/sframe-read.c` from the Debian source
//!   tree ci/upstream-sources unpacked (linked into the work directory as `glibc-2.43`), with
//!   the system's gcc;
//! - the releases the reports name are the provisioned ones, and the manual's sentences
//!   they quote are in the manual Debian ships.
//!
//! A tool that is not provisioned fails the test (never skipped).

use sframe_harness::ledger::Ledger;
use sframe_harness::report::{self, Content, Prepared, Project, Refusal, OUTPUT, RELEASES};
use sframe_harness::signature::Signal;
use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Command;

fn prepared() -> Vec<Prepared> {
    let dir = Ledger::default_dir();
    let ledger = Ledger::load(&dir).expect("the findings ledger loads");
    let mut out = Vec::new();
    for f in &ledger.findings {
        let has_input = dir.join(&f.id).join(report::INPUT).exists();
        let has_output = dir.join(&f.id).join(OUTPUT).exists();
        assert_eq!(
            has_input, has_output,
            "{}: report.json and report.md go together",
            f.id
        );
        if has_input {
            match report::prepare(&dir, f) {
                Ok(p) => out.push(p),
                Err(r) => panic!("{r}"),
            }
        }
    }
    assert!(!out.is_empty(), "no report in the ledger");
    out
}

#[test]
fn committed_reports_are_what_rendering_gives() {
    let dir = Ledger::default_dir();
    let regenerate = std::env::var_os("SFRAME_REGENERATE_REPORTS").is_some();
    let mut stale = Vec::new();
    for p in prepared() {
        let want = report::render(&p, report::Format::Markdown);
        let path = dir.join(&p.finding.id).join(OUTPUT);
        if regenerate {
            std::fs::write(&path, &want).expect("write report.md");
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(want.as_str()) {
            stale.push(p.finding.id.clone());
        }
        // The bugzilla text holds the same reproducer, verbatim.
        let bz = report::render(&p, report::Format::Bugzilla);
        for (name, content) in &p.files {
            let script = report::render::file_script(name, content);
            assert!(
                bz.contains(&script),
                "{}: bugzilla text lacks {name}",
                p.finding.id
            );
        }
    }
    assert!(
        stale.is_empty(),
        "stale report.md (run `sframe-conform report --all --in-place`): {stale:?}"
    );
}

#[test]
fn findings_that_are_not_open_bugs_are_refused() {
    let dir = Ledger::default_dir();
    let ledger = Ledger::load(&dir).expect("the findings ledger loads");
    let find = |prefix: &str| {
        ledger
            .findings
            .iter()
            .find(|f| f.id.starts_with(prefix))
            .expect("finding in the ledger")
    };
    // F0006: a spec ambiguity; F0101: fixed in the newest gas (its upstream_status).
    assert!(matches!(
        report::prepare(&dir, find("F0006-")),
        Err(Refusal::NotABug { .. })
    ));
    assert!(matches!(
        report::prepare(&dir, find("F0101-")),
        Err(Refusal::NotPresent { .. })
    ));
}

#[test]
fn a_sanitizer_report_beside_the_finding_is_in_its_report() {
    let src = Ledger::default_dir();
    let ledger = Ledger::load(&src).expect("the findings ledger loads");
    let p = prepared().into_iter().next().expect("a report");
    let tmp = scratch("sanitizer");
    let dir = tmp.join(&p.finding.id);
    std::fs::create_dir_all(&dir).unwrap();
    for e in std::fs::read_dir(src.join(&p.finding.id)).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), dir.join(e.file_name())).unwrap();
    }
    let text =
        "==1==ERROR: AddressSanitizer: stack-buffer-overflow on address 0x7ff\nWRITE of size 60\n";
    // One of a release the report is about, one of a release it is not (left out).
    let name = format!("sanitizer-libsframe-{}.txt", p.input.releases[0]);
    std::fs::write(dir.join(&name), text).unwrap();
    std::fs::write(dir.join("sanitizer-libsframe-0.0.txt"), "not this release").unwrap();
    let f = ledger
        .findings
        .iter()
        .find(|f| f.id == p.finding.id)
        .unwrap();
    let with = report::prepare(&tmp, f).expect("prepared from the copy");
    assert_eq!(with.sanitizer.len(), 1);
    for format in [report::Format::Markdown, report::Format::Bugzilla] {
        let r = report::render(&with, format);
        assert!(r.contains("Sanitizer report") && r.contains(&name));
        assert!(!r.contains("not this release"));
        assert!(r.contains(text.trim_end()));
        assert!(!report::render(&p, format).contains("Sanitizer report"));
    }
    std::fs::remove_dir_all(&tmp).unwrap();
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sframe-reports-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A directory of links naming `release`'s tools as the reports do (`as`, `objdump`,
/// `aarch64-linux-gnu-as`, `llvm-mc-23`, ...).
fn tool_dir(base: &Path, project: Project, release: &str, triple: &str) -> PathBuf {
    let cache = sframe_harness::cache_dir();
    let bin = cache.join("bin");
    let d = base.join(format!("bin-{release}"));
    std::fs::create_dir_all(&d).unwrap();
    let mut links: BTreeMap<String, PathBuf> = BTreeMap::new();
    match project {
        Project::Binutils => {
            for t in ["as", "ld", "objdump", "readelf"] {
                for tr in ["x86_64-linux-gnu", "aarch64-linux-gnu", "s390x-linux-gnu"] {
                    let target = bin.join(format!("{tr}-{t}-{release}"));
                    if tr == triple {
                        links.insert(t.into(), target.clone());
                    }
                    links.insert(format!("{tr}-{t}"), target);
                }
            }
        }
        Project::Llvm => {
            for t in ["llvm-mc", "llvm-readobj", "llvm-objdump", "clang"] {
                links.insert(format!("{t}-{release}"), bin.join(format!("{t}-{release}")));
            }
        }
        Project::SimpleFrameRs => {
            let cargo =
                PathBuf::from(std::env::var_os("CARGO").expect("CARGO (run by cargo test)"));
            let dir = cargo.parent().expect("cargo's directory");
            links.insert("cargo".into(), cargo.clone());
            links.insert("rustc".into(), dir.join("rustc"));
            assert!(
                crate_cached(release).is_some(),
                "simple-frame-rs {release} is not in the cargo registry cache (cargo fetch in the workspace)"
            );
        }
        Project::Glibc => {
            // The unpacked glibc tree the reproducer's build line names (`glibc-2.43/...`),
            // in the work directory; `gcc` is the system's own.
            let tree = glibc_tree(release);
            std::os::unix::fs::symlink(&tree, base.join(format!("glibc-{release}"))).unwrap();
            return d;
        }
    }
    // `gcc` as on a system with that release's libsframe-dev: its headers and library first;
    // the system's own assembler and linker (the host's, whatever the report's triple).
    let gcc = d.join("gcc");
    let inc = cache.join("include").join(release);
    let lib = cache.join(format!("lib/libsframe-{release}"));
    std::fs::write(
        &gcc,
        format!(
            "#!/bin/sh\nPATH=/usr/bin:/bin exec /usr/bin/gcc -I{} -L{} -Wl,-rpath,{} \"$@\"\n",
            inc.display(),
            lib.display(),
            lib.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&gcc, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    for (name, target) in links {
        assert!(
            target.exists(),
            "{} is not provisioned (run ci/toolchains --llvm)",
            target.display()
        );
        std::os::unix::fs::symlink(&target, d.join(name)).unwrap();
    }
    d
}

/// The `.crate` file of simple-frame-rs `version` in cargo's registry cache, which an
/// offline `cargo run` of a report's Cargo project builds from.
fn crate_cached(version: &str) -> Option<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))?;
    let cache = std::fs::read_dir(home.join("registry/cache")).ok()?;
    cache
        .filter_map(|e| e.ok())
        .map(|e| e.path().join(format!("simple-frame-rs-{version}.crate")))
        .find(|p| p.exists())
}

/// The glibc source tree of `release` that ci/upstream-sources unpacked (Debian's source
/// package, patches applied); a missing tree fails the test.
fn glibc_tree(release: &str) -> PathBuf {
    let r = report::release(Project::Glibc, release).expect("a glibc release under test");
    let tree = sframe_harness::cache_dir()
        .join("src")
        .join(format!("glibc-{}", r.debian));
    let reader = tree.join("sysdeps/generic/sframe-read.c");
    assert!(
        reader.exists(),
        "{} is not provisioned (run ci/upstream-sources)",
        reader.display()
    );
    tree
}

/// The lines of `shows` that `output` does not hold in that order (lines compared without
/// the blanks around them: objdump pads its columns; a line shown twice must be there twice).
/// An output line may hold more before the shown text: the program name that starts a
/// message is the path it was run by.
fn missing<'a>(output: &str, shows: &'a [String]) -> Vec<&'a str> {
    let mut lines = output.lines().map(str::trim);
    let mut missing = Vec::new();
    for want in shows {
        if !lines.any(|l| l.ends_with(want.trim())) {
            missing.push(want.as_str());
            lines = output.lines().map(str::trim);
        }
    }
    missing
}

#[test]
fn every_reproducer_shows_what_its_report_says_on_the_upstream_tools() {
    let base = scratch("run");
    let mut failures = Vec::new();
    for p in prepared() {
        let input = &p.input;
        for rel in &input.releases {
            let work = base.join(format!("{}-{rel}", &p.finding.id[..5]));
            std::fs::create_dir_all(&work).unwrap();
            let bin = tool_dir(&work, input.project, rel, &input.triple);
            for (name, content) in &p.files {
                let bytes = match content {
                    Content::Text(t) => t.as_bytes().to_vec(),
                    Content::Binary(b) => b.clone(),
                };
                std::fs::write(work.join(name), bytes).unwrap();
            }
            for step in &input.steps {
                let line = step.command_line();
                // `./prog`: the program the steps built, in the work directory.
                let program = match step.run[0].strip_prefix("./") {
                    Some(local) => work.join(local),
                    None => PathBuf::from(&step.run[0]),
                };
                let out = Command::new(program)
                    .args(&step.run[1..])
                    .current_dir(&work)
                    .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
                    .env("LC_ALL", "C")
                    // A Cargo project's `cargo run`: offline, from the registry cache, into one
                    // target directory for all reports; a panic prints as it does by default.
                    .env("CARGO_NET_OFFLINE", "true")
                    .env("CARGO_TARGET_DIR", base.join("cargo-target"))
                    .env_remove("RUST_BACKTRACE")
                    .output();
                let out = match out {
                    Ok(o) => o,
                    Err(e) => {
                        failures.push(format!("{} {rel}: `{line}`: {e}", p.finding.id));
                        break;
                    }
                };
                let status = match (out.status.code(), out.status.signal()) {
                    (Some(c), _) => Signal::Exit(c),
                    (None, Some(s)) => Signal::Number(s),
                    _ => Signal::Unknown,
                };
                let text = format!(
                    "{}{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                );
                let want = step.status_on(rel);
                if status != want {
                    failures.push(format!(
                        "{} {rel}: `{line}` ended with {status}, the report says {want}:\n{text}",
                        p.finding.id
                    ));
                }
                for l in missing(&text, step.shows_on(rel)) {
                    failures.push(format!(
                        "{} {rel}: `{line}` does not print `{l}` (in the order shown):\n{text}",
                        p.finding.id
                    ));
                }
            }
        }
    }
    std::fs::remove_dir_all(&base).unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_releases_reports_name_are_the_provisioned_ones() {
    let cache = sframe_harness::cache_dir();
    let json = std::fs::read_to_string(cache.join("toolchains.json"))
        .expect("toolchains.json (run ci/toolchains)");
    let tools: serde_json::Value = serde_json::from_str(&json).unwrap();
    let llvm = std::fs::read_to_string(cache.join("root/sid-llvm/.packages"))
        .expect("the LLVM tier's package list (run ci/toolchains --llvm)");
    for r in RELEASES {
        match r.project {
            Project::Binutils => {
                let hit = tools.as_array().unwrap().iter().any(|t| {
                    t["tool"] == "libsframe"
                        && t["release"] == r.release
                        && t["version"] == r.debian
                        && t["suite"] == r.suite
                });
                assert!(
                    hit,
                    "binutils {} is not Debian {} {}",
                    r.release, r.suite, r.debian
                );
            }
            Project::SimpleFrameRs => {
                // The workspace's own adapter is built against the same release.
                let lock = std::fs::read_to_string(
                    Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.lock"),
                )
                .expect("the workspace's Cargo.lock");
                let entry = format!("name = \"simple-frame-rs\"\nversion = \"{}\"", r.release);
                assert!(
                    lock.contains(&entry) && r.debian == r.release && r.suite == "crates.io",
                    "simple-frame-rs {} is not the crates.io release the workspace locks",
                    r.release
                );
                assert!(
                    crate_cached(r.release).is_some(),
                    "simple-frame-rs {} is not in the cargo registry cache",
                    r.release
                );
            }
            Project::Glibc => {
                // The source the reports build (ci/upstream-sources' sources.json) is this
                // Debian version, and the worker's build of the reader (ci/glibc-reader) too.
                glibc_tree(r.release);
                let json = std::fs::read_to_string(cache.join("src/sources.json"))
                    .expect("sources.json (run ci/upstream-sources)");
                let sources: serde_json::Value = serde_json::from_str(&json).unwrap();
                let hit = sources.as_array().unwrap().iter().any(|e| {
                    e["package"] == "glibc" && e["version"] == r.debian && e["suite"] == r.suite
                });
                assert!(
                    hit,
                    "glibc {} is not Debian {} {}",
                    r.release, r.suite, r.debian
                );
                let built = cache.join(format!("glibc-{}/glibc.json", r.release));
                let built = std::fs::read_to_string(&built)
                    .unwrap_or_else(|e| panic!("{}: {e} (run ci/glibc-reader)", built.display()));
                let built: serde_json::Value = serde_json::from_str(&built).unwrap();
                assert_eq!(
                    built["version"], r.debian,
                    "the worker's glibc {} reader is not built from Debian {}",
                    r.release, r.debian
                );
            }
            Project::Llvm => {
                let line = format!("llvm-{}\t{}", r.release, r.debian);
                assert!(
                    llvm.lines().any(|l| l == line),
                    "LLVM {} is not Debian llvm-{} {}",
                    r.release,
                    r.release,
                    r.debian
                );
            }
        }
    }
}

/// Whitespace runs folded, quotation marks dropped (as `spec/tests/texts.rs` compares).
fn normal(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, '\'' | '‘' | '’' | '"' | '“' | '”'))
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn quoted_sentences_of_the_manual_are_in_the_manual() {
    let cache = sframe_harness::cache_dir();
    for p in prepared() {
        for t in &p.input.decided_by {
            let Some((suite, _)) = t.source.split_once("/sframe-spec.info") else {
                continue;
            };
            let path = cache.join("spec").join(suite).join("sframe-spec.info");
            let text = std::fs::read(&path)
                .unwrap_or_else(|e| panic!("{}: {e} (run ci/toolchains)", path.display()));
            let text = normal(&String::from_utf8_lossy(&text));
            assert!(
                text.contains(&normal(&t.quote)),
                "{}: not in {}: {}",
                p.finding.id,
                path.display(),
                t.quote
            );
        }
    }
}
