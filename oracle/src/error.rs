//! Why a file cannot be checked. Callers match on the variant, never on the text.

use sframe_spec::{Abi, Violation};
use std::fmt;

/// A file the oracle cannot run.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum OracleError {
    /// Not an ELF file (a raw section has no code to run).
    NotElf,
    /// `sframe-elf` could not give the section: unreadable ELF, a machine SFrame does not
    /// describe, no `.sframe`, or an unsupported relocation against it.
    Load(sframe_elf::LoadError),
    /// The section's header is malformed.
    Section(Violation),
    /// The section's ABI is not the ELF machine's.
    AbiMismatch { section: Abi, machine: Abi },
    /// The emulator or disassembler could not be set up.
    Emulator(String),
}

impl fmt::Display for OracleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OracleError::NotElf => f.write_str("not an ELF file (the oracle needs code to run)"),
            OracleError::Load(e) => e.fmt(f),
            OracleError::Section(v) => write!(f, "malformed .sframe: {v}"),
            OracleError::AbiMismatch { section, machine } => {
                write!(
                    f,
                    ".sframe is for {section} but the ELF machine is {machine}"
                )
            }
            OracleError::Emulator(e) => write!(f, "emulator: {e}"),
        }
    }
}

impl std::error::Error for OracleError {}
