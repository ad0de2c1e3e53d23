//! Shared test helpers: building test objects with real toolchains, planting errors in a
//! section, and reading the oracle's reports.
#![allow(dead_code)]

use sframe_oracle::{Options, Oracle, Report};
use sframe_spec::{Endian, SectionRef};
use std::path::{Path, PathBuf};
use std::process::Command;

/// C source of the test program: a leaf, a loop, an internal call (two live frames), recursion,
/// `alloca`, a switch, external calls.
pub const PROGRAM_C: &str = r#"
extern int ext(int);
extern void ext_use(void *);
static int __attribute__((noinline)) helper(int *p, int n)
{
  int s = 0;
  for (int i = 0; i < n; i++)
    s += p[i] * ext(i);
  return s;
}
int f(int a, int b)
{
  int buf[16];
  for (int i = 0; i < 16; i++)
    buf[i] = a + i;
  if (b > 3)
    return helper(buf, b & 15) + a;
  return a * b;
}
int leaf(int x) { return x * 3 + 1; }
int recurse(int n) { if (n <= 0 || n > 6) return ext(n); return recurse(n - 1) + 1; }
int with_alloca(int n) { char *p = __builtin_alloca((n & 63) + 1); ext_use(p); return p[0]; }
int sw(int x, int y)
{
  switch (x & 7) {
  case 0: return ext(y);
  case 1: return y * 2;
  case 2: return leaf(y);
  case 3: return f(y, x);
  default: return x - y;
  }
}
"#;

pub use sframe_provision::cache_dir;

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sframe-oracle-tests-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

fn run(cmd: &mut Command) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e} (run ci/install-deps)"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Compile `c` to assembly with `cc` and `flags`, assemble it with `as_` and `--gsframe`.
pub fn build_c(cc: &str, as_: &Path, flags: &[&str], c: &str, name: &str) -> Vec<u8> {
    let src = tmp(&format!("{name}.c"));
    let asm = tmp(&format!("{name}.s"));
    std::fs::write(&src, c).unwrap();
    run(Command::new(cc)
        .args(["-S", "-fasynchronous-unwind-tables", "-g0"])
        .args(flags)
        .arg(&src)
        .arg("-o")
        .arg(&asm));
    assemble(as_, &asm, name)
}

/// Assemble `asm` with `as_ --gsframe`.
pub fn build_s(as_: &Path, asm_text: &str, name: &str) -> Vec<u8> {
    let asm = tmp(&format!("{name}.s"));
    std::fs::write(&asm, asm_text).unwrap();
    assemble(as_, &asm, name)
}

/// The object `as_ --gsframe` makes of the assembly file `asm`.
fn assemble(as_: &Path, asm: &Path, name: &str) -> Vec<u8> {
    let obj = tmp(&format!("{name}.o"));
    run(Command::new(as_)
        .arg("--gsframe")
        .arg(asm)
        .arg("-o")
        .arg(&obj));
    std::fs::read(&obj).unwrap()
}

/// Link `obj` into a shared object with `ld`.
pub fn link_shared(ld: &str, obj: &[u8], name: &str) -> Vec<u8> {
    let o = tmp(&format!("{name}-in.o"));
    let so = tmp(&format!("{name}.so"));
    std::fs::write(&o, obj).unwrap();
    run(Command::new(ld).arg("-shared").arg(&o).arg("-o").arg(&so));
    std::fs::read(&so).unwrap()
}

/// The s390x assembler of the provisioned sid toolchain (SFrame for s390x needs it).
pub fn s390x_as() -> PathBuf {
    let p = cache_dir().join("bin/s390x-linux-gnu-as-2.47");
    assert!(
        p.is_file(),
        "{} is missing: SFrame for s390x needs the sid assembler; run ci/toolchains (or set SFRAME_CONFORM_CACHE)",
        p.display()
    );
    p
}

pub fn opts() -> Options {
    Options {
        jobs: 2,
        ..Options::default()
    }
}

/// Check every function and return the report.
pub fn check(elf: &[u8]) -> (Oracle, Report) {
    let o = Oracle::new(elf).expect("loads");
    let r = o.check_all(&opts()).expect("runs");
    (o, r)
}

/// Assert no mismatch at all, and print them if there are.
pub fn assert_clean(r: &Report) {
    let bad: Vec<String> = r.mismatches().map(|m| format!("{m:?}")).collect();
    assert!(
        bad.is_empty(),
        "{} mismatches:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// No mismatch, at least 95% of the instructions covered, more than 1000 rows checked and
/// whole-stack walks done.
pub fn assert_full_run(name: &str, r: &Report) {
    assert_clean(r);
    assert!(
        r.summary.coverage_percent >= 95.0,
        "{name}: coverage {:.1}%",
        r.summary.coverage_percent
    );
    assert!(
        r.summary.rows_checked > 1000 && r.summary.stack_walks > 0,
        "{name}: {:?}",
        r.summary
    );
}

/// A row of a function: `[start, end)` as addresses, and its FRE index.
#[derive(Debug, Clone, Copy)]
pub struct RowRange {
    pub fde: usize,
    pub fre: usize,
    pub start: u64,
    pub end: u64,
}

/// Every row of FDE `fde`.
pub fn rows(o: &Oracle, fde: usize) -> Vec<RowRange> {
    let s = o.section();
    let f = s.fde(fde).unwrap();
    let base = o.image().section_vaddr.wrapping_add(f.start as u64);
    let starts: Vec<u64> = s
        .fres(&f)
        .map(|r| base + u64::from(r.unwrap().start))
        .collect();
    let end = base + u64::from(f.size);
    (0..starts.len())
        .map(|k| RowRange {
            fde,
            fre: k,
            start: starts[k],
            end: starts.get(k + 1).copied().unwrap_or(end),
        })
        .collect()
}

/// A copy of the section with data word `word` of FRE `fre` of FDE `fde` changed by `delta`.
pub fn plant(section: &SectionRef<'_>, fde: usize, fre: usize, word: usize, delta: i64) -> Vec<u8> {
    let f = section.fde(fde).unwrap();
    let r = section.fres(&f).nth(fre).unwrap().unwrap();
    let old = r.dataword(word).expect("the data word exists");
    let new = old + delta;
    let size = r.dataword_size.bytes();
    assert!(
        r.dataword_size.fits_signed(new),
        "planted value {new} does not fit {size} bytes"
    );
    let off = r.dataword_offset(word);
    let mut bytes = section.data().to_vec();
    let v = (new as u64).to_le_bytes();
    for i in 0..size {
        bytes[off + i] = match section.endian() {
            Endian::Little => v[i],
            Endian::Big => v[size - 1 - i],
        };
    }
    bytes
}

/// The executed instruction starts of function `name` in `[lo, hi)`: its instructions
/// minus the ones the report says never ran (the function must have fewer than 32).
pub fn executed_in(o: &Oracle, r: &Report, name: &str, lo: u64, hi: u64) -> Vec<u64> {
    let fi = o.function_index(name).unwrap();
    let fr = r.function(name).unwrap();
    assert!(
        fr.uncovered.len() < 32,
        "{name}: too many unexecuted instructions to list"
    );
    let start = o.functions()[fi].start;
    o.instructions(fi)
        .iter()
        .filter(|i| {
            !i.padding && i.addr >= lo && i.addr < hi && !fr.uncovered.contains(&(i.addr - start))
        })
        .map(|i| i.addr)
        .collect()
}

/// Plant `delta` in data word `word` of the first row of `name` that `pick` accepts, and
/// check that the oracle flags exactly the executed PCs of that row (frame 0), with `kind`,
/// and nothing outside the row.
pub fn planted_is_caught(
    elf: &[u8],
    name: &str,
    word: usize,
    delta: i64,
    kind: sframe_oracle::checker::OracleKind,
    pick: impl Fn(&sframe_spec::Recovery) -> bool,
) {
    let (o, clean) = check(elf);
    assert_clean(&clean);
    let fi = o.function_index(name).unwrap();
    let fde = o.functions()[fi].fde.unwrap();
    let section = o.section();
    let fdr = section.fde(fde).unwrap();
    let row = rows(&o, fde)
        .into_iter()
        .find(|rr| {
            let fre = section.fres(&fdr).nth(rr.fre).unwrap().unwrap();
            pick(&section.recovery(&fdr, &fre).unwrap())
        })
        .unwrap_or_else(|| panic!("{name}: no row to plant in"));
    // The truth: the PCs of the row the emulator executed in the clean run.
    let expected = executed_in(&o, &clean, name, row.start, row.end);
    assert!(!expected.is_empty(), "{name}: the row {row:?} never ran");
    let planted = Oracle::with_section(elf, plant(&section, fde, row.fre, word, delta)).unwrap();
    let r = planted.check_all(&opts()).unwrap();
    let mut flagged: Vec<u64> = r
        .mismatches()
        .filter(|m| m.seen.frame == 0)
        .map(|m| m.pc)
        .collect();
    flagged.sort_unstable();
    flagged.dedup();
    assert_eq!(
        flagged, expected,
        "{name}: flagged PCs differ from the row's executed PCs"
    );
    for m in r.mismatches() {
        assert!(
            m.pc >= row.start && m.pc < row.end,
            "mismatch outside the planted row: {m:?}"
        );
        if m.seen.frame == 0 {
            assert_eq!(m.seen.kind, kind, "{m:?}");
        }
    }
}
