//! Running a finding's reproducers on the ASan+UBSan builds of `ci/instrumented-libs`, in
//! the worker, to name the first bad access of each memory-safety finding.
//!
//! The worker hosts the sanitizer build exactly as it hosts Debian's (`--libsframe PATH` or
//! `--glibc PATH`, the same requests, a forked child per request), with `libasan` preloaded,
//! `SFRAME_WORKER_ASAN_INPUT=1` (the section on ASan's heap, not between guard pages) and
//! `allow_user_segv_handler=0` (ASan reports a fault, not the worker's crash reporter). A
//! crashed answer's detail is then the child's stderr: UBSan's runtime errors and ASan's
//! report, which [`sframe_harness::sanitizer::parse`] reads.
//!
//! Each reproducer is first decoded (`decode`: the header, every function, every FRE and
//! its getters, as the differential check does); one that decodes without a report is then
//! looked up (`find_fre`) at the PCs the differential engine would use
//! ([`sframe_harness::diff::pcs_for`], from the reference's decoding).

use crate::instrumented::{self, InstrumentedBuild};
use sframe_harness::diff::pcs_for;
use sframe_harness::impls::reference::Reference;
use sframe_harness::impls::{Implementation, Outcome};
use sframe_harness::sanitizer::{self, Operation, Parsed};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// At most this many PCs per look-up request.
const MAX_PCS: usize = 256;

/// Where `ci/instrumented-libs --flavour asan` puts its builds.
pub fn asan_dir() -> PathBuf {
    instrumented::dir("asan")
}

/// The ASan builds present (sorted by implementation name).
pub fn asan_builds() -> Vec<InstrumentedBuild> {
    instrumented::builds("asan")
}

/// What one reproducer gave on a sanitizer build.
#[derive(Debug, Clone)]
pub struct Run {
    pub reproducer: String,
    pub operation: Operation,
    /// The worker's answer status (`ok`, `crashed`, `rejected`, `unsupported`).
    pub status: String,
    /// The child's stderr when it crashed (the sanitizer's report).
    pub report: Option<String>,
    pub parsed: Option<Parsed>,
}

/// A worker's answer: its status, and the first crashed detail in it (a look-up answers
/// per PC, each PC's outcome with its own status).
struct Answer {
    status: String,
    detail: Option<String>,
}

fn first_crash(v: &serde_json::Value) -> Option<String> {
    if v.get("status").and_then(|s| s.as_str()) == Some("crashed") {
        return Some(v.get("detail")?.as_str()?.to_string());
    }
    v.get("value")?.as_array()?.iter().find_map(first_crash)
}

/// A worker hosting `build` under ASan, answering one request line at a time.
pub(crate) struct AsanWorker {
    child: std::process::Child,
    out: BufReader<std::process::ChildStdout>,
}

impl AsanWorker {
    pub(crate) fn start(worker: &Path, build: &InstrumentedBuild) -> std::io::Result<AsanWorker> {
        let flag = if build.lib == "glibc" {
            "--glibc"
        } else {
            "--libsframe"
        };
        let mut child = Command::new(worker)
            .args([flag])
            .arg(&build.path)
            .args(["--release", &build.release, "--version", &build.version])
            .env("LD_PRELOAD", &build.preload)
            .env(
                "ASAN_OPTIONS",
                "detect_leaks=0:allow_user_segv_handler=0:handle_abort=1:symbolize=1",
            )
            .env("UBSAN_OPTIONS", "print_stacktrace=1")
            .env("SFRAME_WORKER_ASAN_INPUT", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let out = BufReader::new(child.stdout.take().expect("piped stdout"));
        Ok(AsanWorker { child, out })
    }

    /// The worker's whole answer to `request`, read as `T` (an [`Outcome`] through the
    /// harness's wire reader, or the JSON as it is).
    ///
    /// [`Outcome`]: sframe_harness::impls::Outcome
    pub(crate) fn answer<T: serde::de::DeserializeOwned>(
        &mut self,
        request: &serde_json::Value,
    ) -> std::io::Result<T> {
        let stdin = self.child.stdin.as_mut().expect("piped stdin");
        writeln!(stdin, "{request}")?;
        stdin.flush()?;
        let mut line = String::new();
        if self.out.read_line(&mut line)? == 0 {
            return Err(std::io::Error::other("the worker ended without answering"));
        }
        serde_json::from_str(&line).map_err(std::io::Error::other)
    }

    fn ask(&mut self, request: &serde_json::Value) -> std::io::Result<Answer> {
        let v: serde_json::Value = self.answer(request)?;
        let detail = first_crash(&v);
        let status = match (&detail, v.get("status").and_then(|s| s.as_str())) {
            (Some(_), _) => "crashed".to_string(),
            (None, Some(s)) => s.to_string(),
            (None, None) => "unknown".to_string(),
        };
        Ok(Answer { status, detail })
    }
}

impl Drop for AsanWorker {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}

pub(crate) fn hex(data: &[u8]) -> String {
    data.iter().map(|b| format!("{b:02x}")).collect()
}

/// The PCs the differential engine looks up in `data` ([`pcs_for`] from the reference's
/// decoding).
pub fn lookup_pcs(data: &[u8]) -> Vec<i64> {
    let decoded = match Reference.decode(data) {
        Outcome::Ok { value } => Some(value),
        _ => None,
    };
    pcs_for(data, decoded.as_ref(), MAX_PCS)
}

/// Run each `(name, bytes)` on `build` (decode, then look-up when decoding gave no report),
/// in one worker. `only` restricts a reproducer to one operation (a recorded one's).
pub fn run(
    worker: &Path,
    build: &InstrumentedBuild,
    inputs: &[(String, Vec<u8>, Option<Operation>)],
) -> std::io::Result<Vec<Run>> {
    let mut w = AsanWorker::start(worker, build)?;
    let mut runs = Vec::new();
    for (name, data, only) in inputs {
        let mut last = None;
        for op in [Operation::Decode, Operation::FindFre] {
            if only.is_some_and(|o| o != op) {
                continue;
            }
            let req = match op {
                Operation::Decode => serde_json::json!({"op": "decode", "data": hex(data)}),
                Operation::FindFre => {
                    serde_json::json!({"op": "find_fre", "data": hex(data), "pcs": lookup_pcs(data)})
                }
            };
            let a = w.ask(&req)?;
            let report = a.detail;
            let parsed = report.as_deref().and_then(sanitizer::parse);
            let found = parsed.is_some();
            last = Some(Run {
                reproducer: name.clone(),
                operation: op,
                status: a.status,
                report,
                parsed,
            });
            if found {
                break;
            }
        }
        runs.extend(last);
    }
    Ok(runs)
}
