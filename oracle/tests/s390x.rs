//! s390x: objects from s390x-linux-gnu-gcc and the sid GNU as (2.47, SFrame v3) of the
//! toolchain cache (`ci/toolchains`); without it these tests fail, naming it.

mod common;
use common::*;
use sframe_oracle::checker::OracleKind;
use sframe_spec::recovery::Loc;
use sframe_spec::FdeType;

fn object(flags: &[&str], name: &str) -> Vec<u8> {
    build_c("s390x-linux-gnu-gcc", &s390x_as(), flags, PROGRAM_C, name)
}

/// Names of the functions with a flexible FDE.
fn flex_functions(o: &sframe_oracle::Oracle) -> Vec<String> {
    let s = o.section();
    o.functions()
        .iter()
        .filter(|f| {
            f.fde
                .is_some_and(|i| s.fde(i).unwrap().fde_type == FdeType::Flex)
        })
        .map(|f| f.name.clone())
        .collect()
}

#[test]
fn default_type_fdes_have_no_mismatch_and_full_coverage() {
    // Without frame pointers GCC saves nothing in registers: only default-type FDEs.
    let (o, r) = check(&object(&["-O2", "-fomit-frame-pointer"], "s390x-O2-nofp"));
    assert!(flex_functions(&o).is_empty(), "{:?}", flex_functions(&o));
    assert_full_run("s390x-O2-nofp", &r);
}

#[test]
fn flexible_fdes_have_no_mismatch() {
    // With frame pointers leaf functions keep %r11 (and %r14) in FPRs: flexible FDEs.
    let (o, r) = check(&object(&["-O2", "-fno-omit-frame-pointer"], "s390x-O2-fp"));
    assert!(!flex_functions(&o).is_empty());
    assert_clean(&r);
}

#[test]
fn a_shifted_cfa_offset_is_flagged_at_exactly_its_row() {
    // The stored CFA offset is scaled by 8 (v3 manual 3.1.3): +1 is +8 bytes.
    let elf = object(&["-O2", "-fomit-frame-pointer"], "s390x-plant-cfa");
    planted_is_caught(
        &elf,
        "f",
        0,
        1,
        OracleKind::Cfa,
        |r| matches!(r.cfa, Loc::Expr { offset, .. } if offset > 160),
    );
}

#[test]
fn a_shifted_ra_offset_is_flagged_at_exactly_its_row() {
    let elf = object(&["-O2", "-fomit-frame-pointer"], "s390x-plant-ra");
    planted_is_caught(&elf, "f", 1, 8, OracleKind::Ra, |r| {
        matches!(r.ra, Loc::Expr { deref: true, .. })
    });
}
