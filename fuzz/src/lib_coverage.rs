//! Coverage from inside libsframe and glibc's reader, handed to libFuzzer as extra counters.
//!
//! With `SFRAME_FUZZ_LIB_COVERAGE=1` (steer) or `=measure` (count only), every input of a
//! target that calls [`observe`] is also given to a worker hosting the SanitizerCoverage
//! build of each release (`ci/instrumented-libs --flavour sancov`, read from its manifests),
//! beside the Debian binaries, which stay the implementations under test (the instrumented
//! copies' answers are not compared). Each such worker adds the library's counters of a
//! request into a file shared with this process (`sframe_worker::coverage`): the file is
//! zeroed before the input and read after it, and with `=1` its bytes are copied into the
//! target's `__libfuzzer_extra_counters` array (one [`SLOT`] per library), so that libFuzzer
//! counts a new libsframe edge as new coverage. `<dir>/<implementation>.ever` keeps one
//! byte per edge reached in the run (`ci/lib-coverage DIR` counts them, over every fuzzing
//! process); `<dir>` is `$SFRAME_FUZZ_LIB_COVERAGE_DIR/<pid>` (default directory
//! `/dev/shm/sframe-lib-coverage`).
//! Without a sancov build of a provisioned release, the run refuses to start and says
//! which command builds it.

use sframe_harness::diff::pcs_for;
use sframe_harness::impls::process::{Launch, ProcessImpl};
use sframe_harness::impls::reference::Reference;
use sframe_harness::impls::{Hosting, Implementation, Outcome, Pipelined};
use sframe_impls::instrumented::{builds, dir as instrumented_dir};
use sframe_impls::toolchains::worker_path;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::OnceLock;

/// Extra counters per library (libsframe 2.47, the largest, has 569 edges).
pub const SLOT: usize = 4096;
/// Libraries at most (libsframe 2.40, 2.44, 2.47, glibc's reader).
pub const SLOTS: usize = 4;

/// Steer libFuzzer with the counters, or only count the edges reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Steer,
    Measure,
}

struct Side {
    name: String,
    worker: ProcessImpl,
    cur: std::fs::File,
    /// The library's counters: the length of `cur` (the worker sized it at its start), at
    /// most [`SLOT`].
    len: usize,
}

/// The instrumented workers of a run.
pub struct LibCoverage {
    pub mode: Mode,
    pub dir: PathBuf,
    sides: Vec<Side>,
}

fn start() -> Result<Option<LibCoverage>, String> {
    let mode = match std::env::var("SFRAME_FUZZ_LIB_COVERAGE").as_deref() {
        Ok("1") => Mode::Steer,
        Ok("measure") => Mode::Measure,
        Ok("") | Ok("0") | Err(_) => return Ok(None),
        Ok(other) => {
            return Err(format!(
                "SFRAME_FUZZ_LIB_COVERAGE={other}: say 1 or measure"
            ))
        }
    };
    // One directory per fuzzing process (libFuzzer's fork mode runs several).
    let dir = std::env::var_os("SFRAME_FUZZ_LIB_COVERAGE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/dev/shm/sframe-lib-coverage"))
        .join(std::process::id().to_string());
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let worker = worker_path().ok_or("sframe-worker not found (build it or set SFRAME_WORKER)")?;
    let builds = builds("sancov");
    if builds.is_empty() {
        return Err(format!(
            "SFRAME_FUZZ_LIB_COVERAGE: no SanitizerCoverage builds in {}: run `ci/instrumented-libs --flavour sancov`",
            instrumented_dir("sancov").display()
        ));
    }
    let mut sides = Vec::new();
    for m in builds.into_iter().take(SLOTS) {
        let name = m.implementation();
        let prefix = dir.join(&name);
        let flag = if m.lib == "glibc" {
            "--glibc"
        } else {
            "--libsframe"
        };
        let mut launch = Launch::new(&worker)
            .arg(flag)
            .arg(&m.path)
            .arg("--release")
            .arg(&m.release)
            .arg("--version")
            .arg(&m.version);
        launch
            .env
            .push(("SFRAME_WORKER_COVERAGE".into(), prefix.clone().into()));
        let worker = ProcessImpl::start(launch, Hosting::Worker)
            .map_err(|e| format!("{name} (sancov): {e}"))?;
        let cur = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(format!("{}.cur", prefix.display()))
            .map_err(|e| format!("{name}: the worker made no coverage file: {e}"))?;
        let len = cur.metadata().map_or(0, |m| m.len() as usize).min(SLOT);
        sides.push(Side {
            name,
            worker,
            cur,
            len,
        });
    }
    Ok(Some(LibCoverage { mode, dir, sides }))
}

/// The run's instrumented workers (started on first use), `None` when not asked for; a
/// run that asks for them and cannot have them stops with the reason.
pub fn get() -> Option<&'static LibCoverage> {
    static COV: OnceLock<Option<LibCoverage>> = OnceLock::new();
    COV.get_or_init(|| match start() {
        Ok(c) => {
            if let Some(c) = &c {
                eprintln!(
                    "sframe-fuzz: library coverage ({:?}) from {} in {}",
                    c.mode,
                    c.sides
                        .iter()
                        .map(|s| s.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                    c.dir.display()
                );
            }
            c
        }
        Err(e) => crate::differential::refuse(&format!("sframe-fuzz: {e}")),
    })
    .as_ref()
}

/// Give `data` to every instrumented worker (decode, then look-ups at the engine's PCs) and,
/// when steering, copy each library's counters for it into `extra` (the target's
/// `__libfuzzer_extra_counters`, [`SLOT`] bytes per library). Every worker is asked before
/// any answer is read (as the engine asks the implementations), so that they work at the
/// same time.
pub fn observe(data: &[u8], extra: &[AtomicU8]) {
    let Some(c) = get() else { return };
    let decoded = match Reference.decode(data) {
        Outcome::Ok { value } => Some(value),
        _ => None,
    };
    let pcs = pcs_for(data, decoded.as_ref(), 64);
    const ZEROS: [u8; SLOT] = [0; SLOT];
    for s in &c.sides {
        let _ = s.cur.write_all_at(&ZEROS[..s.len], 0);
        s.worker.decode_and_find_begin(data, &pcs);
    }
    let mut buf = [0u8; SLOT];
    for (k, s) in c.sides.iter().enumerate() {
        let _ = s.worker.decode_and_find_end(data, &pcs);
        if c.mode != Mode::Steer || s.cur.read_exact_at(&mut buf[..s.len], 0).is_err() {
            continue;
        }
        let base = k * SLOT;
        for (i, &v) in buf[..s.len].iter().enumerate() {
            if v != 0 {
                if let Some(e) = extra.get(base + i) {
                    e.store(v, Ordering::Relaxed);
                }
            }
        }
    }
}
