//! Getting SFrame sections out of files.
//!
//! A file is either an ELF file (x86-64, AArch64 either byte order, s390x) holding a
//! `.sframe` section, or a raw SFrame section (recognised by its magic). In relocatable
//! objects the section's relocations are applied after giving every allocated section a
//! synthetic address, laid out the way a linker would (section order, aligned, from
//! [`REL_BASE`]); the same layout is offered to the oracle so that code and section agree.

#![forbid(unsafe_code)]

use goblin::elf::{header, section_header, Elf};
use sframe_spec::{Endian, Version};
use std::fmt;

/// Address at which the synthetic layout of a relocatable object starts.
pub const REL_BASE: u64 = 0x1_0000;

/// The machine an ELF file is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Machine {
    X86_64,
    Aarch64,
    S390x,
}

impl Machine {
    pub fn name(self) -> &'static str {
        match self {
            Machine::X86_64 => "x86-64",
            Machine::Aarch64 => "aarch64",
            Machine::S390x => "s390x",
        }
    }
}

/// The ELF file type, as far as this crate cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Relocatable,
    Executable,
    SharedObject,
}

/// An SFrame section and where it came from.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The section's bytes (relocated, for relocatable objects).
    pub bytes: Vec<u8>,
    /// Address of the section's first byte (synthetic for relocatable objects; 0 for raw).
    pub vaddr: u64,
    /// `None` for a raw section.
    pub elf: Option<ElfInfo>,
}

/// Facts about the ELF file a section came from.
#[derive(Debug, Clone)]
pub struct ElfInfo {
    pub machine: Machine,
    pub endian: Endian,
    pub kind: FileKind,
    /// Offset of the section in the file.
    pub file_offset: u64,
    /// Number of relocations applied to the section (relocatable objects).
    pub relocations_applied: usize,
    /// PC-relative relocations of a v1/v2 section without `SFRAME_F_FDE_FUNC_START_PCREL`
    /// were resolved against the section's start instead of the field: see [`load`].
    pub start_fields_rebased: bool,
}

/// Why a file could not give an SFrame section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadError {
    /// Neither ELF nor an SFrame section.
    NotSframe,
    /// ELF, but unreadable.
    BadElf(String),
    /// ELF for a machine SFrame does not describe.
    UnsupportedMachine(u16),
    /// ELF without a `.sframe` section.
    NoSframeSection,
    /// ELF whose `.sframe` section has 0 bytes (what GNU ld's `--discard-sframe` leaves):
    /// no SFrame data, as without the section (discrepancy D-EMPTY-SFRAME-SECTION).
    EmptySection,
    /// A relocation against `.sframe` of a type this crate does not apply.
    UnsupportedRelocation { r_type: u32, offset: u64 },
    /// A relocation or section outside the file.
    OutOfBounds(&'static str),
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::NotSframe => {
                f.write_str("not an ELF file and not an SFrame section (no 0xdee2 magic)")
            }
            LoadError::BadElf(e) => write!(f, "malformed ELF file: {e}"),
            LoadError::UnsupportedMachine(m) => write!(
                f,
                "ELF machine {m} has no SFrame ABI (x86-64, AArch64, s390x only)"
            ),
            LoadError::NoSframeSection => f.write_str("ELF file has no .sframe section"),
            LoadError::EmptySection => {
                f.write_str("ELF file's .sframe section is empty (0 bytes): no SFrame data")
            }
            LoadError::UnsupportedRelocation { r_type, offset } => {
                write!(
                    f,
                    "cannot apply relocation type {r_type} at .sframe offset {offset:#x}"
                )
            }
            LoadError::OutOfBounds(what) => write!(f, "{what} lies outside the file"),
        }
    }
}
impl std::error::Error for LoadError {}

/// Load the SFrame section of `file`: an ELF file or a raw section.
///
/// In relocatable objects, GNU as (2.40, 2.44) emits the function start fields of v1 and v2
/// sections as PC-relative relocations, i.e. relative to the field itself, while the section
/// carries no `SFRAME_F_FDE_FUNC_START_PCREL` flag and GNU ld writes linked sections with
/// offsets from the section's start (as the v3 manual's v2 Errata 1 describes an unset flag).
/// So that a relocatable object reads as it will once linked, PC-relative relocations in such
/// sections are resolved against the start of `.sframe` (`P` = section address), and
/// [`ElfInfo::start_fields_rebased`] says so. Sections with the flag, and v3, are relocated
/// as the relocations say.
pub fn load(file: &[u8]) -> Result<Loaded, LoadError> {
    if file.starts_with(b"\x7fELF") {
        load_elf(file)
    } else if Endian::from_magic(file).is_some() {
        Ok(Loaded {
            bytes: file.to_vec(),
            vaddr: 0,
            elf: None,
        })
    } else {
        Err(LoadError::NotSframe)
    }
}

pub mod probe;
pub mod wrap;

fn machine_of(elf: &Elf<'_>) -> Result<Machine, LoadError> {
    machine_from(elf.header.e_machine)
}

/// The machine of an ELF header's `e_machine`, if SFrame describes it.
pub fn machine_from(e_machine: u16) -> Result<Machine, LoadError> {
    match e_machine {
        header::EM_X86_64 => Ok(Machine::X86_64),
        header::EM_AARCH64 => Ok(Machine::Aarch64),
        header::EM_S390 => Ok(Machine::S390x),
        m => Err(LoadError::UnsupportedMachine(m)),
    }
}

/// Parse an ELF file (a thin wrapper giving this crate's error type).
pub fn parse_elf(file: &[u8]) -> Result<Elf<'_>, LoadError> {
    Elf::parse(file).map_err(|e| LoadError::BadElf(e.to_string()))
}

/// Addresses of every section: `sh_addr` in linked files; in relocatable objects a
/// synthetic layout of the allocated sections, in order, aligned, from [`REL_BASE`].
pub fn section_addresses(elf: &Elf<'_>) -> Vec<u64> {
    if elf.header.e_type != header::ET_REL {
        return elf.section_headers.iter().map(|s| s.sh_addr).collect();
    }
    let mut next = REL_BASE;
    elf.section_headers
        .iter()
        .map(|s| {
            if s.sh_flags & u64::from(section_header::SHF_ALLOC) == 0 || s.sh_size == 0 {
                return 0;
            }
            let align = s.sh_addralign.max(1);
            let addr = next.div_ceil(align).saturating_mul(align);
            next = addr.saturating_add(s.sh_size);
            addr
        })
        .collect()
}

fn load_elf(file: &[u8]) -> Result<Loaded, LoadError> {
    let elf = parse_elf(file)?;
    let machine = machine_of(&elf)?;
    let endian = if elf.little_endian {
        Endian::Little
    } else {
        Endian::Big
    };
    let kind = match elf.header.e_type {
        header::ET_REL => FileKind::Relocatable,
        header::ET_DYN => FileKind::SharedObject,
        _ => FileKind::Executable,
    };
    let (idx, sh) = elf
        .section_headers
        .iter()
        .enumerate()
        .find(|(_, s)| elf.shdr_strtab.get_at(s.sh_name) == Some(".sframe"))
        .ok_or(LoadError::NoSframeSection)?;
    if sh.sh_size == 0 {
        return Err(LoadError::EmptySection);
    }
    let start = usize::try_from(sh.sh_offset).map_err(|_| LoadError::OutOfBounds(".sframe"))?;
    let len = usize::try_from(sh.sh_size).map_err(|_| LoadError::OutOfBounds(".sframe"))?;
    let mut bytes = file
        .get(
            start
                ..start
                    .checked_add(len)
                    .ok_or(LoadError::OutOfBounds(".sframe"))?,
        )
        .ok_or(LoadError::OutOfBounds(".sframe"))?
        .to_vec();
    let addrs = section_addresses(&elf);
    let vaddr = addrs.get(idx).copied().unwrap_or(0);
    let mut applied = 0;
    let sframe_header = sframe_spec::layout::RawHeader::of(&bytes);
    let pcrel_flag = sframe_header
        .flags()
        .is_some_and(|f| f & sframe_spec::constants::flags::FDE_FUNC_START_PCREL != 0);
    let version = sframe_header.version();
    let legacy =
        matches!(version, Some(Version::V1 | Version::V2)) && Endian::from_magic(&bytes).is_some();
    let rebase =
        kind == FileKind::Relocatable && legacy && (version == Some(Version::V1) || !pcrel_flag);
    if kind == FileKind::Relocatable {
        for (_, relocs) in elf.shdr_relocs.iter().filter(|(ri, _)| {
            elf.section_headers
                .get(*ri)
                .is_some_and(|r| r.sh_info as usize == idx)
        }) {
            for r in relocs.iter() {
                // The null relocation does nothing (psABIs: field "none"); `ld -r` leaves
                // them in `.rela.sframe` (binutils PR ld/33401).
                if reloc_kind(machine, r.r_type) == Some(RelocKind::None) {
                    continue;
                }
                let sym = elf
                    .syms
                    .get(r.r_sym)
                    .ok_or(LoadError::OutOfBounds("relocation symbol"))?;
                let sec_addr = addrs.get(sym.st_shndx).copied().unwrap_or(0);
                let s = sec_addr.wrapping_add(sym.st_value);
                let a = r.r_addend.unwrap_or(0) as u64;
                let p = if rebase {
                    vaddr
                } else {
                    vaddr.wrapping_add(r.r_offset)
                };
                let (value, width) = reloc_value(machine, r.r_type, s, a, p).ok_or(
                    LoadError::UnsupportedRelocation {
                        r_type: r.r_type,
                        offset: r.r_offset,
                    },
                )?;
                let off = usize::try_from(r.r_offset)
                    .map_err(|_| LoadError::OutOfBounds("relocation"))?;
                if !endian.write_at(&mut bytes, off, value, width) {
                    return Err(LoadError::OutOfBounds("relocation"));
                }
                applied += 1;
            }
        }
    }
    Ok(Loaded {
        bytes,
        vaddr,
        elf: Some(ElfInfo {
            machine,
            endian,
            kind,
            file_offset: sh.sh_offset,
            relocations_applied: applied,
            start_fields_rebased: rebase && applied > 0,
        }),
    })
}

/// s390x relocation types (`elf.h`; goblin names none).
pub mod r390 {
    pub const R_390_NONE: u32 = 0;
    pub const R_390_32: u32 = 4;
    pub const R_390_PC32: u32 = 5;
    pub const R_390_64: u32 = 22;
    pub const R_390_PC64: u32 = 23;
}

/// The AArch64 null relocation code of the ELF64 ABI's first releases, withdrawn: "Treat as
/// R_<CLS>_NONE" (AArch64 ELF ABI, aaelf64, §5.7.4, table "Null relocation codes").
pub const R_AARCH64_NONE_WITHDRAWN: u32 = 256;

/// What a data relocation writes at its place `P`, after the psABI tables: x86-64 psABI
/// "Relocation Types" (`R_X86_64_NONE` 0 none; `_64` 1 word64 S + A; `_PC32` 2 word32
/// S + A - P; `_32`/`_32S` 10/11 word32 S + A; `_PC64` 24 word64 S + A - P), AArch64 ELF ABI
/// §5.7.4-5 (`R_AARCH64_NONE` 0 and the withdrawn 256, None; `ABS64`/`ABS32` 257/258 S + A;
/// `PREL64`/`PREL32` 260/261 S + A - P), s390x ELF ABI Supplement, table "Relocation types"
/// (`R_390_NONE` 0 none; `_32` 4 word32 S + A; `_PC32` 5 word32 S + A - P; `_64` 22 quad64
/// S + A; `_PC64` 23 quad64 S + A - P). Fields are written in the object's byte order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RelocKind {
    /// The null relocation: nothing is computed or written.
    None,
    /// `S + A`, `width` bytes.
    Absolute { width: usize },
    /// `S + A - P`, `width` bytes.
    PcRelative { width: usize },
}

/// The data relocations of `machine` this crate applies: those GNU as (2.40, 2.44, 2.47) and
/// LLVM (23) emit against `.sframe` (x86-64 `PC32`, `PC64`; AArch64 `PREL32`, `PREL64`;
/// s390x `PC64`), the null relocation GNU ld 2.47 leaves there in `ld -r` output, and the
/// absolute and PC-relative data relocations compilers emit in data (the emulator's loader
/// applies them through this one table too). `None` for any other type.
pub fn reloc_kind(machine: Machine, r_type: u32) -> Option<RelocKind> {
    use goblin::elf::reloc::*;
    use r390::*;
    use RelocKind::{Absolute, PcRelative};
    Some(match (machine, r_type) {
        (Machine::X86_64, R_X86_64_NONE) => RelocKind::None,
        (Machine::X86_64, R_X86_64_64) => Absolute { width: 8 },
        (Machine::X86_64, R_X86_64_PC32) => PcRelative { width: 4 },
        (Machine::X86_64, R_X86_64_32 | R_X86_64_32S) => Absolute { width: 4 },
        (Machine::X86_64, R_X86_64_PC64) => PcRelative { width: 8 },
        (Machine::Aarch64, R_AARCH64_NONE | R_AARCH64_NONE_WITHDRAWN) => RelocKind::None,
        (Machine::Aarch64, R_AARCH64_ABS64) => Absolute { width: 8 },
        (Machine::Aarch64, R_AARCH64_ABS32) => Absolute { width: 4 },
        (Machine::Aarch64, R_AARCH64_PREL64) => PcRelative { width: 8 },
        (Machine::Aarch64, R_AARCH64_PREL32) => PcRelative { width: 4 },
        (Machine::S390x, R_390_NONE) => RelocKind::None,
        (Machine::S390x, R_390_32) => Absolute { width: 4 },
        (Machine::S390x, R_390_PC32) => PcRelative { width: 4 },
        (Machine::S390x, R_390_64) => Absolute { width: 8 },
        (Machine::S390x, R_390_PC64) => PcRelative { width: 8 },
        _ => return None,
    })
}

/// Value and width of a relocation of [`reloc_kind`]: absolute `S + A` or PC-relative
/// `S + A - P`, 4 or 8 bytes; width 0 (nothing to write) for the null relocation. `None` for
/// a type this crate does not apply.
pub fn reloc_value(machine: Machine, r_type: u32, s: u64, a: u64, p: u64) -> Option<(u64, usize)> {
    let abs = s.wrapping_add(a);
    Some(match reloc_kind(machine, r_type)? {
        RelocKind::None => (0, 0),
        RelocKind::Absolute { width } => (abs, width),
        RelocKind::PcRelative { width } => (abs.wrapping_sub(p), width),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_sections_and_garbage() {
        assert!(matches!(
            load(&[0xe2, 0xde, 2, 0]),
            Ok(Loaded {
                vaddr: 0,
                elf: None,
                ..
            })
        ));
        assert_eq!(load(b"hello").unwrap_err(), LoadError::NotSframe);
        assert!(matches!(
            load(b"\x7fELF\x02\x01"),
            Err(LoadError::BadElf(_))
        ));
    }

    #[test]
    fn pc_relative_relocations_subtract_the_place() {
        // ELF psABIs: PC32 = S + A - P.
        assert_eq!(
            reloc_value(Machine::X86_64, 2, 0x1000, 4, 0x2000),
            Some((0x1004u64.wrapping_sub(0x2000), 4))
        );
        assert_eq!(reloc_value(Machine::S390x, 23, 0x10, 0, 0x8), Some((8, 8)));
        assert_eq!(reloc_value(Machine::Aarch64, 999, 0, 0, 0), None);
    }

    #[test]
    fn null_relocations_write_nothing_on_every_abi() {
        // x86-64 psABI: R_X86_64_NONE 0, field none; s390x ABI: R_390_NONE 0, field none;
        // aaelf64 "Null relocation codes": 0 R_AARCH64_NONE, 256 withdrawn "Treat as
        // R_<CLS>_NONE".
        for (m, t) in [
            (Machine::X86_64, 0),
            (Machine::Aarch64, 0),
            (Machine::Aarch64, 256),
            (Machine::S390x, 0),
        ] {
            assert_eq!(reloc_kind(m, t), Some(RelocKind::None), "{m:?} {t}");
            assert_eq!(reloc_value(m, t, 0x1234, 8, 0x10), Some((0, 0)));
        }
        // 256 is not a null code on the other ABIs.
        assert_eq!(reloc_kind(Machine::X86_64, 256), None);
    }

    #[test]
    fn absolute_relocations_no_assembler_emits_in_sframe() {
        // Hand-checked against the psABI tables (see RelocKind): S + A in the field width.
        // x86-64: R_X86_64_64 1 word64, R_X86_64_32 10 / _32S 11 word32; AArch64: ABS64 257,
        // ABS32 258; s390x: R_390_64 22 quad64, R_390_32 4 word32, R_390_PC32 5 S + A - P.
        let (s, a, p) = (0x1000u64, 0x20u64, 0x3000u64);
        for (m, t, w) in [
            (Machine::X86_64, 1, 8),
            (Machine::X86_64, 10, 4),
            (Machine::X86_64, 11, 4),
            (Machine::Aarch64, 257, 8),
            (Machine::Aarch64, 258, 4),
            (Machine::S390x, 22, 8),
            (Machine::S390x, 4, 4),
        ] {
            assert_eq!(reloc_value(m, t, s, a, p), Some((0x1020, w)), "{m:?} {t}");
        }
        assert_eq!(
            reloc_value(Machine::S390x, 5, s, a, p),
            Some((0x1020u64.wrapping_sub(0x3000), 4))
        );
    }
}
