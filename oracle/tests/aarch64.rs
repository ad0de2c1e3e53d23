//! AArch64: objects from aarch64-linux-gnu-gcc and GNU as 2.40 (SFrame v1), pointer
//! authentication, a big-endian object, planted CFA and RA errors.

mod common;
use common::*;
use sframe_oracle::checker::OracleKind;
use sframe_spec::recovery::Loc;
use std::path::Path;

fn object(flags: &[&str], name: &str) -> Vec<u8> {
    build_c(
        "aarch64-linux-gnu-gcc",
        Path::new("aarch64-linux-gnu-as"),
        flags,
        PROGRAM_C,
        name,
    )
}

#[test]
fn gcc_objects_have_no_mismatch_and_full_coverage() {
    for (flags, name) in [
        (&["-O0", "-fno-omit-frame-pointer"][..], "a64-O0-fp"),
        (&["-O2", "-fomit-frame-pointer"][..], "a64-O2-nofp"),
        // Signed return addresses: paciasp/autiasp run on the emulator's "max" CPU.
        (&["-O2", "-mbranch-protection=pac-ret"][..], "a64-O2-pac"),
    ] {
        let (_, r) = check(&object(flags, name));
        assert_full_run(name, &r);
    }
}

#[test]
fn big_endian_objects_run_too() {
    // `as -EB` writes an aarch64_be object (data big-endian, instructions little-endian).
    let src = std::env::temp_dir().join(format!("a64be-{}.s", std::process::id()));
    let out = std::process::Command::new("aarch64-linux-gnu-gcc")
        .args([
            "-S",
            "-O2",
            "-mbig-endian",
            "-fasynchronous-unwind-tables",
            "-xc",
            "-",
            "-o",
        ])
        .arg(&src)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(PROGRAM_C.as_bytes())?;
            c.wait()
        })
        .unwrap();
    assert!(out.success());
    let obj = src.with_extension("o");
    let st = std::process::Command::new("aarch64-linux-gnu-as")
        .args(["-EB", "--gsframe"])
        .arg(&src)
        .arg("-o")
        .arg(&obj)
        .status()
        .unwrap();
    assert!(st.success());
    let (o, r) = check(&std::fs::read(&obj).unwrap());
    assert_eq!(o.image().abi, sframe_spec::Abi::Aarch64Be);
    assert_clean(&r);
    assert!(
        r.summary.coverage_percent >= 95.0,
        "coverage {:.1}%",
        r.summary.coverage_percent
    );
}

#[test]
fn a_shifted_cfa_offset_is_flagged_at_exactly_its_row() {
    let elf = object(&["-O0", "-fno-omit-frame-pointer"], "a64-plant-cfa");
    planted_is_caught(
        &elf,
        "f",
        0,
        -16,
        OracleKind::Cfa,
        |r| matches!(r.cfa, Loc::Expr { offset, .. } if offset > 0),
    );
}

#[test]
fn a_shifted_ra_offset_is_flagged_at_exactly_its_row() {
    // AArch64's second data word is the RA offset.
    let elf = object(&["-O0", "-fno-omit-frame-pointer"], "a64-plant-ra");
    planted_is_caught(&elf, "f", 1, 8, OracleKind::Ra, |r| r.ra != Loc::SameValue);
}
