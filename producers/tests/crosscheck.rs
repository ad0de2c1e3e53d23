//! `crosscheck` on real objects: small C files compiled here by GCC 12 and assembled by the
//! real GNU as of every provisioned release for every ABI (`--gsframe`), and shared objects
//! linked by the same release's ld. Expected values come from gimli's own unwind table of
//! `.eh_frame` (`gimli::UnwindTable`, its `Evaluation` for CFA expressions) and from the
//! texts, never from the crosscheck's output: which PCs a function has, the CFA the CFI gives
//! at a broken row, the PLT entries' CFA. A section with one FRE's CFA offset changed by a
//! byte edit must be reported at that FRE's PC.

use gimli::{BaseAddresses, CfaRule, EhFrame, UnwindContext, UnwindSection};
use goblin::elf::Elf;
use sframe_producers::crosscheck::{crosscheck, FileReport, FunctionName, Outcome, Skip};
use std::path::{Path, PathBuf};
use std::process::Command;

/// One ABI: directory name, C compiler, its flags, the tools' triple, instruction step.
struct Target {
    name: &'static str,
    cc: &'static str,
    cflags: &'static [&'static str],
    triple: &'static str,
    step: u64,
}

const TARGETS: &[Target] = &[
    Target {
        name: "amd64",
        cc: "gcc",
        cflags: &[],
        triple: "x86_64-linux-gnu",
        step: 1,
    },
    Target {
        name: "aarch64",
        cc: "aarch64-linux-gnu-gcc",
        cflags: &[],
        triple: "aarch64-linux-gnu",
        step: 4,
    },
    Target {
        name: "aarch64-be",
        cc: "aarch64-linux-gnu-gcc",
        cflags: &["-mbig-endian"],
        triple: "aarch64-linux-gnu",
        step: 4,
    },
    Target {
        name: "s390x",
        cc: "s390x-linux-gnu-gcc",
        cflags: &[],
        triple: "s390x-linux-gnu",
        step: 2,
    },
];

/// Leaf, framed, recursive and variadic functions; `f` both called and address-taken (a
/// `.plt.got` entry on x86-64), `ext` called (a PLT entry).
/// No headers: the big-endian AArch64 cross compiler has no C library of its own.
const SOURCE: &str = r#"
extern int ext(int);
extern void f(void);
int leaf(int a, int b) { return a * b + 3; }
int framed(int n) { volatile char buf[300]; __builtin_memset((char *)buf, n, sizeof buf); return ext(buf[n % 300]) + 1; }
int recurse(int n) { if (n < 2) return n; return recurse(n - 1) * ext(n) + recurse(n - 2); }
int sum(int n, ...) { __builtin_va_list ap; int s = 0; __builtin_va_start(ap, n); while (n--) s += __builtin_va_arg(ap, int); __builtin_va_end(ap); return ext(s); }
void *addr(void) { return (void *)f; }
void call(void) { f(); }
"#;

fn bin_dir() -> PathBuf {
    sframe_producers::asm::bin_dir()
}

fn releases() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(bin_dir())
        .expect("no toolchain cache: run ci/toolchains")
        .flatten()
        .filter_map(|e| {
            let n = e.file_name().into_string().ok()?;
            let r = n.strip_prefix("x86_64-linux-gnu-as-")?;
            r.starts_with(|c: char| c.is_ascii_digit())
                .then(|| r.to_string())
        })
        .collect();
    v.sort();
    assert!(
        !v.is_empty(),
        "no GNU as in {} (run ci/toolchains)",
        bin_dir().display()
    );
    v
}

fn work_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "sframe-crosscheck-test-{}-{name}",
        std::process::id()
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Compile [`SOURCE`] with `t`'s compiler and GNU as `release`; `None` when that as writes
/// no SFrame for the ABI (said on stderr).
fn object(t: &Target, release: &str, work: &Path) -> Option<PathBuf> {
    let as_path = bin_dir().join(format!("{}-as-{release}", t.triple));
    assert!(as_path.exists(), "{} missing", as_path.display());
    let b = work.join(format!("b-{}-{release}", t.name));
    std::fs::create_dir_all(&b).unwrap();
    let link = b.join("as");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&as_path, &link).unwrap();
    let src = work.join("x.c");
    std::fs::write(&src, SOURCE).unwrap();
    let obj = work.join(format!("{}-{release}.o", t.name));
    let out = Command::new(t.cc)
        .arg(format!("-B{}/", b.display()))
        .args(t.cflags)
        .args([
            "-O2",
            "-fPIC",
            "-fasynchronous-unwind-tables",
            "-Wa,--gsframe",
            "-c",
        ])
        .arg(&src)
        .arg("-o")
        .arg(&obj)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e} (run ci/install-deps)", t.cc));
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("not supported"), "{} {release}: {err}", t.name);
        eprintln!(
            "note: GNU as {release} writes no SFrame for {}: {err}",
            t.name
        );
        return None;
    }
    Some(obj)
}

/// Link `obj` into a shared object with ld `release`.
fn shared(t: &Target, release: &str, obj: &Path) -> PathBuf {
    let ld = bin_dir().join(format!("{}-ld-{release}", t.triple));
    let so = obj.with_extension("so");
    let mut cmd = Command::new(&ld);
    if t.cflags.contains(&"-mbig-endian") {
        cmd.arg("-EB");
    }
    let out = cmd
        .arg("-shared")
        .arg(obj)
        .arg("-o")
        .arg(&so)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}: {}",
        ld.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    so
}

/// gimli's reading of `.eh_frame`: per FDE, its range and, per row, its range and the CFA
/// as (register, offset, deref) at each PC (a CFA expression evaluated by gimli's own
/// `Evaluation` with the stack pointer at a known value and the PC register at the PC).
struct GimliFde {
    start: u64,
    end: u64,
    rows: Vec<(u64, u64, CfaRule<usize>)>,
}

fn gimli_fdes(file: &[u8]) -> (Vec<GimliFde>, Vec<u8>) {
    let elf = Elf::parse(file).unwrap();
    let (bytes, vaddr) =
        sframe_producers::cfi::relocated_section(file, &elf, ".eh_frame").expect(".eh_frame");
    let mut out = Vec::new();
    {
        let eh = if elf.little_endian {
            EhFrame::new(&bytes, gimli::RunTimeEndian::Little)
        } else {
            EhFrame::new(&bytes, gimli::RunTimeEndian::Big)
        };
        let bases = BaseAddresses::default().set_eh_frame(vaddr);
        let mut ctx = UnwindContext::new();
        let mut entries = eh.entries(&bases);
        while let Some(e) = entries.next().unwrap() {
            let gimli::CieOrFde::Fde(p) = e else { continue };
            let fde = p.parse(EhFrame::cie_from_offset).unwrap();
            let mut table = fde.rows(&eh, &bases, &mut ctx).unwrap();
            let mut rows = Vec::new();
            while let Some(r) = table.next_row().unwrap() {
                let cfa = match r.cfa() {
                    CfaRule::RegisterAndOffset { register, offset } => CfaRule::RegisterAndOffset {
                        register: *register,
                        offset: *offset,
                    },
                    CfaRule::Expression(x) => CfaRule::Expression(*x),
                };
                rows.push((r.start_address(), r.end_address(), cfa));
            }
            out.push(GimliFde {
                start: fde.initial_address(),
                end: fde.initial_address() + fde.len(),
                rows,
            });
        }
    }
    (out, bytes)
}

const SP_VALUE: u64 = 0x7fff_0000;

/// The CFA gimli gives at `pc`: (register, offset); an expression is evaluated with rsp =
/// [`SP_VALUE`] and rip = `pc` (x86-64 only) and given back as an offset from rsp.
fn gimli_cfa(f: &GimliFde, section: &[u8], big: bool, pc: u64) -> (u16, i64) {
    let (_, _, rule) = f
        .rows
        .iter()
        .find(|(a, b, _)| *a <= pc && pc < *b)
        .expect("a row");
    match rule {
        CfaRule::RegisterAndOffset { register, offset } => (register.0, *offset),
        CfaRule::Expression(x) => {
            let endian = if big {
                gimli::RunTimeEndian::Big
            } else {
                gimli::RunTimeEndian::Little
            };
            let bytes = &section[x.offset..x.offset + x.length];
            let expr = gimli::Expression(gimli::EndianSlice::new(bytes, endian));
            let enc = gimli::Encoding {
                address_size: 8,
                format: gimli::Format::Dwarf32,
                version: 4,
            };
            let mut eval = expr.evaluation(enc);
            let mut state = eval.evaluate().unwrap();
            loop {
                match state {
                    gimli::EvaluationResult::Complete => break,
                    gimli::EvaluationResult::RequiresRegister { register, .. } => {
                        let v = match register.0 {
                            7 => SP_VALUE,
                            16 => pc,
                            r => panic!("register {r} in a CFA expression"),
                        };
                        state = eval.resume_with_register(gimli::Value::Generic(v)).unwrap();
                    }
                    other => panic!("{other:?}"),
                }
            }
            let pieces = eval.result();
            let gimli::Location::Address { address } = pieces[0].location else {
                panic!("{:?}", pieces[0].location)
            };
            (7, address.wrapping_sub(SP_VALUE) as i64)
        }
    }
}

fn report_of(path: &Path) -> FileReport {
    crosscheck(&std::fs::read(path).unwrap()).unwrap()
}

/// Every `.eh_frame` FDE is a function checked at each of its PCs (gimli's ranges, at the
/// ABI's instruction step); PLT sections are asserted apart.
fn assert_every_pc_checked(t: &Target, path: &Path, r: &FileReport) {
    let (fdes, _) = gimli_fdes(&std::fs::read(path).unwrap());
    assert!(!fdes.is_empty(), "{}: no FDE", path.display());
    for g in &fdes {
        let f = r
            .functions
            .iter()
            .find(|f| f.start == g.start && f.start + f.size == g.end)
            .unwrap_or_else(|| panic!("{}: FDE {:#x} not reported", path.display(), g.start));
        if f.is_plt() {
            continue;
        }
        let want = g.end.div_ceil(t.step) - g.start.div_ceil(t.step);
        match &f.outcome {
            Outcome::Checked { pcs, .. } => assert_eq!(*pcs, want, "{:?}", f.name),
            Outcome::Skipped { reason } => {
                panic!("{}: {:?} skipped: {reason:?}", path.display(), f.name)
            }
        }
    }
}

fn disagreements(r: &FileReport) -> Vec<(FunctionName, u64)> {
    r.functions
        .iter()
        .flat_map(|f| match &f.outcome {
            Outcome::Checked { disagreements, .. } => disagreements
                .iter()
                .map(|d| (f.name.clone(), d.pc))
                .collect(),
            _ => vec![],
        })
        .collect()
}

#[test]
fn objects_of_every_release_and_abi_agree_at_every_pc_and_a_broken_fre_is_caught() {
    let work = work_dir("objects");
    let mut checked = 0;
    for t in TARGETS {
        for rel in releases() {
            let Some(obj) = object(t, &rel, &work) else {
                continue;
            };
            let r = report_of(&obj);
            assert_eq!(r.abi.name(), t.name);
            assert_every_pc_checked(t, &obj, &r);
            assert_eq!(disagreements(&r), vec![], "{} {rel}", t.name);
            assert!(r
                .functions
                .iter()
                .any(|f| matches!(&f.name, FunctionName::Symbol(n) if n == "framed")));
            broken_fre_is_caught(t, &rel, &obj);
            checked += 1;
        }
    }
    // amd64, aarch64 (both endians) of every release, s390x of 2.47 at least.
    assert!(checked > 3 * releases().len(), "{checked}");
    let _ = std::fs::remove_dir_all(&work);
}

/// Add 8 to the CFA offset of one FRE (one-byte data words, not at a function's start) and
/// expect a CFA disagreement at that FRE's PC, with the CFA gimli gives there.
fn broken_fre_is_caught(t: &Target, rel: &str, obj: &Path) {
    let mut file = std::fs::read(obj).unwrap();
    let orig = file.clone();
    let elf = Elf::parse(&orig).unwrap();
    let sh = elf
        .section_headers
        .iter()
        .find(|s| elf.shdr_strtab.get_at(s.sh_name) == Some(".sframe"))
        .unwrap();
    let sh_offset = sh.sh_offset as usize;
    let loaded = sframe_elf::load(&orig).unwrap();
    let sec = sframe_spec::SectionRef::parse(&loaded.bytes).unwrap();
    let mut target = None;
    'find: for i in 0..sec.num_fdes() {
        let fde = sec.fde(i).unwrap();
        if fde.fde_type != sframe_spec::constants::FdeType::Default {
            continue;
        }
        let fres: Vec<_> = sec.fres(&fde).map(|f| f.unwrap()).collect();
        for (k, fre) in fres.iter().enumerate() {
            if fre.start > 0 && fre.dataword_size.bytes() == 1 && fre.dataword_count() > 0 {
                let pc = loaded.vaddr.wrapping_add(fde.start as u64) + u64::from(fre.start);
                target = Some((fre.dataword_offset(0), pc, k));
                break 'find;
            }
        }
    }
    let (at, pc, _) = target.expect("an FRE with one-byte data words after a function's start");
    file[sh_offset + at] = file[sh_offset + at].wrapping_add(8);
    let path = obj.with_extension("broken.o");
    std::fs::write(&path, &file).unwrap();
    let r = report_of(&path);
    let d: Vec<_> = r
        .functions
        .iter()
        .flat_map(|f| match &f.outcome {
            Outcome::Checked { disagreements, .. } => disagreements.clone(),
            _ => vec![],
        })
        .collect();
    assert_eq!(d.len(), 1, "{} {rel}: {d:?}", t.name);
    assert_eq!(d[0].pc, pc, "{} {rel}", t.name);
    assert_eq!(
        d[0].mismatch.kind,
        sframe_producers::check::Kind::Cfa,
        "{} {rel}",
        t.name
    );
    let (fdes, section) = gimli_fdes(&file);
    let g = fdes
        .iter()
        .find(|g| g.start <= pc && pc < g.end)
        .expect("an FDE");
    let (reg, off) = gimli_cfa(g, &section, !elf.little_endian, pc);
    let want = sframe_spec::Loc::Expr {
        base: sframe_spec::Base::Reg(u32::from(reg)),
        offset: off,
        deref: false,
    };
    let m = &d[0].mismatch;
    assert_eq!(m.expected_rules.and_then(|e| e.cfa), Some(want));
    let found = m.found_rules.expect("an SFrame row").cfa;
    assert_ne!(Some(found), m.expected_rules.and_then(|e| e.cfa));
}

#[test]
fn linked_shared_objects_and_their_plts() {
    let work = work_dir("linked");
    for t in TARGETS {
        for rel in releases() {
            let Some(obj) = object(t, &rel, &work) else {
                continue;
            };
            let so = shared(t, &rel, &obj);
            let r = report_of(&so);
            assert_every_pc_checked(t, &so, &r);
            let plts: Vec<_> = r.functions.iter().filter(|f| f.is_plt()).collect();
            assert!(!plts.is_empty(), "{} {rel}: no PLT reported", t.name);
            if t.name != "amd64" {
                // GNU ld writes no CFI for AArch64 PLTs; for s390x, ld 2.47 writes CFI and
                // SFrame, which must agree at every PC gimli gives a row for.
                let (fdes, _) = gimli_fdes(&std::fs::read(&so).unwrap());
                for p in plts {
                    match fdes.iter().find(|g| g.start == p.start) {
                        None => assert_eq!(
                            p.outcome,
                            Outcome::Skipped {
                                reason: Skip::NoCfi
                            },
                            "{} {rel}",
                            t.name
                        ),
                        Some(g) => assert_eq!(
                            p.outcome,
                            Outcome::Checked {
                                pcs: (g.end - g.start) / t.step,
                                agreeing: (g.end - g.start) / t.step,
                                disagreements: vec![],
                                facts: None,
                                evaluated_cfa_expression: false,
                            },
                            "{} {rel}",
                            t.name
                        ),
                    }
                }
                assert_eq!(disagreements(&r), vec![], "{} {rel}", t.name);
                continue;
            }
            amd64_plt(&rel, &so, &r);
        }
    }
    let _ = std::fs::remove_dir_all(&work);
}

/// x86-64: `.plt` (PLT0 and lazy entries, CFA by expression) and `.plt.got`, against gimli's
/// evaluation of ld's `.eh_frame`. What disagrees is what the ledger says ld gets wrong:
/// 2.40's v1 mask rule at entry offsets 12-14 (F0240: the v1 text's test `PC & 11 >= 11`
/// fails there, gimli gives rsp+16), 2.44's and 2.47's `.plt.got` (F0241: every PC, gimli
/// gives rsp+8).
fn amd64_plt(rel: &str, so: &Path, r: &FileReport) {
    let file = std::fs::read(so).unwrap();
    let (fdes, section) = gimli_fdes(&file);
    let plt = r
        .functions
        .iter()
        .find(|f| f.name == FunctionName::Plt(".plt".into()))
        .expect(".plt");
    let Outcome::Checked {
        evaluated_cfa_expression,
        disagreements,
        ..
    } = &plt.outcome
    else {
        panic!("{rel}: .plt not checked: {:?}", plt.outcome)
    };
    assert!(evaluated_cfa_expression);
    let g = fdes.iter().find(|g| g.start == plt.start).unwrap();
    // The PCs the text says disagree, with gimli's CFA at each.
    let mut want: Vec<u64> = Vec::new();
    for pc in plt.start + 16..plt.start + plt.size {
        let k = (pc - plt.start) % 16;
        let (reg, off) = gimli_cfa(g, &section, false, pc);
        assert_eq!((reg, off), (7, if k >= 11 { 16 } else { 8 }), "{pc:#x}");
        if rel == "2.40" && k & 11 != 11 && off == 16 {
            want.push(pc);
        }
    }
    let got: Vec<u64> = disagreements
        .iter()
        .flat_map(|d| d.pc..d.pc + d.pcs)
        .collect();
    assert_eq!(got, want, "ld {rel} .plt");
    let pltgot = r
        .functions
        .iter()
        .find(|f| f.name == FunctionName::Plt(".plt.got".into()))
        .expect(".plt.got");
    match (&pltgot.outcome, rel) {
        (
            Outcome::Skipped {
                reason: Skip::LeftOutExpressible,
            },
            "2.40",
        ) => {}
        (Outcome::Checked { disagreements, .. }, "2.44" | "2.47") => {
            let g = fdes.iter().find(|g| g.start == pltgot.start).unwrap();
            let n: u64 = disagreements.iter().map(|d| d.pcs).sum();
            assert_eq!(n, pltgot.size, "every PC of .plt.got");
            for d in disagreements {
                let (reg, off) = gimli_cfa(g, &section, false, d.pc);
                assert_eq!((reg, off), (7, 8));
                assert_eq!(
                    d.mismatch.expected_rules.and_then(|e| e.cfa),
                    Some(sframe_spec::Loc::Expr {
                        base: sframe_spec::Base::Reg(7),
                        offset: 8,
                        deref: false
                    })
                );
            }
        }
        (o, _) => panic!("ld {rel} .plt.got: {o:?}"),
    }
    // Outside the PLT sections, nothing disagrees.
    for f in r.functions.iter().filter(|f| !f.is_plt()) {
        if let Outcome::Checked { disagreements, .. } = &f.outcome {
            assert_eq!(disagreements, &vec![], "{:?}", f.name);
        }
    }
}
