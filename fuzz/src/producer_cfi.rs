//! `producer_cfi`: random functions with CFI directives through a provisioned SFrame producer
//! (GNU as `--gsframe` of each release, `llvm-mc --gsframe`), the object's SFrame rows checked
//! per PC against its own `.eh_frame` (crate `sframe-producers`). The fuzzer's bytes are the
//! function list (`Program::arbitrary`, so shrinking the input shrinks the functions), and
//! which ABI and producer run it. A disagreement, or an assembler assertion, the ledger does
//! not list fails; an unreadable object fails too.

use arbitrary::Unstructured;
use sframe_harness::ledger::Ledger;
use sframe_producers::asm::{self, Producer};
use sframe_producers::gen::{Arch, Config, Program};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// Files assembled so far in this process (for tests: the target is not vacuous).
pub static ASSEMBLED: AtomicUsize = AtomicUsize::new(0);

struct Setup {
    /// Every provisioned (ABI, producer) pair that writes SFrame.
    pairs: Vec<Producer>,
    ledger: Ledger,
    work: PathBuf,
}

fn setup() -> &'static Setup {
    static SETUP: OnceLock<Setup> = OnceLock::new();
    SETUP.get_or_init(|| {
        let work =
            std::env::temp_dir().join(format!("sframe-fuzz-producer-{}", std::process::id()));
        let all: Vec<Producer> = Arch::ALL
            .iter()
            .flat_map(|&a| asm::producers(a))
            .filter(|p| p.writes_sframe(&work.join("probe")))
            .collect();
        // Every provisioned producer is tested unless excluded by name (gnu-as-2.40,
        // llvm-mc-*: see crate::implementations); none at all is a failure unless both kinds
        // are excluded.
        let exclude = crate::settings::excluded();
        let excluded = |n: &str| exclude.iter().any(|e| crate::implementations::matches(e, n));
        let missing: Vec<&str> = ["gnu-as-*", "llvm-mc-*"]
            .into_iter()
            .filter(|kind| !all.iter().any(|p| crate::implementations::matches(kind, &p.name)))
            .filter(|kind| !excluded(kind))
            .collect();
        assert!(
            missing.is_empty(),
            "producer_cfi: no {} provisioned in {} (run ci/toolchains, or exclude them by name: SFRAME_FUZZ_EXCLUDE={})",
            missing.join(", "),
            asm::bin_dir().display(),
            missing.join(",")
        );
        let pairs: Vec<Producer> = all.into_iter().filter(|p| !excluded(&p.name)).collect();
        eprintln!(
            "producer_cfi: producers tested: {}",
            pairs.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", ")
        );
        let dir = crate::differential::ledger_dir();
        let ledger =
            Ledger::load(&dir).unwrap_or_else(|e| panic!("the findings ledger does not load: {e}"));
        Setup {
            pairs,
            ledger,
            work,
        }
    })
}

pub fn run(u: &mut Unstructured) -> arbitrary::Result<()> {
    let s = setup();
    if s.pairs.is_empty() {
        return Ok(());
    }
    let p = &s.pairs[u.choose_index(s.pairs.len())?];
    let prog = Program::arbitrary(u, &Config::new(p.arch))?;
    let text = prog.to_asm();
    let abi = p.arch.abi_name();
    let r = sframe_producers::run_asm(p, &text, &s.work);
    ASSEMBLED.fetch_add(1, Ordering::Relaxed);
    assert!(
        r.read_error.is_none(),
        "{} {abi}: the object cannot be read: {:?}\n{text}",
        p.name,
        r.read_error
    );
    let sigs = r.signatures(&p.signature_name(), p.arch.oracle_abi());
    for typed in sigs {
        let sig = typed.to_string();
        if !crate::findings_log::strict() {
            // Sorted by the ledger after the run (see crate::summary); the entry's input is
            // the assembly text.
            crate::findings_log::global().log(&sig, text.as_bytes(), |dir| {
                crate::findings_log::Cause {
                    signature: sig.clone(),
                    target: "producer_cfi".into(),
                    implementation: None,
                    example: serde_json::json!({"producer": p.name, "abi": abi}),
                    input: "input.s".into(),
                    reproduce: format!(
                        "assemble {} with {} ({abi}) and compare its SFrame rows with its .eh_frame (sframe-conform produce)",
                        dir.join("input.s").display(),
                        p.name
                    ),
                }
            });
            continue;
        }
        assert!(
            !s.ledger.account(&typed).is_new(),
            "new producer disagreement, not in the findings ledger: {sig}\n{text}"
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn seeded() {
        assert!(
            !super::setup().pairs.is_empty(),
            "no SFrame producer provisioned (run ci/toolchains)"
        );
        crate::seeded::run_seeded(40, 512, super::run);
        let n = super::ASSEMBLED.load(std::sync::atomic::Ordering::Relaxed);
        assert!(n >= 20, "only {n} of 40 seeded inputs reached a producer");
    }
}
