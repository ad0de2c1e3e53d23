//! Sections written by the real GNU assembler on this machine (binutils 2.40, `--gsframe`,
//! SFrame v1) decode, break no error-severity rule, and say what the CFI directives say.
//!
//! The expected rows come from the `.cfi_*` directives of each snippet (the assembler's
//! input), never from this crate.

use sframe_spec::*;
use std::path::PathBuf;
use std::process::Command;

fn assemble(assembler: &str, name: &str, src: &str) -> Vec<u8> {
    let dir = std::env::temp_dir().join(format!("sframe-spec-as-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let s: PathBuf = dir.join(format!("{name}.s"));
    let o: PathBuf = dir.join(format!("{name}.o"));
    std::fs::write(&s, src).unwrap();
    let out = Command::new(assembler)
        .args(["--gsframe", "-o"])
        .arg(&o)
        .arg(&s)
        .output()
        .unwrap_or_else(|e| panic!("{assembler} not runnable ({e}): run ci/install-deps"));
    assert!(
        out.status.success(),
        "{assembler}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read(&o).unwrap()
}

fn section(obj: &[u8]) -> (Vec<u8>, u64) {
    let l = sframe_elf::load(obj).expect(".sframe in object");
    (l.bytes, l.vaddr)
}

const X86: &str = r#"
    .text
    .globl frame
    .type frame, @function
frame:
    .cfi_startproc
    pushq %rbp
    .cfi_def_cfa_offset 16
    .cfi_offset %rbp, -16
    movq %rsp, %rbp
    .cfi_def_cfa_register %rbp
    subq $300000, %rsp
    .fill 300, 1, 0x90
    leave
    .cfi_def_cfa %rsp, 8
    ret
    .cfi_endproc
    .size frame, .-frame

    .globl big
    .type big, @function
big:
    .cfi_startproc
    subq $72, %rsp
    .cfi_def_cfa_offset 80
    .fill 70000, 1, 0x90
    addq $72, %rsp
    .cfi_def_cfa_offset 8
    ret
    .cfi_endproc
    .size big, .-big
"#;

#[test]
fn gnu_as_x86_64_v1() {
    let (b, vaddr) = section(&assemble("as", "x86", X86));
    let violations = validate(&b);
    assert!(is_valid(&violations), "{violations:?}");
    let s = decode(&b).unwrap();
    assert_eq!((s.version, s.abi), (Version::V1, Abi::Amd64));
    assert_eq!(s.functions.len(), 2);
    let f = &s.functions[0];
    // pushq (1 byte), movq (3 bytes), subq, 300 nops, leave, ret: 1 + 3 + 7 + 300 + 1 + 1.
    assert_eq!(f.size, 313);
    assert_eq!(
        f.fre_type,
        FreType::Addr2,
        "a 313-byte function needs 2-byte FRE starts"
    );
    let rows: Vec<(u32, Recovery)> = f
        .fres
        .iter()
        .map(|r| (r.start, s.recovery(f, r).unwrap()))
        .collect();
    let sp = Base::Reg(7);
    let fp = Base::Reg(6);
    let slot = |o| Loc::slot(o);
    let expect = [
        (
            0,
            Loc::Expr {
                base: sp,
                offset: 8,
                deref: false,
            },
            Loc::SameValue,
        ),
        (
            1,
            Loc::Expr {
                base: sp,
                offset: 16,
                deref: false,
            },
            slot(-16),
        ),
        (
            4,
            Loc::Expr {
                base: fp,
                offset: 16,
                deref: false,
            },
            slot(-16),
        ),
        (
            312,
            Loc::Expr {
                base: sp,
                offset: 8,
                deref: false,
            },
            slot(-16),
        ),
    ];
    assert_eq!(rows.len(), expect.len(), "{rows:?}");
    for ((start, r), (es, ecfa, efp)) in rows.iter().zip(expect) {
        assert_eq!((*start, r.cfa, r.fp, r.ra), (es, ecfa, efp, slot(-8)));
    }
    let g = &s.functions[1];
    assert_eq!(
        g.fre_type,
        FreType::Addr4,
        "a 70009-byte function needs 4-byte FRE starts"
    );
    assert_eq!(g.fres.last().unwrap().start, 4 + 70000 + 4);
    // Look-up through the zero-copy reader agrees: a PC inside the 300 nops uses the FP row.
    let r = SectionRef::parse(&b).unwrap();
    let found = r.find(s.functions[0].start + 100).unwrap().unwrap();
    // The synthetic layout puts .text (0x10000) before .sframe: starts are negative offsets.
    assert_eq!(
        vaddr.wrapping_add(s.functions[0].start as u64),
        sframe_elf::REL_BASE
    );
    assert_eq!((found.fde.index, found.fre_index), (0, 2));
}

const AARCH64: &str = r#"
    .text
    .globl f
    .type f, %function
f:
    .cfi_startproc
    stp x29, x30, [sp, -32]!
    .cfi_def_cfa_offset 32
    .cfi_offset 29, -32
    .cfi_offset 30, -24
    mov x29, sp
    bl g
    ldp x29, x30, [sp], 32
    .cfi_restore 30
    .cfi_restore 29
    .cfi_def_cfa_offset 0
    ret
    .cfi_endproc
    .size f, .-f
"#;

#[test]
fn gnu_as_aarch64_v1() {
    let (b, _) = section(&assemble("aarch64-linux-gnu-as", "a64", AARCH64));
    let violations = validate(&b);
    assert!(is_valid(&violations), "{violations:?}");
    let s = decode(&b).unwrap();
    assert_eq!(
        (s.version, s.abi, s.cfa_fixed_ra_offset),
        (Version::V1, Abi::Aarch64Le, 0)
    );
    let f = &s.functions[0];
    let slot = |o| Loc::slot(o);
    let rows: Vec<_> = f
        .fres
        .iter()
        .map(|r| (r.start, s.recovery(f, r).unwrap()))
        .collect();
    // After stp (4 bytes): CFA = SP + 32, RA at CFA-24, FP at CFA-32; after ldp (at 12, 4
    // bytes): back to SP + 0 from offset 16.
    assert_eq!(rows[0].1.cfa, Loc::reg(31, 0));
    assert_eq!(rows[0].1.ra, Loc::SameValue);
    assert_eq!(rows[1].0, 4);
    assert_eq!((rows[1].1.ra, rows[1].1.fp), (slot(-24), slot(-32)));
    assert_eq!(rows.last().unwrap().0, 16);
    assert_eq!(rows.last().unwrap().1.ra, Loc::SameValue);
}
