//! `sframe-conform produce`: seeded runs of every provisioned producer and ABI are accounted
//! for by the findings ledger; the emulator path catches CFI that lies about the code; bad
//! input exits 2.

use sframe_producers::asm::{self, Assembler};
use sframe_producers::gen::Arch;
use sframe_producers::pattern::{self, Locals, Pattern, PatternProgram};

mod common;
use common::run;

fn newest_gnu_as(arch: Arch) -> asm::Producer {
    asm::producers(arch)
        .into_iter()
        .rfind(|p| p.assembler == Assembler::GnuAs)
        .unwrap_or_else(|| panic!("no GNU as for {} (run ci/toolchains)", arch.abi_name()))
}

/// A frame without a frame pointer whose first `.cfi_def_cfa_offset` is 8 bytes off: the
/// producer copies the lie into SFrame (so `.eh_frame` and SFrame agree), and only running
/// the code shows the CFA is wrong.
#[test]
fn the_emulator_catches_cfi_that_lies_about_the_code() {
    let p = PatternProgram {
        arch: Arch::X86_64,
        funcs: vec![Pattern {
            fp_frame: false,
            saves: 1,
            locals: Locals::Small(32),
            body: vec![0, 1, 2],
            early_return: false,
            padding: 0,
        }],
    };
    let honest = p.to_asm();
    assert!(honest.contains(".cfi_def_cfa_offset 16\n"), "{honest}");
    let lying = honest.replacen(".cfi_def_cfa_offset 16\n", ".cfi_def_cfa_offset 24\n", 1);
    let gas = newest_gnu_as(Arch::X86_64);
    let work = std::env::temp_dir().join(format!("produce-lie-{}", std::process::id()));
    let check = |text: &str| {
        let r = sframe_producers::run_asm(&gas, text, &work);
        let obj = r
            .object
            .unwrap_or_else(|| panic!("{:?}", r.assembler_error));
        sframe_conform::produce_cmd::emulate(&obj, 1, &gas.signature_name()).unwrap()
    };
    let truth = check(&honest);
    assert!(truth.pcs > 0);
    assert!(
        truth.mismatches.is_empty(),
        "{:?}",
        truth.mismatches.iter().map(|m| &m.0).collect::<Vec<_>>()
    );
    let lie = check(&lying);
    let sigs: Vec<String> = lie.mismatches.iter().map(|m| m.0.to_string()).collect();
    // The ledger's string syntax, as the findings' patterns are written.
    let want = format!("oracle:{}:amd64:sp_s1_small:cfa", gas.name);
    assert!(sigs.contains(&want), "{sigs:?}");
    assert_eq!(pattern::shape_of("sp_s1_small__0"), "sp_s1_small");
    let _ = std::fs::remove_dir_all(&work);
}

/// Random CFI functions and executable patterns, a few hundred per producer and ABI, all
/// accounted for by the ledger.
#[test]
fn seeded_runs_of_every_producer_are_ledgered() {
    for extra in [&[][..], &["--patterns"][..]] {
        let mut args = vec![
            "produce",
            "--generate",
            "150",
            "--seed",
            "20261124",
            "--json",
        ];
        args.extend_from_slice(extra);
        let out = run(&args);
        let text = String::from_utf8_lossy(&out.stdout);
        let new: Vec<String> = serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .and_then(|j| {
                j["signatures"].as_object().map(|m| {
                    m.iter()
                        .filter(|(_, v)| v["finding"].is_null())
                        .map(|(k, _)| k.clone())
                        .collect()
                })
            })
            .unwrap_or_default();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{extra:?}: not in the ledger: {new:?}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let j: serde_json::Value = serde_json::from_str(&text).unwrap();
        let pairs = j["producers"].as_array().unwrap();
        // Every ABI has at least one producer that writes SFrame for it.
        for abi in ["amd64", "aarch64", "aarch64-be", "s390x"] {
            assert!(
                pairs
                    .iter()
                    .any(|p| p["abi"] == abi && p["fdes"].as_u64() > Some(0)),
                "{extra:?}: no producer checked for {abi}"
            );
        }
    }
}

#[test]
fn bad_input_exits_2_with_one_line() {
    for args in [
        &["produce", "--abi", "vax"][..],
        &["produce", "--producer", "no-such-as", "--abi", "amd64"][..],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr).lines().count(),
            1,
            "{out:?}"
        );
    }
}
