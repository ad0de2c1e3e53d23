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
    pub const R_390_32: u32 = 4;
    pub const R_390_PC32: u32 = 5;
    pub const R_390_64: u32 = 22;
    pub const R_390_PC64: u32 = 23;
}

/// Value and width of a data relocation of the kinds assemblers emit in `.sframe` (and
/// compilers in data): absolute `S + A` or PC-relative `S + A - P`, 4 or 8 bytes. The
/// emulator's loader applies these through this one table too.
pub fn reloc_value(machine: Machine, r_type: u32, s: u64, a: u64, p: u64) -> Option<(u64, usize)> {
    use goblin::elf::reloc::*;
    use r390::*;
    let abs = s.wrapping_add(a);
    let rel = abs.wrapping_sub(p);
    Some(match (machine, r_type) {
        (Machine::X86_64, R_X86_64_64) => (abs, 8),
        (Machine::X86_64, R_X86_64_PC32) => (rel, 4),
        (Machine::X86_64, R_X86_64_32 | R_X86_64_32S) => (abs, 4),
        (Machine::X86_64, R_X86_64_PC64) => (rel, 8),
        (Machine::Aarch64, R_AARCH64_ABS64) => (abs, 8),
        (Machine::Aarch64, R_AARCH64_ABS32) => (abs, 4),
        (Machine::Aarch64, R_AARCH64_PREL64) => (rel, 8),
        (Machine::Aarch64, R_AARCH64_PREL32) => (rel, 4),
        (Machine::S390x, R_390_32) => (abs, 4),
        (Machine::S390x, R_390_PC32) => (rel, 4),
        (Machine::S390x, R_390_64) => (abs, 8),
        (Machine::S390x, R_390_PC64) => (rel, 8),
        _ => return None,
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
}
