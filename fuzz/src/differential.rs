//! What the differential targets share: every implementation the harness can run here (the
//! reference and simple-frame-rs in this process, each provisioned GNU libsframe in its own
//! `sframe-worker`, where a crash or hang is an outcome, not the fuzzer's death), built once
//! per process, and the findings ledger. A discrepancy whose signature the ledger does not
//! cover makes the target panic, naming it, so that libFuzzer keeps the input.
//!
//! Environment:
//! - `SFRAME_CONFORM_LEDGER`: the findings directory (default: the repository's
//!   `corpus/findings`);
//! - `SFRAME_WORKER`: the `sframe-worker` binary (default: beside the target binary, or one
//!   directory up);
//! - `SFRAME_FUZZ_REQUIRE_ALL=1`: refuse to start when an implementation (a libsframe
//!   release) cannot be provisioned, instead of warning on stderr and going on without it.
//!   `ci/fuzz-smoke` sets it.
//!
//! The text adapters (objdump) are left out: one process per input is too slow to fuzz.

use sframe_conform::impls::registry::{Options, Registry};
use sframe_harness::diff::{Case, CaseResult, Engine};
use sframe_harness::ledger::Ledger;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

/// The implementations and the ledger.
pub struct Differential {
    pub engine: Engine,
    pub ledger: Ledger,
}

static DIFFERENTIAL: OnceLock<Differential> = OnceLock::new();

/// At most this many PCs per section when the target does not choose them.
pub const MAX_PCS: usize = 32;

/// The shared state, built on first use.
pub fn get() -> &'static Differential {
    DIFFERENTIAL.get_or_init(|| {
        // A worker request that runs away is a hang after 3 s: a section's look-ups take
        // milliseconds, and a few runaways must stay inside libFuzzer's -timeout (60 s in
        // ci/fuzz-smoke and ci/fuzz-long).
        let reg = Registry::discover(&Options { timeout: Duration::from_secs(3), objdump: false });
        let require = std::env::var_os("SFRAME_FUZZ_REQUIRE_ALL").is_some_and(|v| v == "1");
        for u in &reg.unavailable {
            eprintln!("sframe-fuzz: WARNING: {} is not under test: {}", u.name, u.reason);
        }
        if require && !reg.unavailable.is_empty() {
            panic!("SFRAME_FUZZ_REQUIRE_ALL=1 and {} implementation(s) are unavailable (run ci/toolchains)", reg.unavailable.len());
        }
        let names: Vec<String> = reg.available.iter().map(|i| i.name()).collect();
        eprintln!("sframe-fuzz: implementations under test: {}", names.join(", "));
        let dir = ledger_dir();
        assert!(dir.is_dir(), "the findings ledger {} is missing (set SFRAME_CONFORM_LEDGER)", dir.display());
        let ledger = Ledger::load(&dir).unwrap_or_else(|e| panic!("the findings ledger does not load: {e}"));
        let mut engine = Engine::new(reg.available).with_ledger(&ledger);
        engine.settings.max_pcs = MAX_PCS;
        Differential { engine, ledger }
    })
}

/// A data directory: `$<var>`, else `default` when it exists (a build in the repository),
/// else `<name>` beside the running binary (ClusterFuzzLite/OSS-Fuzz copy it to `$OUT`).
pub fn locate(var: &str, default: PathBuf, name: &str) -> PathBuf {
    if let Some(v) = std::env::var_os(var) {
        return v.into();
    }
    if default.is_dir() {
        return default;
    }
    std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(|d| d.join(name)))
        .unwrap_or(default)
}

/// The findings ledger (`SFRAME_CONFORM_LEDGER`, the repository's, or `findings/` beside the binary).
pub fn ledger_dir() -> PathBuf {
    locate("SFRAME_CONFORM_LEDGER", Ledger::default_dir(), "findings")
}

/// Where a smoke run collects new signatures instead of stopping at the first
/// (`SFRAME_FUZZ_NEW_LOG`): one line per signature, with the kept input; the run script fails
/// when the file is not empty. Without it, a new signature panics (libFuzzer keeps the input).
pub fn new_log() -> Option<PathBuf> {
    std::env::var_os("SFRAME_FUZZ_NEW_LOG").map(PathBuf::from)
}

/// Append lines to the new-signature log.
pub fn log_new(log: &std::path::Path, lines: &[String]) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .unwrap_or_else(|e| panic!("cannot write {}: {e}", log.display()));
    for l in lines {
        writeln!(f, "{l}").unwrap_or_else(|e| panic!("cannot write {}: {e}", log.display()));
    }
}

/// Panic when `r` shows a discrepancy the ledger does not explain. With [`new_log`] (smoke
/// runs), log instead every discrepancy no quirk explains, without asking the ledger's
/// patterns: what the fuzzer explores must not depend on the ledger's contents, or every
/// ledger change would send it elsewhere. `ci/fuzz-smoke` checks the log against the ledger
/// afterwards (`cargo run -p sframe-harness --example ledger-check`).
pub fn assert_ledgered(d: &Differential, r: &CaseResult, data: &[u8]) {
    let smoke = new_log();
    let new: Vec<&sframe_harness::diff::Discrepancy> = r
        .discrepancies()
        .filter(|x| match smoke {
            Some(_) => x.explained_by.is_empty(),
            None => d.ledger.accounted(x).is_none(),
        })
        .collect();
    if new.is_empty() {
        return;
    }
    // The section itself (the fuzzer's artifact is the bytes that drove the generator,
    // not always the section): kept so that it can be minimized and recorded.
    let path = std::env::temp_dir().join(format!("sframe-fuzz-new-{:016x}.sframe", fnv1a(data)));
    let kept = match std::fs::write(&path, data) {
        Ok(()) => format!("sframe-conform diff --record {}", path.display()),
        Err(e) => format!(
            "sframe-conform diff <this input as a .sframe file> (could not write {}: {e})",
            path.display()
        ),
    };
    if let Some(log) = smoke {
        let lines: Vec<String> = new
            .iter()
            .map(|x| format!("{}\t{kept}", x.signature))
            .collect();
        log_new(&log, &lines);
        return;
    }
    let listed: Vec<String> = new
        .iter()
        .map(|x| {
            format!(
                "{} (pc {:?}, expected {}, found {})",
                x.signature, x.pc, x.expected, x.found
            )
        })
        .collect();
    panic!(
        "new discrepancies, not in the findings ledger, on a {}-byte input:\n  {}\nreproduce: {kept}",
        data.len(),
        listed.join("\n  ")
    );
}

/// FNV-1a of `data`: a stable name for a kept input.
fn fnv1a(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Run every implementation on `data` (PCs chosen by the engine) and assert the result.
pub fn check(data: &[u8], name: &str) {
    let d = get();
    let case = Case {
        name: name.to_string(),
        data: data.to_vec(),
    };
    let r = d.engine.run_case(&case);
    assert_ledgered(d, &r, data);
}

/// Run every implementation on `data`, looking up `pcs`, and assert the result.
pub fn check_at(data: &[u8], pcs: &[i64], name: &str) {
    let d = get();
    let case = Case {
        name: name.to_string(),
        data: data.to_vec(),
    };
    let r = d.engine.run_case_at(&case, pcs);
    assert_ledgered(d, &r, data);
}

/// Every reproducer of the findings ledger (`corpus/findings/*/*.sframe`): the regression
/// inputs the differential targets replay as ordinary tests.
pub fn ledger_reproducers() -> Vec<(String, Vec<u8>)> {
    let dir = ledger_dir();
    let mut out = Vec::new();
    for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        for f in std::fs::read_dir(e.path()).into_iter().flatten().flatten() {
            let p = f.path();
            if p.extension().is_some_and(|x| x == "sframe") {
                if let Ok(b) = std::fs::read(&p) {
                    out.push((p.display().to_string(), b));
                }
            }
        }
    }
    out.sort();
    out
}

/// For tests: the implementations must all be there (a test must not pass by testing less).
#[cfg(test)]
pub fn require_all() {
    let reg_missing: Vec<String> = {
        let d = get();
        let names: Vec<String> = d.engine.impls.iter().map(|i| i.name()).collect();
        [
            "reference",
            "simple-frame-rs",
            "libsframe-2.40",
            "libsframe-2.44",
        ]
        .iter()
        .filter(|n| !names.iter().any(|x| x == *n))
        .map(|n| n.to_string())
        .collect()
    };
    assert!(
        reg_missing.is_empty() && get().engine.impls.iter().filter(|i| i.tool().is(sframe_harness::signature::ToolName::Libsframe)).count() >= 3,
        "implementations missing from the differential targets: {reg_missing:?} (run ci/toolchains, and build sframe-worker: cargo build -p sframe-conform --bins)"
    );
}
