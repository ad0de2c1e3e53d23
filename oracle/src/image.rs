//! Loader: the memory image of an ELF file as the emulator runs it, and its functions.
//!
//! - Linked executables and shared objects: every `PT_LOAD` segment at its virtual address
//!   (shared objects and PIEs at bias 0), with `R_*_RELATIVE` dynamic relocations applied
//!   so that pointers in `.data`/`.got` hold link-time addresses.
//! - Relocatable objects: every allocated section at the synthetic address
//!   [`sframe_elf::section_addresses`] gives it (the layout under which `sframe-elf` relocates
//!   `.sframe`), then the relocations of every allocated section are applied, code included.
//!   Undefined symbols resolve to 256-byte zero-filled slots of an *extern* region when used
//!   as data, and to 16-byte stubs (filled with return instructions) when called, so calls
//!   leave the file; GOT-relative relocations get a synthetic GOT.
//!   TLS relocations are left unapplied and counted.
//!
//! Functions are every FDE of `.sframe` and every `STT_FUNC` symbol that no FDE covers, so
//! functions without an FDE are reported too. FDEs in `.plt*` sections are marked as PLT.

use crate::arch::{self, Cpu};
use crate::error::OracleError;
use goblin::elf::{program_header, section_header, sym, Elf};
use sframe_elf::{FileKind, Machine};
use sframe_spec::{Abi, Endian, SectionRef, Version};
use std::collections::{BTreeMap, HashMap};

/// Size of one extern data slot.
pub const EXTERN_SLOT: u64 = 0x100;
/// Size of one extern call stub.
pub const STUB_SIZE: u64 = 0x10;
/// Page size used for mapping.
pub const PAGE: u64 = 0x1000;

/// A piece of the memory image.
#[derive(Debug, Clone)]
pub struct Segment {
    pub name: String,
    pub addr: u64,
    /// Contents, `memsz` long (zero-filled past the file's bytes).
    pub bytes: Vec<u8>,
    /// Written by the program: restored before every run.
    pub writable: bool,
    pub exec: bool,
}

impl Segment {
    pub fn end(&self) -> u64 {
        self.addr + self.bytes.len() as u64
    }
    fn contains(&self, addr: u64, len: u64) -> bool {
        addr >= self.addr && addr.saturating_add(len) <= self.end()
    }
}

/// What kind of code a function is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FunctionKind {
    /// Ordinary code: calls to it are followed.
    Code,
    /// A procedure linkage table: its entries are run as functions under test (PLT0 is
    /// reached from them), calls to it are never followed.
    Plt,
    /// A signal return trampoline (it starts by invoking `rt_sigreturn`): entered by the
    /// kernel, not by a call, so the oracle has no truth for it; not run.
    SignalTrampoline,
}

/// Why no run starts at a function: execution never arrives there by a call, so the oracle
/// has no entry state to take as the truth. Such a function's rows are still checked when
/// runs of other functions reach it (a `.cold` part from its parent, PLT0 from an entry).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SkipReason {
    /// A GCC `.cold` part (`foo.cold`, `foo.part.0.cold`): only jumped into from its parent
    /// function, never called. (`.part.N`, `.isra.N`, `.constprop.N` clones are called.)
    ColdPart,
    /// The first FDE of a PLT section (PLT0), reached by a jump from a lazy entry.
    PltHeader,
    /// A signal return trampoline (its FDE has SFrame v3's signal flag, or its code invokes
    /// `rt_sigreturn` at once): entered by the kernel.
    SignalTrampoline,
    /// The FDE's range does not lie in executable memory.
    NotCode,
    /// The function starts where no instruction of the ABI can (AArch64: not a multiple of
    /// 4; s390x: odd): a call there faults, so no execution arrives (binutils' tests give
    /// FDEs to single data bytes).
    MisalignedStart,
}

impl SkipReason {
    /// Stable name, used in reports.
    pub fn name(self) -> &'static str {
        match self {
            SkipReason::ColdPart => "cold-part",
            SkipReason::PltHeader => "plt-header",
            SkipReason::SignalTrampoline => "signal-trampoline",
            SkipReason::NotCode => "not-code",
            SkipReason::MisalignedStart => "misaligned-start",
        }
    }
}

impl std::fmt::Display for SkipReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Whether `name` is a GCC `.cold` part (`foo.cold`, `foo.cold.3`, `foo.part.0.cold`).
pub fn is_cold_part(name: &str) -> bool {
    name.split('.').skip(1).any(|c| c == "cold")
}

/// The function whose frame a part of `name` runs in: `foo` for `foo.cold` (and itself for
/// any other name). A jump between two functions of one family stays in the same frame.
pub fn frame_family(name: &str) -> &str {
    match name.find(".cold") {
        Some(i) if is_cold_part(name) => &name[..i],
        _ => name,
    }
}

/// A function of the file (as a report lists it: without its entries).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Function {
    pub name: String,
    pub start: u64,
    pub end: u64,
    /// Index of its FDE in `.sframe`.
    pub fde: Option<usize>,
    pub kind: FunctionKind,
    /// The FDE's range does not lie in executable memory: it cannot be run.
    pub outside_code: bool,
    /// It starts at an address no instruction of the ABI can start at.
    #[serde(skip)]
    pub misaligned_start: bool,
    /// Where runs start: the function's start; for a PLT each entry (none for PLT0).
    #[serde(skip)]
    pub entries: Vec<u64>,
}

impl Function {
    /// Why no run starts here, if none does.
    pub fn skip_reason(&self) -> Option<SkipReason> {
        if self.outside_code {
            Some(SkipReason::NotCode)
        } else if self.kind == FunctionKind::SignalTrampoline {
            Some(SkipReason::SignalTrampoline)
        } else if self.misaligned_start {
            Some(SkipReason::MisalignedStart)
        } else if self.kind == FunctionKind::Plt && self.entries.is_empty() {
            Some(SkipReason::PltHeader)
        } else if self.kind == FunctionKind::Code && is_cold_part(&self.name) {
            Some(SkipReason::ColdPart)
        } else {
            None
        }
    }

    /// Whether its rows are checked (it is code the oracle knows the truth for).
    pub fn checkable(&self) -> bool {
        !self.outside_code && self.kind != FunctionKind::SignalTrampoline
    }
}

/// An undefined symbol, the extern slot it resolves to as data and the stub calls reach.
#[derive(Debug, Clone)]
pub struct Extern {
    pub name: String,
    pub addr: u64,
    pub stub: u64,
}

/// The loaded file.
#[derive(Debug, Clone)]
pub struct Image {
    pub machine: Machine,
    pub endian: Endian,
    pub kind: FileKind,
    pub abi: Abi,
    pub version: Version,
    pub cpu: &'static dyn Cpu,
    pub segments: Vec<Segment>,
    /// `.sframe`, relocated, and its address.
    pub section: Vec<u8>,
    pub section_vaddr: u64,
    /// Sorted by start address; FDE functions and symbol functions never overlap.
    pub functions: Vec<Function>,
    pub externs: Vec<Extern>,
    /// `[start, end)` of the extern data and stub region (relocatable objects).
    pub extern_region: Option<(u64, u64)>,
    /// Relocation types that were not applied to code or data, with their counts.
    pub unapplied_relocations: BTreeMap<u32, usize>,
    /// The first `.comment` string (compiler identification), if any.
    pub comment: Option<String>,
}

impl std::fmt::Debug for dyn Cpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Cpu({})", self.abi().name())
    }
}

impl Image {
    /// Load `file`.
    pub fn load(file: &[u8]) -> Result<Image, OracleError> {
        if !file.starts_with(b"\x7fELF") {
            return Err(OracleError::NotElf);
        }
        let loaded = sframe_elf::load(file).map_err(OracleError::Load)?;
        let info = loaded.elf.clone().ok_or(OracleError::NotElf)?;
        let elf = sframe_elf::parse_elf(file).map_err(OracleError::Load)?;
        let cpu = arch::for_machine(info.machine, info.endian).ok_or(OracleError::Load(
            sframe_elf::LoadError::UnsupportedMachine(elf.header.e_machine),
        ))?;
        let sref = SectionRef::parse(&loaded.bytes).map_err(OracleError::Section)?;
        if sref.abi() != cpu.abi() {
            return Err(OracleError::AbiMismatch {
                section: sref.abi(),
                machine: cpu.abi(),
            });
        }
        let mut b = Builder::new(&elf, file, info.machine, info.endian, cpu.return_fill());
        let exec_ranges = match info.kind {
            FileKind::Relocatable => b.relocatable()?,
            _ => b.linked()?,
        };
        let mut image = Image {
            machine: info.machine,
            endian: info.endian,
            kind: info.kind,
            abi: sref.abi(),
            version: sref.version(),
            cpu,
            segments: b.segments,
            section: loaded.bytes.clone(),
            section_vaddr: loaded.vaddr,
            functions: Vec::new(),
            externs: b.externs,
            extern_region: b.extern_region,
            unapplied_relocations: b.unapplied,
            comment: comment(&elf, file),
        };
        image.functions = functions(&elf, &sref, loaded.vaddr, &exec_ranges, &b.addrs, info.kind);
        for i in 0..image.functions.len() {
            let f = &image.functions[i];
            let head = image
                .read(f.start, 16.min(f.end.saturating_sub(f.start)))
                .unwrap_or(&[]);
            let signal_flag = f
                .fde
                .and_then(|i| sref.fde(i).ok())
                .is_some_and(|d| d.signal(sref.version()));
            if f.kind == FunctionKind::Code && (signal_flag || cpu.is_sigreturn(head)) {
                image.functions[i].kind = FunctionKind::SignalTrampoline;
                image.functions[i].entries.clear();
            } else if f.kind == FunctionKind::Code && f.start % cpu.insn_granule() != 0 {
                image.functions[i].misaligned_start = true;
                image.functions[i].entries.clear();
            }
        }
        Ok(image)
    }

    /// `len` bytes of the image at `addr`, if one segment holds them.
    pub fn read(&self, addr: u64, len: u64) -> Option<&[u8]> {
        let s = self.segments.iter().find(|s| s.contains(addr, len))?;
        let off = (addr - s.addr) as usize;
        s.bytes.get(off..off + len as usize)
    }

    /// Up to `max` bytes of the image from `addr` (fewer at the end of a segment).
    pub fn read_upto(&self, addr: u64, max: u64) -> &[u8] {
        match self.segments.iter().find(|s| s.contains(addr, 1)) {
            Some(s) => {
                let off = (addr - s.addr) as usize;
                let end = (off + max as usize).min(s.bytes.len());
                &s.bytes[off..end]
            }
            None => &[],
        }
    }

    /// Index of the function containing `pc`.
    pub fn function_at(&self, pc: u64) -> Option<usize> {
        let i = self
            .functions
            .partition_point(|f| f.start <= pc)
            .checked_sub(1)?;
        (pc < self.functions[i].end).then_some(i)
    }
}

fn comment(elf: &Elf<'_>, file: &[u8]) -> Option<String> {
    let sh = elf
        .section_headers
        .iter()
        .find(|s| elf.shdr_strtab.get_at(s.sh_name) == Some(".comment"))?;
    let bytes = file.get(sh.sh_offset as usize..(sh.sh_offset + sh.sh_size) as usize)?;
    let first = bytes.split(|&b| b == 0).find(|s| !s.is_empty())?;
    Some(String::from_utf8_lossy(first).into_owned())
}

struct Builder<'a> {
    elf: &'a Elf<'a>,
    file: &'a [u8],
    machine: Machine,
    endian: Endian,
    segments: Vec<Segment>,
    addrs: Vec<u64>,
    externs: Vec<Extern>,
    extern_of: HashMap<usize, usize>,
    return_fill: &'static [u8],
    got_of: HashMap<usize, u64>,
    got: Vec<u64>,
    got_base: u64,
    extern_base: u64,
    extern_region: Option<(u64, u64)>,
    unapplied: BTreeMap<u32, usize>,
}

/// What a relocation needs resolved.
struct RelocCtx {
    s: u64,
    a: u64,
    p: u64,
    /// Address of the symbol's GOT slot.
    g: u64,
    got: u64,
}

impl<'a> Builder<'a> {
    fn new(
        elf: &'a Elf<'a>,
        file: &'a [u8],
        machine: Machine,
        endian: Endian,
        return_fill: &'static [u8],
    ) -> Builder<'a> {
        Builder {
            elf,
            file,
            machine,
            endian,
            return_fill,
            segments: Vec::new(),
            addrs: Vec::new(),
            externs: Vec::new(),
            extern_of: HashMap::new(),
            got_of: HashMap::new(),
            got: Vec::new(),
            got_base: 0,
            extern_base: 0,
            extern_region: None,
            unapplied: BTreeMap::new(),
        }
    }

    fn section_bytes(&self, sh: &section_header::SectionHeader) -> Result<Vec<u8>, OracleError> {
        if sh.sh_type == section_header::SHT_NOBITS {
            return Ok(vec![0; sh.sh_size as usize]);
        }
        let start = sh.sh_offset as usize;
        self.file
            .get(start..start.saturating_add(sh.sh_size as usize))
            .map(<[u8]>::to_vec)
            .ok_or(OracleError::Load(sframe_elf::LoadError::OutOfBounds(
                "section",
            )))
    }

    /// Relocatable object: sections at synthetic addresses, relocations applied. Returns the
    /// executable ranges.
    fn relocatable(&mut self) -> Result<Vec<(u64, u64)>, OracleError> {
        let elf = self.elf;
        self.addrs = sframe_elf::section_addresses(elf);
        let mut seg_of = HashMap::new();
        let mut exec = Vec::new();
        let mut end = sframe_elf::REL_BASE;
        for (i, sh) in elf.section_headers.iter().enumerate() {
            if sh.sh_flags & u64::from(section_header::SHF_ALLOC) == 0 || sh.sh_size == 0 {
                continue;
            }
            let addr = self.addrs[i];
            let is_exec = sh.sh_flags & u64::from(section_header::SHF_EXECINSTR) != 0;
            seg_of.insert(i, self.segments.len());
            self.segments.push(Segment {
                name: elf.shdr_strtab.get_at(sh.sh_name).unwrap_or("").to_string(),
                addr,
                bytes: self.section_bytes(sh)?,
                writable: sh.sh_flags & u64::from(section_header::SHF_WRITE) != 0,
                exec: is_exec,
            });
            if is_exec {
                exec.push((addr, addr + sh.sh_size));
            }
            end = end.max(addr + sh.sh_size);
        }
        self.got_base = end.div_ceil(0x1_0000) * 0x1_0000 + 0x1_0000;
        self.extern_base = self.got_base + 0x10_0000;
        for (ri, relocs) in elf.shdr_relocs.iter() {
            let Some(rsh) = elf.section_headers.get(*ri) else {
                continue;
            };
            let target = rsh.sh_info as usize;
            let Some(&si) = seg_of.get(&target) else {
                continue;
            };
            let name = self.segments[si].name.clone();
            if name == ".sframe" || name == ".eh_frame" {
                continue;
            }
            for r in relocs.iter() {
                let s = self.symbol_value(r.r_sym, is_call(self.machine, r.r_type));
                let g = self.got_slot(r.r_sym, s);
                let ctx = RelocCtx {
                    s,
                    a: r.r_addend.unwrap_or(0) as u64,
                    p: self.segments[si].addr.wrapping_add(r.r_offset),
                    g,
                    got: self.got_base,
                };
                let endian = self.endian;
                let machine = self.machine;
                let bytes = &mut self.segments[si].bytes;
                if !apply(machine, endian, r.r_type, &ctx, bytes, r.r_offset as usize) {
                    *self.unapplied.entry(r.r_type).or_default() += 1;
                }
            }
        }
        if !self.got.is_empty() {
            let mut bytes = Vec::with_capacity(self.got.len() * 8);
            for &v in &self.got {
                bytes.extend_from_slice(&word_bytes(self.endian, v));
            }
            self.segments.push(Segment {
                name: ".got (synthetic)".into(),
                addr: self.got_base,
                bytes,
                writable: false,
                exec: false,
            });
        }
        if !self.externs.is_empty() {
            let n = self.externs.len() as u64;
            self.segments.push(Segment {
                name: "externs (synthetic)".into(),
                addr: self.extern_base,
                bytes: vec![0; (n * EXTERN_SLOT) as usize],
                writable: true,
                exec: false,
            });
            let stubs = self.extern_base + EXTERN_REGION;
            self.segments.push(Segment {
                name: "extern stubs (synthetic)".into(),
                addr: stubs,
                bytes: self
                    .return_fill
                    .iter()
                    .copied()
                    .cycle()
                    .take((n * STUB_SIZE) as usize)
                    .collect(),
                writable: false,
                exec: true,
            });
            self.extern_region = Some((self.extern_base, stubs + n * STUB_SIZE));
        }
        Ok(exec)
    }

    /// The address a symbol resolves to in the synthetic layout (for an undefined symbol,
    /// its stub when `call`, else its data slot).
    fn symbol_value(&mut self, index: usize, call: bool) -> u64 {
        let Some(s) = self.elf.syms.get(index) else {
            return 0;
        };
        match s.st_shndx as u32 {
            section_header::SHN_UNDEF if index == 0 => 0,
            section_header::SHN_UNDEF if s.st_bind() == sym::STB_WEAK => 0,
            section_header::SHN_UNDEF | section_header::SHN_COMMON => {
                let k = match self.extern_of.get(&index) {
                    Some(&k) => k,
                    None => {
                        let k = self.externs.len();
                        let name = self.elf.strtab.get_at(s.st_name).unwrap_or("?").to_string();
                        let addr = self.extern_base + k as u64 * EXTERN_SLOT;
                        let stub = self.extern_base + EXTERN_REGION + k as u64 * STUB_SIZE;
                        self.externs.push(Extern { name, addr, stub });
                        self.extern_of.insert(index, k);
                        k
                    }
                };
                if call {
                    self.externs[k].stub
                } else {
                    self.externs[k].addr
                }
            }
            section_header::SHN_ABS => s.st_value,
            n => self
                .addrs
                .get(n as usize)
                .copied()
                .unwrap_or(0)
                .wrapping_add(s.st_value),
        }
    }

    fn got_slot(&mut self, index: usize, value: u64) -> u64 {
        if let Some(&g) = self.got_of.get(&index) {
            return g;
        }
        let g = self.got_base + 8 * self.got.len() as u64;
        self.got.push(value);
        self.got_of.insert(index, g);
        g
    }

    /// Linked file: `PT_LOAD` segments, `R_*_RELATIVE` applied. Returns the executable ranges.
    fn linked(&mut self) -> Result<Vec<(u64, u64)>, OracleError> {
        let elf = self.elf;
        self.addrs = sframe_elf::section_addresses(elf);
        for ph in elf
            .program_headers
            .iter()
            .filter(|p| p.p_type == program_header::PT_LOAD)
        {
            let start = ph.p_offset as usize;
            let mut bytes = self
                .file
                .get(start..start.saturating_add(ph.p_filesz as usize))
                .ok_or(OracleError::Load(sframe_elf::LoadError::OutOfBounds(
                    "segment",
                )))?
                .to_vec();
            bytes.resize(ph.p_memsz.max(ph.p_filesz) as usize, 0);
            self.segments.push(Segment {
                name: format!("PT_LOAD@{:#x}", ph.p_vaddr),
                addr: ph.p_vaddr,
                bytes,
                writable: ph.p_flags & program_header::PF_W != 0,
                exec: ph.p_flags & program_header::PF_X != 0,
            });
        }
        let relative = match self.machine {
            Machine::X86_64 => 8,
            Machine::Aarch64 => 1027,
            Machine::S390x => 12,
        };
        for r in elf.dynrelas.iter() {
            if r.r_type != relative {
                continue;
            }
            let v = word_bytes(self.endian, r.r_addend.unwrap_or(0) as u64);
            if let Some(s) = self.segments.iter_mut().find(|s| s.contains(r.r_offset, 8)) {
                let off = (r.r_offset - s.addr) as usize;
                s.bytes[off..off + 8].copy_from_slice(&v);
            }
        }
        let mut exec: Vec<(u64, u64)> = elf
            .section_headers
            .iter()
            .filter(|s| s.sh_flags & u64::from(section_header::SHF_EXECINSTR) != 0 && s.sh_size > 0)
            .map(|s| (s.sh_addr, s.sh_addr + s.sh_size))
            .collect();
        if exec.is_empty() {
            exec = self
                .segments
                .iter()
                .filter(|s| s.exec)
                .map(|s| (s.addr, s.end()))
                .collect();
        }
        Ok(exec)
    }
}

fn word_bytes(e: Endian, v: u64) -> [u8; 8] {
    match e {
        Endian::Little => v.to_le_bytes(),
        Endian::Big => v.to_be_bytes(),
    }
}

fn write(e: Endian, bytes: &mut [u8], off: usize, v: u64, width: usize) -> bool {
    let Some(dst) = bytes.get_mut(off..off + width) else {
        return false;
    };
    let full = word_bytes(e, v);
    match e {
        Endian::Little => dst.copy_from_slice(&full[..width]),
        Endian::Big => dst.copy_from_slice(&full[8 - width..]),
    }
    true
}

/// Patch an AArch64 instruction (always little-endian): `value` into `mask` at `shift`.
fn patch_a64(bytes: &mut [u8], off: usize, value: u64, shift: u32, bits: u32) -> bool {
    let Some(dst) = bytes.get_mut(off..off + 4) else {
        return false;
    };
    let mut insn = u32::from_le_bytes([dst[0], dst[1], dst[2], dst[3]]);
    let mask = ((1u64 << bits) - 1) as u32;
    insn = (insn & !(mask << shift)) | (((value as u32) & mask) << shift);
    dst.copy_from_slice(&insn.to_le_bytes());
    true
}

/// ADR/ADRP immediate: immlo in bits 29-30, immhi in bits 5-23.
fn patch_adr(bytes: &mut [u8], off: usize, value: u64) -> bool {
    patch_a64(bytes, off, value & 3, 29, 2) && patch_a64(bytes, off, value >> 2, 5, 19)
}

/// Size reserved for extern data slots before the stubs.
const EXTERN_REGION: u64 = 0x10_0000;

/// Whether a relocation is a call's or a branch's (it then resolves to a stub).
fn is_call(machine: Machine, r_type: u32) -> bool {
    matches!(
        (machine, r_type),
        (Machine::X86_64, 4) // R_X86_64_PLT32
            | (Machine::Aarch64, 282 | 283) // JUMP26, CALL26
            | (Machine::S390x, 18 | 20) // PLT16DBL, PLT32DBL
    )
}

fn page(v: u64) -> u64 {
    v & !0xfff
}

/// Apply one relocation of the kinds compilers emit in code and data; `false` when the type
/// is not handled (TLS, exotic).
fn apply(
    machine: Machine,
    e: Endian,
    r_type: u32,
    c: &RelocCtx,
    bytes: &mut [u8],
    off: usize,
) -> bool {
    // The data relocations, as the section loader applies them.
    if let Some((v, width)) = sframe_elf::reloc_value(machine, r_type, c.s, c.a, c.p) {
        return write(e, bytes, off, v, width);
    }
    let abs = c.s.wrapping_add(c.a);
    let rel = abs.wrapping_sub(c.p);
    let got_rel = c.g.wrapping_add(c.a).wrapping_sub(c.p);
    match (machine, r_type) {
        (Machine::X86_64, 4) => write(e, bytes, off, rel, 4), // PLT32
        (Machine::X86_64, 9 | 41 | 42) => write(e, bytes, off, got_rel, 4), // GOTPCREL(X), REX_GOTPCRELX
        (Machine::X86_64, 25) => write(e, bytes, off, abs.wrapping_sub(c.got), 8), // GOTOFF64
        (Machine::X86_64, 26) => write(e, bytes, off, c.got.wrapping_add(c.a).wrapping_sub(c.p), 4), // GOTPC32
        (Machine::Aarch64, 263..=270) => {
            // MOVW_UABS_G0.._G3: 16 bits of S + A, group (r_type - 263) / 2.
            let group = (r_type - 263) / 2;
            patch_a64(bytes, off, abs >> (16 * group), 5, 16)
        }
        (Machine::Aarch64, 273 | 280) => patch_a64(bytes, off, rel >> 2, 5, 19), // LD_PREL_LO19, CONDBR19
        (Machine::Aarch64, 274) => patch_adr(bytes, off, rel),                   // ADR_PREL_LO21
        (Machine::Aarch64, 275 | 276) => {
            patch_adr(bytes, off, page(abs).wrapping_sub(page(c.p)) >> 12)
        }
        (Machine::Aarch64, 277 | 278) => patch_a64(bytes, off, abs & 0xfff, 10, 12),
        (Machine::Aarch64, 279) => patch_a64(bytes, off, rel >> 2, 5, 14), // TSTBR14
        (Machine::Aarch64, 282 | 283) => patch_a64(bytes, off, rel >> 2, 0, 26), // JUMP26, CALL26
        (Machine::Aarch64, 284) => patch_a64(bytes, off, (abs & 0xfff) >> 1, 10, 12),
        (Machine::Aarch64, 285) => patch_a64(bytes, off, (abs & 0xfff) >> 2, 10, 12),
        (Machine::Aarch64, 286) => patch_a64(bytes, off, (abs & 0xfff) >> 3, 10, 12),
        (Machine::Aarch64, 299) => patch_a64(bytes, off, (abs & 0xfff) >> 4, 10, 12),
        (Machine::Aarch64, 311) => patch_adr(bytes, off, page(c.g).wrapping_sub(page(c.p)) >> 12), // ADR_GOT_PAGE
        (Machine::Aarch64, 312) => patch_a64(bytes, off, (c.g & 0xfff) >> 3, 10, 12), // LD64_GOT_LO12_NC
        (Machine::S390x, 16) => write(e, bytes, off, rel, 2),
        (Machine::S390x, 17 | 18) => write(e, bytes, off, rel >> 1, 2), // PC16DBL, PLT16DBL
        (Machine::S390x, 19 | 20) => write(e, bytes, off, rel >> 1, 4), // PC32DBL, PLT32DBL
        (Machine::S390x, 21) => write(
            e,
            bytes,
            off,
            c.got.wrapping_add(c.a).wrapping_sub(c.p) >> 1,
            4,
        ), // GOTPCDBL
        (Machine::S390x, 26) => write(e, bytes, off, got_rel >> 1, 4),  // GOTENT
        _ => false,
    }
}

/// Every FDE, then every `STT_FUNC` symbol no FDE covers, sorted by address.
fn functions(
    elf: &Elf<'_>,
    sref: &SectionRef<'_>,
    vaddr: u64,
    exec: &[(u64, u64)],
    addrs: &[u64],
    kind: FileKind,
) -> Vec<Function> {
    let in_exec = |a: u64, b: u64| exec.iter().any(|&(s, e)| a >= s && b <= e && a < e);
    let plt_ranges: Vec<(u64, u64, String, u64)> = elf
        .section_headers
        .iter()
        .filter_map(|s| {
            let n = elf.shdr_strtab.get_at(s.sh_name)?;
            (kind != FileKind::Relocatable && n.starts_with(".plt") && s.sh_size > 0).then(|| {
                (
                    s.sh_addr,
                    s.sh_addr + s.sh_size,
                    n.to_string(),
                    s.sh_entsize,
                )
            })
        })
        .collect();
    let mut fns: Vec<Function> = Vec::new();
    for i in 0..sref.num_fdes() {
        let Some((start, size)) = sref.fde_range(i) else {
            continue;
        };
        let a = vaddr.wrapping_add(start as u64);
        let b = a.wrapping_add(u64::from(size));
        let plt = plt_ranges.iter().find(|(s, e, _, _)| a >= *s && a < *e);
        // A PC-increment FDE at the start of `.plt` is PLT0 even when no lazy entry
        // follows it (with `-z now`-style GOT-only calls, `.plt` is PLT0 alone).
        let plt0_alone = plt.is_some_and(|(s, _, n, _)| {
            a == *s
                && n == ".plt"
                && sref
                    .fde(i)
                    .is_ok_and(|d| d.pc_type() == sframe_spec::PcType::Inc)
        });
        let entries = match plt {
            // PLT0 (the section's first FDE when more PLT code follows) is reached from
            // the entries; the others run from each entry.
            Some((s, e, _, _)) if a == *s && b < *e => Vec::new(),
            Some(_) if plt0_alone => Vec::new(),
            Some((_, _, _, entsize)) => {
                let stride = sref.fde(i).ok().map_or(0, |f| u64::from(f.rep_size));
                let stride = if stride > 0 {
                    stride
                } else if *entsize > 0 {
                    *entsize
                } else {
                    16
                };
                (0..16).map(|k| a + k * stride).filter(|&x| x < b).collect()
            }
            None => vec![a],
        };
        fns.push(Function {
            name: match plt {
                Some((_, _, n, _)) => n.clone(),
                None => String::new(),
            },
            start: a,
            end: b,
            fde: Some(i),
            kind: if plt.is_some() {
                FunctionKind::Plt
            } else {
                FunctionKind::Code
            },
            outside_code: !in_exec(a, b),
            misaligned_start: false,
            entries,
        });
    }
    fns.sort_by_key(|f| (f.start, f.fde));
    // Symbols: name FDE functions, add the rest.
    let mut syms: Vec<(u64, u64, String, bool)> = Vec::new();
    for (table, strtab) in [(&elf.syms, &elf.strtab), (&elf.dynsyms, &elf.dynstrtab)] {
        for s in table.iter() {
            if !(s.st_type() == sym::STT_FUNC || s.st_type() == sym::STT_GNU_IFUNC) {
                continue;
            }
            let shndx = s.st_shndx;
            if shndx == section_header::SHN_UNDEF as usize
                || shndx >= section_header::SHN_LORESERVE as usize
            {
                continue;
            }
            let a = match kind {
                FileKind::Relocatable => addrs
                    .get(shndx)
                    .copied()
                    .unwrap_or(0)
                    .wrapping_add(s.st_value),
                _ => s.st_value,
            };
            let name = strtab.get_at(s.st_name).unwrap_or("").to_string();
            if name.is_empty() {
                continue;
            }
            syms.push((a, s.st_size, name, s.st_bind() != sym::STB_LOCAL));
        }
    }
    // Globals first, then by name, so the chosen name of an address is stable.
    syms.sort_by(|x, y| x.0.cmp(&y.0).then(y.3.cmp(&x.3)).then(x.2.cmp(&y.2)));
    syms.dedup_by_key(|s| s.0);
    let mut extra = Vec::new();
    for (a, size, name, _) in syms {
        if let Some(f) = fns
            .iter_mut()
            .find(|f| f.start == a && f.kind == FunctionKind::Code)
        {
            if f.name.is_empty() {
                f.name = name;
            }
            continue;
        }
        let b = a.wrapping_add(size);
        if size == 0 || !in_exec(a, b) || fns.iter().any(|f| a < f.end && f.start < b) {
            continue;
        }
        extra.push(Function {
            name,
            start: a,
            end: b,
            fde: None,
            kind: FunctionKind::Code,
            outside_code: false,
            misaligned_start: false,
            entries: vec![a],
        });
    }
    fns.extend(extra);
    fns.sort_by_key(|f| (f.start, f.fde));
    // Distinct names: unnamed FDEs by index and address, repeated names (PLT) numbered.
    let mut seen: HashMap<String, usize> = HashMap::new();
    for f in &mut fns {
        if f.name.is_empty() {
            f.name = format!("fde{}@{:#x}", f.fde.unwrap_or_default(), f.start);
        }
        let n = seen.entry(f.name.clone()).or_default();
        *n += 1;
        if *n > 1 {
            f.name = format!("{}#{}", f.name, *n - 1);
        }
    }
    // Overlapping FDEs (a malformed section) keep only the first for PC lookup purposes.
    let mut out: Vec<Function> = Vec::with_capacity(fns.len());
    for f in fns {
        match out.last() {
            Some(p) if f.start < p.end => continue,
            _ => out.push(f),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Symbol `s`, addend `a`, place `p`; no GOT.
    fn reloc(s: u64, a: u64, p: u64) -> RelocCtx {
        RelocCtx {
            s,
            a,
            p,
            g: 0,
            got: 0,
        }
    }

    #[test]
    fn aarch64_branch_and_page_relocations_patch_the_right_bits() {
        // bl #0 at P = 0x1000 to S = 0x2000: imm26 = 0x400.
        let mut b = 0x9400_0000u32.to_le_bytes().to_vec();
        let c = reloc(0x2000, 0, 0x1000);
        assert!(apply(Machine::Aarch64, Endian::Little, 283, &c, &mut b, 0));
        assert_eq!(u32::from_le_bytes(b[..4].try_into().unwrap()), 0x9400_0400);
        // adrp x0, page(0x12345) from P = 0x1000: (0x12000 - 0x1000) >> 12 = 0x11:
        // immlo = 1, immhi = 4.
        let mut b = 0x9000_0000u32.to_le_bytes().to_vec();
        let c = reloc(0x12345, 0, 0x1000);
        assert!(apply(Machine::Aarch64, Endian::Little, 275, &c, &mut b, 0));
        assert_eq!(
            u32::from_le_bytes(b[..4].try_into().unwrap()),
            0x9000_0000 | (1 << 29) | (4 << 5)
        );
    }

    #[test]
    fn s390x_dbl_relocations_are_halfword_scaled_big_endian() {
        let mut b = vec![0xc0, 0xe5, 0, 0, 0, 0];
        let c = reloc(0x3000, 2, 0x1002);
        assert!(apply(Machine::S390x, Endian::Big, 20, &c, &mut b, 2));
        assert_eq!(b, [0xc0, 0xe5, 0, 0, 0x10, 0x00]);
        assert!(!apply(Machine::S390x, Endian::Big, 999, &c, &mut b, 2));
    }
}
