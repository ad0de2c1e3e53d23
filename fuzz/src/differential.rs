//! What the differential targets share: every implementation the harness can run here (the
//! reference and simple-frame-rs in this process, each provisioned GNU libsframe and glibc
//! reader in its own `sframe-worker`, where a crash or hang is an outcome, not the fuzzer's
//! death), built once per process, and the findings ledger.
//!
//! Every provisioned implementation is tested unless excluded by name; one that is missing
//! refuses the start ([`crate::implementations`]). A discrepancy no quirk explains is logged,
//! once per signature, in the findings directory ([`crate::findings_log`]) and the run goes
//! on; the run's scripts sort the log into known and new causes afterwards
//! ([`crate::summary`]), so that what the fuzzer explores does not depend on the ledger's
//! patterns. With `SFRAME_FUZZ_STRICT=1` a discrepancy the ledger does not cover panics
//! instead, naming it (libFuzzer keeps the input).
//!
//! Settings ([`crate::settings`]): `SFRAME_FUZZ_EXCLUDE`, `SFRAME_FUZZ_STRICT`,
//! `SFRAME_FUZZ_FINDINGS`; and `SFRAME_CONFORM_LEDGER`, the findings ledger (default: the
//! repository's `corpus/findings`, or `findings/` beside the binary), and `SFRAME_WORKER`,
//! the `sframe-worker` binary (default: beside the binary, or the `release/` or `debug/`
//! build of the same target directory).
//!
//! The text adapters (objdump) are left out: one process per input is too slow to fuzz.

use crate::findings_log::{Cause, FindingsLog};
use crate::implementations::{select, Selection};
use sframe_harness::diff::{Case, CaseResult, Engine};
use sframe_harness::ledger::Ledger;
use sframe_impls::registry::{Options, Registry};
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

/// The implementations, the ledger and where discrepancies go.
pub struct Differential {
    pub engine: Engine,
    pub ledger: Ledger,
    /// What is tested and what was excluded.
    pub selection: Selection,
    /// `SFRAME_FUZZ_STRICT=1`.
    pub strict: bool,
    pub log: FindingsLog,
}

static DIFFERENTIAL: OnceLock<Differential> = OnceLock::new();

/// At most this many PCs per section when the target does not choose them.
pub const MAX_PCS: usize = 32;

/// Build the implementations (less `exclude`) and load the ledger, with the settings'
/// strictness and findings directory; `Err` says what is missing and how to provision it.
pub fn build(exclude: &[String]) -> Result<Differential, String> {
    build_with(
        exclude,
        &ledger_dir(),
        crate::settings::strict(),
        crate::settings::findings_dir(),
    )
}

/// [`build`] with the ledger, strictness and findings directory given.
pub fn build_with(
    exclude: &[String],
    ledger: &std::path::Path,
    strict: bool,
    findings: PathBuf,
) -> Result<Differential, String> {
    // A worker request that runs away is a hang after 3 s: a section's look-ups take
    // milliseconds, and a few runaways must stay inside libFuzzer's -timeout (60 s in
    // ci/fuzz-smoke and ci/fuzz-long).
    let reg = Registry::discover(&Options {
        timeout: Duration::from_secs(3),
        objdump: false,
    });
    let (impls, selection) = select(reg, exclude).map_err(|m| m.to_string())?;
    if !ledger.is_dir() {
        return Err(format!(
            "the findings ledger {} is missing (set SFRAME_CONFORM_LEDGER)",
            ledger.display()
        ));
    }
    let ledger =
        Ledger::load(ledger).map_err(|e| format!("the findings ledger does not load: {e}"))?;
    let mut engine = Engine::new(impls).with_ledger(&ledger);
    engine.settings.max_pcs = MAX_PCS;
    Ok(Differential {
        engine,
        ledger,
        selection,
        strict,
        log: FindingsLog::new(findings),
    })
}

/// The shared state, built on first use with the exclusions of the settings; panics when an
/// implementation is missing (tests must not pass by testing less). Under `cargo test` it
/// is strict: a discrepancy the ledger does not cover fails the test.
pub fn get() -> &'static Differential {
    DIFFERENTIAL.get_or_init(|| {
        let mut d = build(&crate::settings::excluded()).unwrap_or_else(|e| panic!("{e}"));
        d.strict |= cfg!(test);
        d
    })
}

/// The libFuzzer targets' initialization: build the shared state and say what is tested,
/// or say what is missing and exit 1 before the first input.
pub fn init() {
    // The libraries an OSS-Fuzz/ClusterFuzzLite build carries beside the binaries
    // (ci/oss-fuzz/build.sh names them in sframe-fuzz.env), unless the environment says.
    use sframe_provision::cache::CACHE_VAR;
    if std::env::var_os(CACHE_VAR).is_none() {
        if let Some(c) = crate::settings::get(CACHE_VAR) {
            std::env::set_var(CACHE_VAR, c);
        }
    }
    if crate::settings::pin() && !supervises_jobs(std::env::args()) {
        // Before the workers start: they run where this process does.
        // One directory of slots per user for the machine: every fuzzing process pinned
        // here takes a CPU no other one has.
        let user = std::env::var("USER").unwrap_or_else(|_| "user".into());
        let slots = std::env::temp_dir().join(format!("sframe-fuzz-cpu-slots-{user}"));
        match sframe_run::cpu_slot::take(&slots) {
            Ok(Some(cpu)) => {
                eprintln!("sframe-fuzz: SFRAME_FUZZ_PIN=1: on CPU {cpu}, with its workers")
            }
            Ok(None) => eprintln!(
                "sframe-fuzz: SFRAME_FUZZ_PIN=1: every CPU has a job; this one is not pinned"
            ),
            Err(e) => eprintln!("sframe-fuzz: SFRAME_FUZZ_PIN=1: not pinned: {e}"),
        }
    }
    match build(&crate::settings::excluded()) {
        Ok(d) => {
            for line in d.selection.render().lines() {
                eprintln!("sframe-fuzz: {line}");
            }
            eprintln!(
                "sframe-fuzz: {}",
                if d.strict {
                    "SFRAME_FUZZ_STRICT=1: a discrepancy the ledger does not cover stops the run"
                        .to_string()
                } else {
                    format!("discrepancies are logged in {}", d.log.dir().display())
                }
            );
            let _ = DIFFERENTIAL.set(d);
        }
        Err(e) => refuse(&e),
    }
}

/// Whether libFuzzer's command line `args` makes this process the supervisor of fuzzing
/// jobs (`-fork=N`, `-jobs=N`), which runs no input: its jobs, which it starts without those
/// flags, take the CPUs, and must not inherit one from it.
fn supervises_jobs(args: impl Iterator<Item = String>) -> bool {
    args.filter_map(|a| {
        let (flag, n) = a.split_once('=')?;
        matches!(flag, "-fork" | "-jobs").then(|| n.parse::<u32>().is_ok_and(|n| n > 0))
    })
    .any(|yes| yes)
}

/// Refuse to fuzz: say why on stderr and exit 1, before the first input. Every line starts
/// with `ERROR: sframe-fuzz: `: `ERROR:` is the mark libFuzzer's fork mode (`ci/fuzz-long`)
/// looks for in the log of a job that exited non-zero, and copies those lines into its own
/// log, where a job that refused its start would otherwise be one more "crash" with no input
/// kept and no reason; `sframe-fuzz` tells them from libFuzzer's own.
pub fn refuse(why: &str) -> ! {
    eprint!("{}", refusal(why));
    std::process::exit(1)
}

/// The text [`refuse`] writes.
fn refusal(why: &str) -> String {
    why.lines()
        .map(|l| {
            let l = l.strip_prefix("sframe-fuzz: ").unwrap_or(l);
            format!("ERROR: sframe-fuzz: {l}\n")
        })
        .collect()
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

/// Log every discrepancy of `r` no quirk explains (see the module's doc), or, strict, panic
/// on one the ledger does not cover.
pub fn assert_ledgered(d: &Differential, r: &CaseResult, data: &[u8], target: &str) {
    if d.strict {
        return panic_on_new(d, r, data);
    }
    // An input counts once per signature, however many of its look-ups show it.
    let mut seen = std::collections::BTreeSet::new();
    for x in r.discrepancies().filter(|x| x.explained_by.is_empty()) {
        let signature = x.signature.to_string();
        if !seen.insert(signature.clone()) {
            continue;
        }
        d.log.log(&signature, data, |dir| Cause {
            signature: signature.clone(),
            target: target.to_string(),
            implementation: Some(x.implementation()),
            example: serde_json::to_value(x).unwrap_or_default(),
            input: "input.sframe".into(),
            reproduce: format!("sframe-conform diff {}", dir.join("input.sframe").display()),
        });
    }
}

/// Panic when `r` shows a discrepancy the ledger does not cover.
fn panic_on_new(d: &Differential, r: &CaseResult, data: &[u8]) {
    let new: Vec<String> = r
        .discrepancies()
        .filter(|x| d.ledger.account(x).is_new())
        .map(|x| {
            format!(
                "{} (pc {:?}, expected {}, found {})",
                x.signature, x.pc, x.expected, x.found
            )
        })
        .collect();
    if new.is_empty() {
        return;
    }
    // The section itself (the fuzzer's artifact is the bytes that drove the generator,
    // not always the section): kept so that it can be minimized and recorded.
    let path = std::env::temp_dir().join(format!(
        "sframe-fuzz-new-{:016x}.sframe",
        crate::findings_log::fnv1a(data)
    ));
    let kept = match std::fs::write(&path, data) {
        Ok(()) => format!("sframe-conform diff --record {}", path.display()),
        Err(e) => format!(
            "sframe-conform diff <this input as a .sframe file> (could not write {}: {e})",
            path.display()
        ),
    };
    panic!(
        "new discrepancies, not in the findings ledger, on a {}-byte input:\n  {}\nreproduce: {kept}",
        data.len(),
        new.join("\n  ")
    );
}

/// Run every implementation on `data` (PCs chosen by the engine) and assert the result.
pub fn check(data: &[u8], name: &str) {
    let d = get();
    let case = Case {
        name: name.to_string(),
        data: data.to_vec(),
    };
    let r = d.engine.run_case(&case);
    assert_ledgered(d, &r, data, name);
}

/// Run every implementation on `data`, looking up `pcs`, and assert the result.
pub fn check_at(data: &[u8], pcs: &[i64], name: &str) {
    let d = get();
    let case = Case {
        name: name.to_string(),
        data: data.to_vec(),
    };
    let r = d.engine.run_case_at(&case, pcs);
    assert_ledgered(d, &r, data, name);
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

#[cfg(test)]
mod tests {
    #[test]
    fn a_supervisor_of_jobs_is_told_by_its_flags() {
        let args = |a: &[&str]| {
            a.iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .into_iter()
        };
        // ci/fuzz-long's supervisor; libFuzzer's -jobs.
        assert!(super::supervises_jobs(args(&[
            "decode_diff",
            "corpus",
            "-fork=2",
            "-timeout=60"
        ])));
        assert!(super::supervises_jobs(args(&["decode_diff", "-jobs=4"])));
        // A job fork mode starts (its flags without -fork), a plain run, -fork=0.
        assert!(!super::supervises_jobs(args(&[
            "decode_diff",
            "-max_total_time=20",
            "/tmp/c"
        ])));
        assert!(!super::supervises_jobs(args(&["decode_diff", "-fork=0"])));
    }

    #[test]
    fn every_line_of_a_refusal_carries_the_mark_fork_mode_copies() {
        let t = super::refusal("sframe-fuzz: 1 implementation(s) cannot be tested here\n  glibc-2.43: run ci/glibc-reader\n");
        assert_eq!(
            t,
            "ERROR: sframe-fuzz: 1 implementation(s) cannot be tested here\nERROR: sframe-fuzz:   glibc-2.43: run ci/glibc-reader\n"
        );
        assert_eq!(
            super::refusal("the findings ledger does not load: F1/finding.json: unknown variant"),
            "ERROR: sframe-fuzz: the findings ledger does not load: F1/finding.json: unknown variant\n"
        );
    }
}
