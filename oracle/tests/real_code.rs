//! What real code does that the oracle must not mistake for a wrong row: state one run leaves
//! for the next (results must not depend on how functions are spread over workers), GCC
//! `.cold` parts (jumped into, never called), and runs that leave the program's control flow.

mod common;
use common::*;
use sframe_oracle::{DropReason, Options, Oracle, Report, SkipReason};
use std::path::Path;

/// One function writes into read-only data and leaves a value in a vector register; the
/// others' paths depend on both. Run after `poke`/`setx` on the same worker, `peek`/`getx`
/// took other paths when the image and the registers carried over between runs.
const LEAKY_C: &str = r#"
const volatile int table[4] = {1, 2, 3, 4};
double sink;
__attribute__((noinline)) int deep(int x) { return x * 3 + table[x & 3]; }
__attribute__((noinline)) void poke(void) { ((volatile int *)table)[0] = 99; }
__attribute__((noinline)) int peek(int x) {
  if (table[0] == 99) return deep(x) + deep(x + 1);
  return 0;
}
__attribute__((noinline)) double setx(void) { return 5.0; }
__attribute__((noinline)) int getx(int a, int b, int c, int d, int e, int f, double x) {
  if (x > 1.0) return deep(a) + deep(b);
  return c;
}
"#;

/// The report as JSON, without the throughput (wall time).
fn comparable(r: &Report) -> serde_json::Value {
    let mut v = serde_json::to_value(r).unwrap();
    v.as_object_mut().unwrap().remove("stats");
    v
}

#[test]
fn results_do_not_depend_on_function_order_or_jobs() {
    let elf = build_c("gcc", Path::new("as"), &["-O2"], LEAKY_C, "x86-leaky");
    let o = Oracle::new(&elf).unwrap();
    let idx = |n: &str| o.function_index(n).unwrap();
    let forward = [
        idx("poke"),
        idx("setx"),
        idx("peek"),
        idx("getx"),
        idx("deep"),
    ];
    let mut backward = forward;
    backward.reverse();
    let run = |which: &[usize], jobs: usize| {
        let opts = Options {
            jobs,
            ..Options::default()
        };
        comparable(&o.check_functions(which, &opts, &|| {}).unwrap())
    };
    let a = run(&forward, 1);
    assert_eq!(a, run(&backward, 1), "order changed the report");
    assert_eq!(a, run(&forward, 2), "two jobs changed the report");
}

/// `f`'s unlikely path calls a `noreturn` function: GCC moves it to `f.cold`.
const COLD_C: &str = r#"
__attribute__((noreturn, cold, noinline)) void die(int code);
__attribute__((noinline)) int f(int x, int y) {
  if (__builtin_expect(x == 3, 0)) die(y + 1);
  return x + y * 2;
}
"#;

#[test]
fn cold_parts_are_not_run_but_checked_from_their_parent() {
    let elf = build_c("gcc", Path::new("as"), &["-O2"], COLD_C, "x86-cold");
    let (_, r) = check(&elf);
    assert_clean(&r);
    let cold = r.function("f.cold").expect("gcc -O2 writes f.cold");
    assert_eq!(cold.skipped, Some(SkipReason::ColdPart));
    assert_eq!(cold.runs, 0);
    assert!(cold.executed > 0, "f's runs reach f.cold: {cold:?}");
    assert!(cold.rows_checked > 0);
    assert_eq!(r.summary.skipped.get(&SkipReason::ColdPart), Some(&1));
    assert!(r.function("f").unwrap().runs > 0);
}

/// `wild` calls into the middle of `target` (a wild function pointer would): its frame has
/// no entry state there, so the run is dropped rather than `target`'s rows blamed.
const WILD_S: &str = "
        .text
        .globl target
        .type target, @function
target:
        .cfi_startproc
        pushq %rbx
        .cfi_def_cfa_offset 16
        .cfi_offset %rbx, -16
        movl %edi, %eax
        addl $1, %eax
        popq %rbx
        .cfi_def_cfa_offset 8
        ret
        .cfi_endproc
        .size target, .-target

        .globl wild
        .type wild, @function
wild:
        .cfi_startproc
        subq $8, %rsp
        .cfi_def_cfa_offset 16
        call target+3
        addq $8, %rsp
        .cfi_def_cfa_offset 8
        ret
        .cfi_endproc
        .size wild, .-wild
";

#[test]
fn a_call_into_the_middle_of_a_function_drops_the_run() {
    let (_, r) = check(&build_s(Path::new("as"), WILD_S, "x86-wild-call"));
    assert_clean(&r);
    let w = r.function("wild").unwrap();
    assert!(w.runs > 0);
    assert_eq!(w.dropped.get(&DropReason::WildCall), Some(&w.runs), "{w:?}");
    assert_eq!(
        r.summary.dropped.get(&DropReason::WildCall),
        Some(&u64::from(w.runs))
    );
}

/// `f` calls `ext` through the PLT and takes its GOT address: ld puts the call in `.plt.got`
/// and leaves `.plt` holding PLT0 alone (no lazy entry).
const PLT_GOT_S: &str = "
        .text
        .globl f
        .type f, @function
f:
        .cfi_startproc
        subq $8, %rsp
        .cfi_def_cfa_offset 16
        call ext@PLT
        movq ext@GOTPCREL(%rip), %rax
        addq $8, %rsp
        .cfi_def_cfa_offset 8
        ret
        .cfi_endproc
        .size f, .-f
";

#[test]
fn plt0_alone_is_skipped_and_a_wrong_plt_got_row_is_still_reported() {
    let bin = cache_dir().join("bin");
    let as_ = bin.join("x86_64-linux-gnu-as-2.47");
    let ld = bin.join("x86_64-linux-gnu-ld-2.47");
    assert!(
        as_.is_file() && ld.is_file(),
        "GNU as/ld 2.47 missing under {}: run ci/toolchains",
        bin.display()
    );
    let obj = build_s(&as_, PLT_GOT_S, "x86-plt-got");
    let so = link_shared(ld.to_str().unwrap(), &obj, "x86-plt-got");
    let (_, r) = check(&so);
    let plt = r.function(".plt").unwrap();
    assert_eq!(plt.skipped, Some(SkipReason::PltHeader), "{plt:?}");
    assert!(plt.mismatches.is_empty());
    // ld 2.47 gives `.plt.got` PLT0's CFA (SP + 16) where a call arrives with SP + 8 (its
    // own `.eh_frame` FDE for `.plt.got` keeps the CIE's rsp+8): a producer bug, which
    // the drop rules must not hide.
    let got = r.function(".plt.got").unwrap();
    assert!(got.runs > 0 && got.dropped.is_empty(), "{got:?}");
    assert!(
        got.mismatches.iter().any(|m| m.offset == 0
            && m.kind()
                == sframe_findings::signature::OracleMismatch {
                    stack: false,
                    kind: sframe_oracle::checker::OracleKind::Cfa
                }
            && m.seen.got.unwrap().cfa == m.seen.expected.cfa + 8),
        "{got:?}"
    );
    assert_eq!(r.summary.functions_with_mismatches, 1);
}
