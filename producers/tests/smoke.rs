//! Seeded smoke run: random functions through every provisioned GNU as for x86-64; the
//! checker reads every object, and every disagreement is one the findings ledger names
//! (its signature is listed by a finding). Fails when no producer is provisioned
//! (`ci/toolchains` provisions them).

use sframe_producers::asm;
use sframe_producers::check::FdeOutcome;
use sframe_producers::gen::{self, Arch, Config};

fn ledger_signatures() -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/findings");
    let mut v = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path().join("finding.json");
        if let Ok(t) = std::fs::read_to_string(&p) {
            let j: serde_json::Value = serde_json::from_str(&t).unwrap();
            for s in j["signatures"].as_array().unwrap() {
                v.push(s.as_str().unwrap().to_string());
            }
        }
    }
    v
}

#[test]
fn generation_is_deterministic() {
    let cfg = Config::new(Arch::X86_64);
    assert_eq!(gen::program(7, 3, &cfg), gen::program(7, 3, &cfg));
    assert_ne!(gen::program(7, 3, &cfg), gen::program(7, 4, &cfg));
    assert!(gen::program(7, 3, &cfg).to_asm().contains(".cfi_startproc"));
}

#[test]
fn seeded_functions_agree_or_are_ledgered() {
    let producers: Vec<_> = asm::producers(Arch::X86_64)
        .into_iter()
        .filter(|p| p.assembler == asm::Assembler::GnuAs)
        .collect();
    assert!(
        !producers.is_empty(),
        "no x86_64 GNU as in {} (run ci/toolchains)",
        asm::bin_dir().display()
    );
    let known = ledger_signatures();
    let cfg = Config::new(Arch::X86_64);
    let work = std::env::temp_dir().join(format!("sframe-producers-smoke-{}", std::process::id()));
    let mut agreed = 0;
    for p in &producers {
        for case in 0..60 {
            let prog = gen::program(11, case, &cfg);
            let r = sframe_producers::run_asm(p, &prog.to_asm(), &work);
            assert!(r.read_error.is_none(), "{}: {:?}", p.name, r.read_error);
            for o in &r.outcomes {
                match o {
                    FdeOutcome::Agrees => agreed += 1,
                    FdeOutcome::Omitted(_) => {}
                    FdeOutcome::Disagrees(m) => {
                        let s = sframe_producers::signature(
                            &p.signature_name(),
                            p.arch.oracle_abi(),
                            m,
                        )
                        .to_string();
                        assert!(known.contains(&s), "case {case}: {s} not in the ledger");
                    }
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    assert!(agreed > 0);
}

#[test]
fn hand_written_frame_agrees() {
    let producers = asm::producers(Arch::X86_64);
    let asm_text = "\t.text\n\t.globl f\n\t.type f,@function\nf:\n\t.cfi_startproc\n\tpush %rbp\n\t.cfi_def_cfa_offset 16\n\t.cfi_offset %rbp, -16\n\tmov %rsp, %rbp\n\t.cfi_def_cfa_register %rbp\n\tnop\n\tpop %rbp\n\t.cfi_def_cfa %rsp, 8\n\tret\n\t.cfi_endproc\n";
    let work = std::env::temp_dir().join(format!("sframe-producers-hand-{}", std::process::id()));
    for p in &producers {
        let r = sframe_producers::run_asm(p, asm_text, &work);
        assert_eq!(r.outcomes, vec![FdeOutcome::Agrees], "{}", p.name);
    }
    let _ = std::fs::remove_dir_all(&work);
}

/// The generator writes only what assemblers accept: the one refusal left is GNU as's own
/// assertion (a finding), never an input error such as a save offset that is not a multiple
/// of the data alignment factor.
#[test]
fn generated_files_are_accepted_by_gnu_as() {
    for arch in [Arch::X86_64, Arch::Aarch64, Arch::S390x] {
        let p = asm::producers(arch)
            .into_iter()
            .rfind(|p| p.assembler == asm::Assembler::GnuAs)
            .unwrap_or_else(|| panic!("no GNU as for {} (run ci/toolchains)", arch.abi_name()));
        let cfg = Config::new(arch);
        let work =
            std::env::temp_dir().join(format!("sframe-producers-valid-{}", std::process::id()));
        for case in 0..80 {
            let text = gen::program(23, case, &cfg).to_asm();
            let r = sframe_producers::run_asm(&p, &text, &work);
            if let Some(e) = &r.assembler_error {
                assert!(
                    sframe_producers::assembler_failure_signature(
                        &p.signature_name(),
                        arch.oracle_abi(),
                        e
                    )
                    .is_some(),
                    "{} {}: case {case} refused: {e}\n{text}",
                    p.name,
                    arch.abi_name()
                );
            }
        }
        let _ = std::fs::remove_dir_all(&work);
    }
}
