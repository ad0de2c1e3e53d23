//! The worker hosting a SanitizerCoverage build (`ci/instrumented-libs --flavour sancov`)
//! with `SFRAME_WORKER_COVERAGE=PREFIX` reports the library's edges per request in
//! `PREFIX.cur` and the edges reached so far in `PREFIX.ever` (`worker/src/coverage.rs`):
//! decoding a real section reaches edges an empty input does not, and both files count
//! them. Without the builds the test is skipped loudly, and fails under CI.

mod common;

use sframe_impls::instrumented::{builds, dir as instrumented_dir};
use std::io::Write;
use std::process::{Command, Stdio};

fn edges(path: &std::path::Path) -> usize {
    std::fs::read(path)
        .expect("coverage file")
        .iter()
        .filter(|&&b| b != 0)
        .count()
}

/// Decode `data` in a fresh coverage worker; the edges of `.cur` and `.ever` after it.
fn decode_edges(
    build: &sframe_impls::instrumented::InstrumentedBuild,
    data: &[u8],
) -> (usize, usize) {
    let dir = tempdir();
    let prefix = dir.join(build.implementation());
    let mut child = Command::new(env!("CARGO_BIN_EXE_sframe-worker"))
        .arg("--libsframe")
        .arg(&build.path)
        .args(["--release", &build.release])
        .env("SFRAME_WORKER_COVERAGE", &prefix)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the worker starts");
    let hex: String = data.iter().map(|b| format!("{b:02x}")).collect();
    writeln!(
        child.stdin.as_mut().unwrap(),
        "{{\"op\":\"decode\",\"data\":\"{hex}\"}}"
    )
    .unwrap();
    drop(child.stdin.take());
    let out = child.wait_with_output().expect("the worker answers");
    let answer = String::from_utf8_lossy(&out.stdout);
    assert!(answer.contains("\"status\""), "no answer: {answer}");
    let e = (
        edges(std::path::Path::new(&format!("{}.cur", prefix.display()))),
        edges(std::path::Path::new(&format!("{}.ever", prefix.display()))),
    );
    let _ = std::fs::remove_dir_all(&dir);
    e
}

fn tempdir() -> std::path::PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let d = std::env::temp_dir().join(format!(
        "sframe-lib-coverage-test-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn a_decoded_section_reaches_more_libsframe_edges_than_an_empty_one() {
    let Some(build) = builds("sancov")
        .into_iter()
        .find(|b| b.implementation() == "libsframe-2.47")
    else {
        let msg = format!(
            "no SanitizerCoverage build of libsframe 2.47 in {}: run `ci/instrumented-libs --flavour sancov` (ci/test does)",
            instrumented_dir("sancov").display()
        );
        assert!(std::env::var_os("CI").is_none(), "{msg}");
        eprintln!("SKIPPED: {msg}");
        return;
    };
    let (cur_empty, ever_empty) = decode_edges(&build, &[]);
    let (cur, ever) = decode_edges(&build, &common::valid_v2());
    assert!(
        cur > 0 && cur == ever,
        "one request: .cur {cur}, .ever {ever}"
    );
    assert!(
        cur > cur_empty && ever > ever_empty,
        "a valid section reaches {cur} edges, an empty input {cur_empty}"
    );
}
