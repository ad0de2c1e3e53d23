//! x86-64 (AMD64): objects from the system's gcc and GNU as (2.40 writes SFrame v1), a
//! shared object linked by the system's ld, planted errors, whole-stack walks.

mod common;
use common::*;
use sframe_oracle::checker::OracleKind;
use sframe_oracle::Oracle;
use sframe_spec::recovery::Loc;
use std::path::Path;

fn object(flags: &[&str], name: &str) -> Vec<u8> {
    build_c("gcc", Path::new("as"), flags, PROGRAM_C, name)
}

#[test]
fn gcc_objects_have_no_mismatch_and_full_coverage() {
    for (flags, name) in [
        (&["-O0", "-fno-omit-frame-pointer"][..], "x86-O0-fp"),
        (&["-O2", "-fomit-frame-pointer"][..], "x86-O2-nofp"),
        (&["-Os", "-fno-omit-frame-pointer"][..], "x86-Os-fp"),
    ] {
        let (_, r) = check(&object(flags, name));
        assert_clean(&r);
        assert!(r.summary.functions_with_fde >= 6, "{name}: {:?}", r.summary);
        assert!(
            r.summary.coverage_percent >= 95.0,
            "{name}: coverage {:.1}%",
            r.summary.coverage_percent
        );
        assert!(r.summary.rows_checked > 1000, "{name}");
        assert!(
            r.summary.stack_walks > 0,
            "{name}: no whole-stack walk (f calls helper)"
        );
    }
}

#[test]
fn linked_shared_object_and_its_plt_have_no_mismatch() {
    let so = link_shared("ld", &object(&["-O2", "-fPIC"], "x86-pic"), "x86-pic");
    let (o, r) = check(&so);
    assert_clean(&r);
    assert_eq!(r.file_kind, "sharedobject");
    // ld 2.40 writes FDEs for .plt: PLT0 and the entries, both run.
    let plt: Vec<_> = r
        .functions
        .iter()
        .filter(|f| f.function.kind == sframe_oracle::FunctionKind::Plt)
        .collect();
    assert!(
        !plt.is_empty() && plt.iter().all(|f| f.executed > 0),
        "{plt:?}"
    );
    assert!(o.functions().iter().any(|f| f.name == "helper"));
}

#[test]
fn a_shifted_cfa_offset_is_flagged_at_exactly_its_row() {
    // The frame-pointer based body row of f (-O0): CFA = FP + 16.
    let elf = object(&["-O0", "-fno-omit-frame-pointer"], "x86-plant-cfa");
    planted_is_caught(&elf, "f", 0, 8, OracleKind::Cfa, |r| {
        matches!(
            r.cfa,
            Loc::Expr {
                base: sframe_spec::Base::Reg(6),
                ..
            }
        )
    });
}

#[test]
fn a_shifted_fp_offset_is_flagged_at_exactly_its_row() {
    // AMD64's second data word is the FP offset (the RA offset is fixed in the header).
    let elf = object(&["-O0", "-fno-omit-frame-pointer"], "x86-plant-fp");
    planted_is_caught(&elf, "f", 1, -8, OracleKind::Fp, |r| {
        matches!(
            r.cfa,
            Loc::Expr {
                base: sframe_spec::Base::Reg(6),
                ..
            }
        ) && r.fp != Loc::SameValue
    });
}

#[test]
fn snapshots_replay_with_the_reference_unwinder() {
    let elf = object(&["-O0", "-fno-omit-frame-pointer"], "x86-snap");
    let o = Oracle::new(&elf).unwrap();
    let opts = sframe_oracle::Options {
        snapshots: true,
        ..opts()
    };
    let r = o
        .check_function(o.function_index("f").unwrap(), &opts)
        .unwrap();
    let s = r
        .snapshots
        .iter()
        .find(|s| s.frames.len() >= 2)
        .expect("f calls helper: two live frames");
    let walked = s.unwind_reference(&o.section(), o.image().section_vaddr);
    assert_eq!(walked.len(), s.frames.len());
    for (w, f) in walked.iter().zip(&s.frames) {
        let step = w.result.as_ref().expect("each frame unwinds");
        assert_eq!(
            (step.cfa, step.caller.pc, step.caller.fp),
            (f.expected.cfa, f.expected.ra, f.expected.fp)
        );
    }
}

#[test]
fn reports_are_deterministic_whatever_the_thread_count() {
    let elf = object(&["-O2"], "x86-det");
    let o = Oracle::new(&elf).unwrap();
    let one = o
        .check_all(&sframe_oracle::Options { jobs: 1, ..opts() })
        .unwrap();
    let two = o
        .check_all(&sframe_oracle::Options { jobs: 2, ..opts() })
        .unwrap();
    let key = |r: &sframe_oracle::Report| {
        r.functions
            .iter()
            .map(|f| (f.function.name.clone(), f.executed, f.rows_checked))
            .collect::<Vec<_>>()
    };
    assert_eq!(key(&one), key(&two));
}

#[test]
fn the_last_page_of_the_address_space_is_mapped_on_demand_like_any_other() {
    // A wild read of the last page. When the memory hook mapped it, Unicorn's retried access
    // failed or succeeded by the wall clock (a stale TLB entry, see `emu`): the run was a
    // fault, now and then not. The oracle maps between slices of the run, so every run of this
    // function reads zeros and returns.
    let asm = "\
        .text
        .globl top_page
        .type top_page, @function
top_page:
        .cfi_startproc
        movabs $0xfffffffffffffff0, %rax
        movl (%rax), %eax
        ret
        .cfi_endproc
        .size top_page, .-top_page
";
    assert_every_run_returns(asm, "top_page", 3);
}

/// Check the one function of `asm`: every run returns, `executed` instructions covered, no
/// mismatch.
fn assert_every_run_returns(asm: &str, name: &str, executed: usize) {
    let o = Oracle::new(&build_s(Path::new("as"), asm, &format!("x86-{name}"))).unwrap();
    let r = o.check_all(&opts()).unwrap();
    let f = r
        .functions
        .iter()
        .find(|f| f.function.name == name)
        .unwrap();
    assert!(f.runs > 0);
    assert_eq!(
        f.outcomes,
        [("returned".to_string(), f.runs)].into_iter().collect(),
        "{f:?}"
    );
    assert_eq!(f.executed, executed);
    assert_clean(&r);
}

#[test]
fn a_call_into_a_page_the_run_wrote_is_foreign_code_that_returns() {
    // Stores through a wild pointer map its page for data; calls into that page are foreign
    // code, returned from at once, as a call into an unmapped page is. (Before, the page was
    // also executable: every store made Unicorn translate its data again, as a block of
    // hundreds of stores; a real C++ object took minutes and a 1 GB translation buffer.)
    let asm = "\
        .text
        .globl call_data
        .type call_data, @function
call_data:
        .cfi_startproc
        subq $8, %rsp
        .cfi_def_cfa_offset 16
        movabs $0x5a5a5a5a0000, %rax
        movl $64, %ecx
1:
        movl %ecx, 8(%rax)
        pushq %rax
        .cfi_adjust_cfa_offset 8
        pushq %rcx
        .cfi_adjust_cfa_offset 8
        call *%rax
        popq %rcx
        .cfi_adjust_cfa_offset -8
        popq %rax
        .cfi_adjust_cfa_offset -8
        decl %ecx
        jnz 1b
        addq $8, %rsp
        .cfi_def_cfa_offset 8
        ret
        .cfi_endproc
        .size call_data, .-call_data
";
    assert_every_run_returns(asm, "call_data", 13);
}

#[test]
fn bad_inputs_are_errors() {
    use sframe_oracle::OracleError;
    assert_eq!(Oracle::new(b"hello").unwrap_err(), OracleError::NotElf);
    assert_eq!(
        Oracle::new(&[0xe2, 0xde, 2, 0]).unwrap_err(),
        OracleError::NotElf
    );
    let no_sframe = build_s(Path::new("as"), ".text\nf: ret\n", "x86-nosframe");
    assert!(matches!(
        Oracle::new(&no_sframe),
        Err(OracleError::Load(sframe_elf::LoadError::NoSframeSection))
    ));
}
