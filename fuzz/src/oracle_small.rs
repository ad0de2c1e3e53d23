//! `oracle_small`: corpus functions run in the emulator with fuzzed inputs. The fuzzer picks
//! a real ELF file of the corpus, one of its functions, and the seed of every random choice
//! the oracle makes (argument registers, return values of calls out, memory contents); one
//! run of that function is checked PC by PC against its SFrame rows. An oracle mismatch the
//! ledger does not cover fails, as does any error of the oracle on a file it loaded before.
//!
//! Why corpus functions and not generated machine code: the truth the oracle checks is only
//! as interesting as the code is real; generated instruction streams with made-up CFI would
//! test the generator's CFI, not a producer's. A run costs a few hundred microseconds, so
//! this target explores input space (paths through real code) rather than byte space.

use arbitrary::Unstructured;
use sframe_harness::ledger::Ledger;
use sframe_harness::signature::Producer;
use sframe_oracle::{Options, Oracle};
use sframe_provision::manifest::producer_for;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

/// Functions checked so far in this process (for tests: the target is not vacuous).
pub static CHECKED: AtomicUsize = AtomicUsize::new(0);

struct Files {
    paths: Vec<PathBuf>,
    ledger: Ledger,
    loaded: Mutex<HashMap<usize, Option<(Oracle, String)>>>,
}

fn files() -> &'static Files {
    static FILES: OnceLock<Files> = OnceLock::new();
    FILES.get_or_init(|| {
        let root = crate::differential::locate(
            "SFRAME_CONFORM_CORPUS",
            PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus/elf")),
            "corpus-elf",
        );
        let mut paths = Vec::new();
        let mut stack = vec![root.clone()];
        while let Some(d) = stack.pop() {
            let Ok(rd) = std::fs::read_dir(&d) else {
                continue;
            };
            for e in rd.flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    paths.push(p);
                }
            }
        }
        paths.sort();
        assert!(
            !paths.is_empty(),
            "no corpus ELF files under {} (set SFRAME_CONFORM_CORPUS)",
            root.display()
        );
        let dir = crate::differential::ledger_dir();
        let ledger =
            Ledger::load(&dir).unwrap_or_else(|e| panic!("the findings ledger does not load: {e}"));
        Files {
            paths,
            ledger,
            loaded: Mutex::new(HashMap::new()),
        }
    })
}

pub fn run(u: &mut Unstructured) -> arbitrary::Result<()> {
    let fs = files();
    let i = u.choose_index(fs.paths.len())?;
    let which: u16 = u.arbitrary()?;
    let seed: u64 = u.arbitrary()?;
    let mut loaded = fs.loaded.lock().unwrap_or_else(|e| e.into_inner());
    let entry = loaded.entry(i).or_insert_with(|| {
        let bytes = std::fs::read(&fs.paths[i]).ok()?;
        // Files the oracle cannot run (an unsupported machine, a big-endian AArch64 object)
        // are not this target's business: `sframe-conform oracle` reports them.
        Oracle::new(&bytes)
            .ok()
            .map(|o| (o, producer_for(&fs.paths[i])))
    });
    let Some((oracle, producer)) = entry.as_ref() else {
        return Ok(());
    };
    let checkable: Vec<usize> = (0..oracle.functions().len())
        .filter(|&f| oracle.functions()[f].checkable())
        .collect();
    if checkable.is_empty() {
        return Ok(());
    }
    let f = checkable[usize::from(which) % checkable.len()];
    let opts = Options {
        runs: 1,
        extra_runs: 0,
        seed,
        jobs: 1,
        ..Options::default()
    };
    let report = oracle.check_function(f, &opts).unwrap_or_else(|e| {
        panic!(
            "the oracle failed on {} function {f}: {e}",
            fs.paths[i].display()
        )
    });
    CHECKED.fetch_add(1, Ordering::Relaxed);
    for m in report.mismatches() {
        let s = m.signature(&Producer::named(producer), report.abi);
        if !crate::findings_log::strict() {
            // Sorted by the ledger after the run (see crate::summary).
            let sig = s.to_string();
            let reproduce = format!(
                "sframe-conform oracle --seed {seed} {}",
                fs.paths[i].display()
            );
            // The run is its seed and function: the entry's "input" is the command.
            crate::findings_log::global().log(&sig, reproduce.as_bytes(), |_| {
                crate::findings_log::Cause {
                    signature: sig.clone(),
                    target: "oracle_small".into(),
                    implementation: None,
                    example: serde_json::json!({"file": fs.paths[i].display().to_string(), "function": f, "seed": seed}),
                    input: "reproduce.txt".into(),
                    reproduce: reproduce.clone(),
                }
            });
            continue;
        }
        assert!(
            fs.ledger.lookup_signature(&s).is_some(),
            "new oracle mismatch, not in the findings ledger: {s}\nfile {} seed {seed}\nreproduce: sframe-conform oracle --seed {seed} {}",
            fs.paths[i].display(),
            fs.paths[i].display()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn seeded() {
        crate::seeded::run_seeded(60, 64, super::run);
        let n = super::CHECKED.load(std::sync::atomic::Ordering::Relaxed);
        assert!(
            n >= 30,
            "only {n} of 60 seeded inputs reached a function under test"
        );
    }
}
