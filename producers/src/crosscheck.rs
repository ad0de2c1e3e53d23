//! Any ELF file's SFrame rows against its own `.eh_frame`, function by function, PC by PC:
//! the check [`crate::check`] does for assembler output, for relocatable objects,
//! executables and shared objects alike, linked PLT sections included.
//!
//! Functions are the `.eh_frame` FDEs (named by the function symbol covering their start,
//! or by their section for PLT sections), the function symbols no FDE covers, and the PCs
//! of SFrame FDEs no `.eh_frame` FDE covers. Each FDE's PCs, from its start to its end at
//! the ABI's instruction alignment (1 byte on x86-64, 2 on s390x, 4 on AArch64), are split
//! where either side's row may change (a CFI row's start, an SFrame FDE's start and end and
//! each of its FRE starts; every PC of a PC-mask FDE and of a CFI row whose CFA is an
//! expression); one look-up per piece answers for every PC in it. The CFA expressions GNU
//! ld writes for x86-64 PLT entries are evaluated at each PC ([`crate::dwarf_expr`]), so
//! PLT entries are compared like any function, against SFrame's PC-mask FDEs.
//!
//! Nothing is emulated and nothing is sampled: the same file gives the same report.

use crate::cfi::{self, CfaRule, CfiError, FdeRows, Row};
use crate::check::{self, expected, expressible, Expected, Mismatch, Unexpressible};
use crate::dwarf_expr::{self, ExprError, Location};
use goblin::elf::{header, section_header, sym, Elf};
use serde::Serialize;
use sframe_elf::{FileKind, LoadError, Machine};
use sframe_findings::signature::Shape;
use sframe_spec::constants::PcType;
use sframe_spec::{Abi, Loc, SectionRef, Version};

/// Why a file could not be checked at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileError {
    /// Not an ELF file.
    NotElf,
    /// ELF that goblin cannot read.
    BadElf(String),
    /// ELF for a machine SFrame does not describe.
    UnsupportedMachine(u16),
}

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FileError::NotElf => f.write_str("not an ELF file"),
            FileError::BadElf(e) => write!(f, "malformed ELF file: {e}"),
            FileError::UnsupportedMachine(m) => {
                write!(
                    f,
                    "ELF machine {m} has no SFrame ABI (x86-64, AArch64, s390x only)"
                )
            }
        }
    }
}

impl std::error::Error for FileError {}

/// Why a function's rows were not compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Skip {
    /// The file has no `.sframe` section: there is nothing to compare.
    NoSframeSection,
    /// The file's `.sframe` section cannot be read (see [`FileReport::sframe_error`]).
    SframeUnreadable,
    /// A function symbol that no `.eh_frame` FDE covers (and no SFrame FDE either).
    NoCfi,
    /// Its `.eh_frame` FDE did not read (see [`FileReport::cfi_errors`]).
    CfiUnreadable,
    /// No SFrame FDE, and at some PC no SFrame row can say what the CFI says: left out,
    /// as a producer must.
    LeftOutUnexpressible(Unexpressible),
    /// No SFrame FDE, though an SFrame row could say what the CFI says at every PC
    /// (counted: nothing in the texts requires an FDE for every function).
    LeftOutExpressible,
    /// More PCs to look up one by one (a CFA expression, a PC-mask FDE) than
    /// [`MAX_PER_PC`]: a malformed FDE length, not a real function.
    TooManyPcsEachAlone,
}

impl Skip {
    /// The reason's name in reports (`left-out-unexpressible:<why>`).
    pub fn name(self) -> String {
        match self {
            Skip::NoSframeSection => "no-sframe-section".into(),
            Skip::SframeUnreadable => "sframe-unreadable".into(),
            Skip::NoCfi => "no-cfi".into(),
            Skip::CfiUnreadable => "cfi-unreadable".into(),
            Skip::LeftOutUnexpressible(w) => format!("left-out-unexpressible:{w}"),
            Skip::LeftOutExpressible => "left-out-expressible".into(),
            Skip::TooManyPcsEachAlone => "too-many-pcs-each-alone".into(),
        }
    }
}

impl Serialize for Skip {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.name())
    }
}

/// A function's name: its symbol, its PLT section, or only its address.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "by", content = "name", rename_all = "kebab-case")]
pub enum FunctionName {
    Symbol(String),
    /// A PLT section (`.plt`, `.plt.sec`, `.plt.got`, `.iplt`): linker-made code.
    Plt(String),
    Address,
}

/// A disagreement over a run of PCs (the same answer at each).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RowDisagreement {
    /// The first PC (absolute, in the layout of [`sframe_elf::section_addresses`]).
    pub pc: u64,
    /// How many PCs of the run disagree the same way.
    pub pcs: u64,
    pub mismatch: Box<Mismatch>,
}

/// What happened to one function.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "kebab-case")]
pub enum Outcome {
    /// Compared at every PC.
    Checked {
        pcs: u64,
        agreeing: u64,
        /// Row disagreements, in PC order; then the FDE's signal-frame bit and pauth key.
        disagreements: Vec<RowDisagreement>,
        facts: Option<Box<Mismatch>>,
        /// The CFA was a DWARF expression evaluated at each PC (PLT entries).
        evaluated_cfa_expression: bool,
    },
    Skipped {
        reason: Skip,
    },
}

/// One function's report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FunctionReport {
    pub name: FunctionName,
    /// Start and size (absolute, in the layout of [`sframe_elf::section_addresses`]).
    pub start: u64,
    pub size: u64,
    pub outcome: Outcome,
}

impl FunctionReport {
    /// Whether the function lies in a PLT section.
    pub fn is_plt(&self) -> bool {
        matches!(self.name, FunctionName::Plt(_))
    }
}

/// PCs an SFrame FDE covers where no `.eh_frame` FDE says anything.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SframeOnly {
    pub name: FunctionName,
    /// The SFrame FDE's start and size (absolute).
    pub start: u64,
    pub size: u64,
    /// Its PCs outside every `.eh_frame` FDE.
    pub uncovered_pcs: u64,
}

/// The crosscheck of one ELF file.
#[derive(Debug, Clone, Serialize)]
pub struct FileReport {
    /// `amd64`, `aarch64`, `aarch64-be`, `s390x`.
    #[serde(serialize_with = "abi_name")]
    pub abi: Abi,
    #[serde(serialize_with = "kind_name")]
    pub kind: FileKind,
    /// The `.sframe` section's version, if it has one that reads.
    #[serde(serialize_with = "version_name")]
    pub version: Option<Version>,
    /// Why `.sframe` could not be read, if it is there and could not.
    pub sframe_error: Option<String>,
    /// `.eh_frame` entries that did not read.
    #[serde(serialize_with = "cfi_errors")]
    pub cfi_errors: Vec<CfiError>,
    pub functions: Vec<FunctionReport>,
    pub sframe_only: Vec<SframeOnly>,
}

fn abi_name<S: serde::Serializer>(a: &Abi, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(a.name())
}

fn kind_name<S: serde::Serializer>(k: &FileKind, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(file_kind_name(*k))
}

/// `relocatable`, `executable`, `shared-object`.
pub fn file_kind_name(k: FileKind) -> &'static str {
    match k {
        FileKind::Relocatable => "relocatable",
        FileKind::Executable => "executable",
        FileKind::SharedObject => "shared-object",
    }
}

fn version_name<S: serde::Serializer>(v: &Option<Version>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(v) => s.serialize_u8(*v as u8),
        None => s.serialize_none(),
    }
}

fn cfi_errors<S: serde::Serializer>(v: &[CfiError], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(v.iter().map(|e| match e.function {
        Some((start, len)) => format!("FDE {start:#x}+{len:#x}: {}", e.message),
        None => e.message.clone(),
    }))
}

/// The DWARF register that holds the PC in CFA expressions, where the ABI has one
/// (x86-64: 16, `%rip`, System V AMD64 psABI Figure 3.36).
fn pc_register(abi: Abi) -> Option<u16> {
    match abi {
        Abi::Amd64 => Some(16),
        _ => None,
    }
}

/// The step between PCs that can start an instruction.
fn pc_step(abi: Abi) -> u64 {
    match abi {
        Abi::Amd64 => 1,
        Abi::S390x => 2,
        Abi::Aarch64Le | Abi::Aarch64Be => 4,
    }
}

/// PCs at multiples of `step` in `[a, b)`.
fn pcs_in(a: u64, b: u64, step: u64) -> u64 {
    if b <= a {
        return 0;
    }
    b.div_ceil(step) - a.div_ceil(step)
}

/// Function symbols: (start, end, name), absolute, sorted.
fn function_symbols(elf: &Elf<'_>, addrs: &[u64]) -> Vec<(u64, u64, String)> {
    let rel = elf.header.e_type == header::ET_REL;
    let (syms, strtab) = if elf.syms.is_empty() {
        (&elf.dynsyms, &elf.dynstrtab)
    } else {
        (&elf.syms, &elf.strtab)
    };
    let mut out: Vec<(u64, u64, String)> = syms
        .iter()
        .filter(|s| {
            s.st_type() == sym::STT_FUNC
                && s.st_shndx != 0
                && s.st_shndx < usize::from(u16::MAX) - 0x100
        })
        .filter_map(|s| {
            let base = if rel { *addrs.get(s.st_shndx)? } else { 0 };
            let start = base.wrapping_add(s.st_value);
            let name = strtab.get_at(s.st_name).unwrap_or("").to_string();
            Some((start, start.wrapping_add(s.st_size), name))
        })
        .collect();
    out.sort();
    out.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
    out
}

/// Executable sections: (start, end, name), absolute.
fn exec_sections(elf: &Elf<'_>, addrs: &[u64]) -> Vec<(u64, u64, String)> {
    elf.section_headers
        .iter()
        .enumerate()
        .filter(|(_, s)| {
            s.sh_flags & u64::from(section_header::SHF_EXECINSTR) != 0
                && s.sh_type != section_header::SHT_NOBITS
        })
        .map(|(i, s)| {
            let a = addrs.get(i).copied().unwrap_or(0);
            let name = elf.shdr_strtab.get_at(s.sh_name).unwrap_or("").to_string();
            (a, a.wrapping_add(s.sh_size), name)
        })
        .collect()
}

fn is_plt_section(name: &str) -> bool {
    matches!(
        name,
        ".plt" | ".plt.sec" | ".plt.got" | ".iplt" | ".plt.bnd"
    )
}

/// The name of the function starting at `start`: the function symbol covering it
/// (one starting there first), else the PLT section holding it.
fn name_at(
    start: u64,
    syms: &[(u64, u64, String)],
    sections: &[(u64, u64, String)],
) -> FunctionName {
    if let Some((_, _, n)) = sections
        .iter()
        .find(|(a, b, n)| *a <= start && start < *b && is_plt_section(n))
    {
        return FunctionName::Plt(n.clone());
    }
    let i = syms.partition_point(|s| s.0 <= start);
    let exact = syms[..i].iter().rev().take_while(|s| s.0 == start).last();
    let covering = syms[..i].iter().rev().find(|s| s.0 <= start && start < s.1);
    match exact.or(covering) {
        Some((_, _, n)) if !n.is_empty() => FunctionName::Symbol(n.clone()),
        _ => FunctionName::Address,
    }
}

/// The ABI of an ELF file.
fn abi_of(machine: Machine, little: bool) -> Abi {
    match machine {
        Machine::X86_64 => Abi::Amd64,
        Machine::S390x => Abi::S390x,
        Machine::Aarch64 if little => Abi::Aarch64Le,
        Machine::Aarch64 => Abi::Aarch64Be,
    }
}

/// The rules the CFI row gives at `pc`: the row's, with a CFA expression evaluated there.
fn expected_at(
    abi: Abi,
    row: &Row,
    ra_column: u16,
    pc: u64,
    big_endian: bool,
) -> (Expected, Option<ExprError>) {
    let mut e = expected(abi, row, ra_column);
    let CfaRule::Expression(bytes) = &row.cfa else {
        return (e, None);
    };
    match dwarf_expr::eval_cfa(bytes, pc_register(abi), pc, big_endian) {
        Ok(Location {
            base: dwarf_expr::Base::Reg(r),
            offset,
            deref,
        }) => {
            e.cfa = Some(Loc::Expr {
                base: sframe_spec::Base::Reg(u32::from(r)),
                offset,
                deref,
            });
            (e, None)
        }
        // The CFA in terms of itself, or of no real register: no rule.
        Ok(_) => (e, Some(ExprError::NotAffine(0))),
        Err(err) => (e, Some(err)),
    }
}

/// An SFrame FDE's absolute range and PC type.
#[derive(Debug, Clone, Copy)]
struct SfdeRange {
    start: u64,
    end: u64,
    mask: bool,
    index: usize,
}

/// The most PCs of one function looked up one by one (CFA expressions, PC-mask FDEs): the
/// largest x86-64 `.plt` of a real library has a few thousand.
const MAX_PER_PC: u64 = 1 << 22;

/// Compare one `.eh_frame` FDE with the SFrame section.
fn check_function(
    sec: &SectionRef<'_>,
    vaddr: u64,
    sfdes: &[SfdeRange],
    fde: &FdeRows,
    big_endian: bool,
) -> Outcome {
    let abi = sec.abi();
    let version = sec.version();
    let step = pc_step(abi);
    let (lo, hi) = (fde.start, fde.start.saturating_add(fde.len));
    let overlapping: Vec<&SfdeRange> = sfdes
        .iter()
        .filter(|s| s.start < hi && lo < s.end)
        .collect();
    let has_expr = fde
        .rows
        .iter()
        .any(|r| matches!(r.cfa, CfaRule::Expression(_)));
    // The PCs where a row may change: per PC inside a CFI row with a CFA expression and
    // inside a PC-mask FDE, at most MAX_PER_PC of them.
    let mut change: Vec<u64> = fde.rows.iter().map(|r| r.start).collect();
    let mut per_pc: Vec<(u64, u64)> = Vec::new();
    for (k, r) in fde.rows.iter().enumerate() {
        if matches!(r.cfa, CfaRule::Expression(_)) {
            let end = fde.rows.get(k + 1).map_or(hi, |n| n.start).min(hi);
            per_pc.push((r.start.max(lo), end));
        }
    }
    for s in overlapping.iter().filter(|s| s.mask) {
        per_pc.push((s.start.max(lo), s.end.min(hi)));
    }
    if per_pc.iter().map(|&(a, b)| pcs_in(a, b, step)).sum::<u64>() > MAX_PER_PC {
        return Outcome::Skipped {
            reason: Skip::TooManyPcsEachAlone,
        };
    }
    for (a, b) in per_pc {
        let mut p = a.div_ceil(step).saturating_mul(step);
        while p < b {
            change.push(p);
            p += step;
        }
    }
    for s in &overlapping {
        change.push(s.start);
        change.push(s.end);
        let Ok(sfde) = sec.fde(s.index) else { continue };
        if !s.mask {
            for fre in sec.fres(&sfde).flatten() {
                change.push(s.start.wrapping_add(u64::from(fre.start)));
            }
        }
    }
    change.push(lo);
    change.retain(|&p| lo <= p && p < hi);
    change.sort_unstable();
    change.dedup();
    let unexp = || {
        change.iter().find_map(|&p| {
            let row = fde.row_at(p)?;
            let (e, err) = expected_at(abi, row, fde.ra_column, p, big_endian);
            match err {
                Some(_) => Some(Unexpressible::CfaExpression),
                None => expressible(version, abi, &e).err(),
            }
        })
    };
    if overlapping.is_empty() {
        return Outcome::Skipped {
            reason: match unexp() {
                Some(w) => Skip::LeftOutUnexpressible(w),
                None => Skip::LeftOutExpressible,
            },
        };
    }
    let mut pcs = 0u64;
    let mut agreeing = 0u64;
    let mut disagreements: Vec<RowDisagreement> = Vec::new();
    for (k, &p) in change.iter().enumerate() {
        let next = change.get(k + 1).copied().unwrap_or(hi);
        let n = pcs_in(p, next, step);
        if n == 0 {
            continue;
        }
        let first = p.div_ceil(step).saturating_mul(step);
        pcs += n;
        let Some(row) = fde.row_at(first) else {
            continue;
        };
        let (e, _) = expected_at(abi, row, fde.ra_column, first, big_endian);
        match check::compare_at(sec, vaddr, first, first - lo, &e) {
            Ok(()) => agreeing += n,
            Err(m) => {
                // A run of the same disagreement is one entry.
                match disagreements.last_mut() {
                    Some(d)
                        if d.mismatch.shape == m.shape
                            && d.mismatch.kind == m.kind
                            && d.pc + d.pcs * step >= first =>
                    {
                        d.pcs += n
                    }
                    _ => disagreements.push(RowDisagreement {
                        pc: first,
                        pcs: n,
                        mismatch: m,
                    }),
                }
            }
        }
    }
    // An SFrame row starting where no CFI row can (not a multiple of the CIE's code
    // alignment factor from the function's start: data bytes in AArch64 code) makes the
    // CFI's rows start elsewhere (GNU as drops an advance shorter than the factor): the
    // shape says so.
    let unaligned = overlapping.iter().any(|s| {
        !s.mask
            && sec.fde(s.index).is_ok_and(|sfde| {
                sec.fres(&sfde).flatten().any(|fre| {
                    let at = s.start.wrapping_add(u64::from(fre.start));
                    at.wrapping_sub(lo) % fde.code_align.max(1) != 0
                })
            })
    });
    if unaligned {
        for d in &mut disagreements {
            d.mismatch.shape.unaligned = true;
        }
    }
    let rel = lo.wrapping_sub(vaddr) as i64;
    let facts = match sec.find_fde(rel) {
        Ok(Some(sfde)) => check::compare_fde_facts(sec, &sfde, fde, unexp()).err(),
        _ => None,
    };
    Outcome::Checked {
        pcs,
        agreeing,
        disagreements,
        facts,
        evaluated_cfa_expression: has_expr,
    }
}

/// Crosscheck one ELF file: every `.eh_frame` FDE against `.sframe`, every function symbol
/// without an FDE, every SFrame FDE's PCs without CFI.
pub fn crosscheck(file: &[u8]) -> Result<FileReport, FileError> {
    if !file.starts_with(b"\x7fELF") {
        return Err(FileError::NotElf);
    }
    let elf = Elf::parse(file).map_err(|e| FileError::BadElf(e.to_string()))?;
    let machine = match elf.header.e_machine {
        header::EM_X86_64 => Machine::X86_64,
        header::EM_AARCH64 => Machine::Aarch64,
        header::EM_S390 => Machine::S390x,
        m => return Err(FileError::UnsupportedMachine(m)),
    };
    let abi = abi_of(machine, elf.little_endian);
    let kind = match elf.header.e_type {
        header::ET_REL => FileKind::Relocatable,
        header::ET_DYN => FileKind::SharedObject,
        _ => FileKind::Executable,
    };
    let addrs = sframe_elf::section_addresses(&elf);
    let syms = function_symbols(&elf, &addrs);
    let sections = exec_sections(&elf, &addrs);
    let eh = cfi::read_eh_frame_lenient(file, &elf);
    let mut report = FileReport {
        abi,
        kind,
        version: None,
        sframe_error: None,
        cfi_errors: eh.errors.clone(),
        functions: vec![],
        sframe_only: vec![],
    };
    let loaded = match sframe_elf::load(file) {
        Ok(l) => Some(l),
        Err(LoadError::NoSframeSection) => None,
        Err(e) => {
            report.sframe_error = Some(e.to_string());
            None
        }
    };
    let sec = match &loaded {
        Some(l) => match SectionRef::parse(&l.bytes) {
            Ok(s) => Some(s),
            Err(v) => {
                report.sframe_error = Some(format!("{v:?}"));
                None
            }
        },
        None => None,
    };
    let vaddr = loaded.as_ref().map_or(0, |l| l.vaddr);
    report.version = sec.as_ref().map(|s| s.version());
    let mut sfdes: Vec<SfdeRange> = Vec::new();
    if let Some(sec) = &sec {
        for i in 0..sec.num_fdes() {
            let Ok(f) = sec.fde(i) else { continue };
            let start = vaddr.wrapping_add(f.start as u64);
            sfdes.push(SfdeRange {
                start,
                end: start.saturating_add(u64::from(f.size)),
                mask: f.pc_type() == PcType::Mask,
                index: i,
            });
        }
    }
    let no_sframe = if report.sframe_error.is_some() {
        Skip::SframeUnreadable
    } else {
        Skip::NoSframeSection
    };
    let mut fdes: Vec<&FdeRows> = eh.fdes.iter().collect();
    fdes.sort_by_key(|f| (f.start, f.len));
    for fde in &fdes {
        let outcome = match &sec {
            Some(sec) => check_function(sec, vaddr, &sfdes, fde, !elf.little_endian),
            None => Outcome::Skipped { reason: no_sframe },
        };
        report.functions.push(FunctionReport {
            name: name_at(fde.start, &syms, &sections),
            start: fde.start,
            size: fde.len,
            outcome,
        });
    }
    for e in &eh.errors {
        if let Some((start, len)) = e.function {
            report.functions.push(FunctionReport {
                name: name_at(start, &syms, &sections),
                start,
                size: len,
                outcome: Outcome::Skipped {
                    reason: Skip::CfiUnreadable,
                },
            });
        }
    }
    // The CFI's ranges, merged, to find what only SFrame (or nothing) covers.
    let mut covered: Vec<(u64, u64)> = eh
        .fdes
        .iter()
        .map(|f| (f.start, f.start.saturating_add(f.len)))
        .chain(
            eh.errors
                .iter()
                .filter_map(|e| e.function)
                .map(|(s, l)| (s, s.saturating_add(l))),
        )
        .collect();
    covered.sort_unstable();
    let mut merged: Vec<(u64, u64)> = Vec::new();
    for (a, b) in covered {
        match merged.last_mut() {
            Some(m) if a <= m.1 => m.1 = m.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    let uncovered = |a: u64, b: u64| -> u64 {
        let inside: u64 = merged
            .iter()
            .map(|&(x, y)| b.min(y).saturating_sub(a.max(x)))
            .sum();
        (b - a).saturating_sub(inside)
    };
    for s in &sfdes {
        let n = uncovered(s.start, s.end.max(s.start));
        if n > 0 {
            report.sframe_only.push(SframeOnly {
                name: name_at(s.start, &syms, &sections),
                start: s.start,
                size: s.end - s.start,
                uncovered_pcs: n,
            });
        }
    }
    // Function symbols and PLT sections neither side describes (GNU ld writes neither for
    // AArch64 PLTs).
    let symbols = syms
        .iter()
        .map(|(a, b, n)| (*a, *b, FunctionName::Symbol(n.clone())));
    let plts = sections
        .iter()
        .filter(|s| is_plt_section(&s.2))
        .map(|(a, b, n)| (*a, *b, FunctionName::Plt(n.clone())));
    for (a, b, name) in symbols.chain(plts) {
        let in_cfi = merged.iter().any(|&(x, y)| x < b && a < y);
        let in_sframe = sfdes.iter().any(|s| s.start < b && a < s.end);
        if !in_cfi && !in_sframe && b > a {
            report.functions.push(FunctionReport {
                name,
                start: a,
                size: b - a,
                outcome: Outcome::Skipped {
                    reason: Skip::NoCfi,
                },
            });
        }
    }
    report.functions.sort_by_key(|f| (f.start, f.size));
    Ok(report)
}

/// What a file's `.eh_frame` says of its SFrame row at one PC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RowAgreement {
    /// A CFI row covers the PC and SFrame's row says the same: the section translated its
    /// input faithfully there, so whatever is wrong with the row is wrong in the CFI too.
    Agrees,
    /// SFrame's row differs from the CFI's there (or the FDE's facts differ).
    Disagrees,
    /// No CFI row was compared there (no `.eh_frame` FDE, or the function was skipped).
    NotCompared,
}

impl FileReport {
    /// The agreement of SFrame and `.eh_frame` at `pc` (absolute, in the layout of
    /// [`sframe_elf::section_addresses`]); a PC between instruction starts counts as the
    /// instruction start below it.
    pub fn agreement_at(&self, pc: u64) -> RowAgreement {
        let step = pc_step(self.abi);
        let pc = pc / step * step;
        let covering = self
            .functions
            .iter()
            .filter(|f| f.start <= pc && pc - f.start < f.size);
        let mut seen = RowAgreement::NotCompared;
        for f in covering {
            let Outcome::Checked {
                disagreements,
                facts,
                ..
            } = &f.outcome
            else {
                continue;
            };
            let inside = disagreements
                .iter()
                .any(|d| d.pc <= pc && pc < d.pc.saturating_add(d.pcs.saturating_mul(step)));
            if inside || facts.is_some() {
                return RowAgreement::Disagrees;
            }
            seen = RowAgreement::Agrees;
        }
        seen
    }
}

/// The signature's shape part for a function's disagreement: the check's shape, `plt-`
/// before it in a PLT section.
pub fn shape_of(f: &FunctionReport, m: &Mismatch) -> Shape {
    Shape {
        plt: f.is_plt(),
        ..m.shape.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pcs_are_counted_at_the_instruction_alignment() {
        assert_eq!(pcs_in(0x10, 0x20, 1), 16);
        assert_eq!(pcs_in(0x10, 0x20, 4), 4);
        assert_eq!(pcs_in(0x11, 0x20, 4), 3);
        assert_eq!(pcs_in(0x20, 0x20, 4), 0);
        assert_eq!(pcs_in(0x10, 0x13, 2), 2);
    }

    #[test]
    fn garbage_is_a_typed_error() {
        assert_eq!(crosscheck(b"not elf").unwrap_err(), FileError::NotElf);
        assert!(matches!(
            crosscheck(b"\x7fELF\x02\x01").unwrap_err(),
            FileError::BadElf(_)
        ));
    }
}
