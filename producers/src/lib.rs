//! # sframe-producers
//!
//! csmith for SFrame producers: random functions ([`gen`]) with real instructions and
//! well-formed `.cfi_*` directives go through a producer ([`asm`]: `as --gsframe` of each
//! provisioned binutils release, `llvm-mc --gsframe`) for x86-64, AArch64 (both endians)
//! and s390x; the object's SFrame rows, read with the reference reader, are checked per PC
//! against the same object's `.eh_frame` CFI ([`cfi`], [`check`]). Where SFrame cannot say
//! what the CFI says, the producer must leave the function out, and a row it writes anyway
//! is named by why (`@unexpressible-<reason>`). Disagreements get an oracle-class signature
//! `oracle:<producer>:<abi>:cfi-<kind>-<cfi shape>:<kind>` and are minimized
//! ([`minimize`]) to the smallest well-formed `.s` that still gives the same signature.
//! [`pattern`] writes executable prologue/epilogue shapes with true CFI, for the checks that
//! run the code (the emulator lives in `sframe-oracle`, which this crate does not depend on).
//! [`crosscheck`] applies the same per-PC check to any ELF file (linked code and PLT
//! sections included, CFA expressions reduced by [`dwarf_expr`]).

pub mod asm;
pub mod cfi;
pub mod check;
pub mod crosscheck;
pub mod dwarf_expr;
pub mod gen;
pub mod minimize;
pub mod pattern;
pub mod said;

use asm::Producer;
use check::{FdeOutcome, Mismatch};
use gen::{Func, Program};
use sframe_findings::signature::{self, OracleAbi, OracleKind, Signature};
use std::path::Path;

/// The result of one file through one producer.
#[derive(Debug, Clone)]
pub struct FileResult {
    /// The assembler refused the file (its stderr).
    pub assembler_error: Option<String>,
    /// Per CFI FDE, in `.eh_frame` order.
    pub outcomes: Vec<FdeOutcome>,
    /// Something could not be read (the object, `.eh_frame`, `.sframe`).
    pub read_error: Option<String>,
    /// The object the producer wrote.
    pub object: Option<Vec<u8>>,
}

/// The signature of a mismatch.
pub fn signature(producer: &signature::Producer, abi: OracleAbi, m: &Mismatch) -> Signature {
    Signature::oracle(producer, abi, m.shape.to_string(), OracleKind::from(m.kind))
}

/// Check an object's SFrame section against its CFI.
pub fn check_object(obj: &[u8]) -> Result<Vec<FdeOutcome>, String> {
    let elf = goblin::elf::Elf::parse(obj).map_err(|e| e.to_string())?;
    let fdes = cfi::read_eh_frame(obj, &elf)?;
    let loaded = match sframe_elf::load(obj) {
        Ok(l) => l,
        Err(sframe_elf::LoadError::NoSframeSection) => {
            return Ok(fdes
                .iter()
                .map(|_| FdeOutcome::Omitted(Some(check::Unexpressible::NoSframeSection)))
                .collect())
        }
        Err(e) => return Err(e.to_string()),
    };
    let sec = sframe_spec::SectionRef::parse(&loaded.bytes).map_err(|v| format!("{v:?}"))?;
    Ok(fdes
        .iter()
        .map(|f| check::check_fde(&sec, loaded.vaddr, f))
        .collect())
}

/// Assemble `asm` with `p` and check the object.
pub fn run_asm(p: &Producer, asm: &str, work: &Path) -> FileResult {
    let a = match p.assemble(asm, work) {
        Ok(a) => a,
        Err(e) => {
            return FileResult {
                assembler_error: Some(e.to_string()),
                outcomes: vec![],
                read_error: None,
                object: None,
            }
        }
    };
    let Some(obj) = a.object else {
        return FileResult {
            assembler_error: Some(a.stderr),
            outcomes: vec![],
            read_error: None,
            object: None,
        };
    };
    let (outcomes, read_error) = match check_object(&obj) {
        Ok(outcomes) => (outcomes, None),
        Err(e) => (vec![], Some(e)),
    };
    FileResult {
        assembler_error: None,
        outcomes,
        read_error,
        object: Some(obj),
    }
}

/// The signature of an assembler that gave up on its own internal check (GNU as's
/// `gas_assert`: "error in <function> at <file>:<line>"; LLVM's crash handler, which
/// prints "PLEASE submit a bug report" and a stack dump after a fatal error or a signal),
/// which no input excuses: `oracle:<producer>:<abi>:assert-<function>:assembler-failed`.
/// For LLVM the function is the innermost named `llvm::MC*` frame of the stack dump, `::`
/// written `.` (`MCSFrameEmitter.emit`), or `llvm-crash` when the dump names none.
/// Ordinary refusals of the input ("register save offset not a multiple of 8") have none.
pub fn assembler_failure_signature(
    producer: &signature::Producer,
    abi: OracleAbi,
    stderr: &str,
) -> Option<Signature> {
    let func = match stderr
        .lines()
        .find(|l| l.contains("error in ") && l.contains(" at "))
    {
        Some(line) => {
            let rest = &line[line.find("error in ")? + "error in ".len()..];
            rest.split_whitespace().next()?.to_string()
        }
        None if stderr.contains("PLEASE submit a bug report") => stderr
            .lines()
            .filter(|l| l.trim_start().starts_with('#'))
            .find_map(|l| {
                let sym = l.split_whitespace().nth(2)?.strip_prefix("llvm::")?;
                let name = sym.split('(').next()?;
                name.starts_with("MC").then(|| name.replace("::", "."))
            })
            .unwrap_or_else(|| "llvm-crash".into()),
        None => return None,
    };
    Some(Signature::oracle(
        producer,
        abi,
        format!("assert-{func}"),
        OracleKind::AssemblerFailed,
    ))
}

impl FileResult {
    /// Every disagreement's signature, and the assembler's own failure's.
    pub fn signatures(&self, producer: &signature::Producer, abi: OracleAbi) -> Vec<Signature> {
        let failure = self
            .assembler_error
            .as_deref()
            .and_then(|e| assembler_failure_signature(producer, abi, e));
        self.outcomes
            .iter()
            .filter_map(|o| match o {
                FdeOutcome::Disagrees(m) => Some(signature(producer, abi, m)),
                _ => None,
            })
            .chain(failure)
            .collect()
    }
}

/// The signatures of a file through `p` (for the minimizer's predicate).
pub fn signatures_of(p: &Producer, asm: &str, work: &Path) -> Vec<Signature> {
    run_asm(p, asm, work).signatures(&p.signature_name(), p.arch.oracle_abi())
}

/// A one-function program.
pub fn single(arch: gen::Arch, f: Func) -> Program {
    Program {
        arch,
        funcs: vec![f],
    }
}

#[cfg(test)]
mod tests {
    use super::assembler_failure_signature;
    use sframe_findings::signature::{OracleAbi, Producer};

    /// The signature's text, which the ledger's patterns match.
    fn failure(producer: &str, stderr: &str) -> Option<String> {
        assembler_failure_signature(&Producer::named(producer), OracleAbi::Amd64, stderr)
            .map(|s| s.to_string())
    }

    #[test]
    fn gas_assertions_have_a_signature_and_refusals_none() {
        let e = "in.s: Assembler messages:\nin.s: Error: error in sframe_xlate_do_restore_state at ../../gas/gen-sframe.c:1130.\n";
        assert_eq!(
            failure("gnu-as-2.40", e).as_deref(),
            Some("oracle:gnu-as-2.40:amd64:assert-sframe_xlate_do_restore_state:assembler-failed")
        );
        let r =
            "in.s: Assembler messages:\nin.s:7: Error: register save offset not a multiple of 8\n";
        assert_eq!(failure("gnu-as-2.40", r), None);
    }

    #[test]
    fn llvm_crashes_have_a_signature_and_warnings_none() {
        // llvm-mc 23.1.4 on `.cfi_remember_state` before the first row, `.cfi_restore_state`,
        // `.cfi_remember_state` (F0236): report_fatal_error, then the crash handler's dump.
        let e = "in.s:6:2: warning: skipping SFrame FDE; .cfi_remember_state without prior SFrame FRE state\n\
LLVM ERROR: SmallVector unable to grow. Requested capacity (4294967296) is larger than maximum value for size type (4294967295)\n\
PLEASE submit a bug report to https://github.com/llvm/llvm-project/issues/ and include the crash backtrace and instructions to reproduce the bug.\n\
Stack dump:\n\
 #7 0x00007f1c2ec6cf2b llvm::report_fatal_error(llvm::Twine const&, bool) (/usr/lib/x86_64-linux-gnu/libLLVM.so.23.1+0x506cf2b)\n\
 #9 0x00007f1c2ecb57cf llvm::SmallVectorBase<unsigned int>::grow_pod(void*, unsigned long, unsigned long) (/usr/lib/x86_64-linux-gnu/libLLVM.so.23.1+0x50b57cf)\n\
#10 0x00007f1c3096d353 (/usr/lib/x86_64-linux-gnu/libLLVM.so.23.1+0x6d6d353)\n\
#12 0x00007f1c3096b361 llvm::MCSFrameEmitter::emit(llvm::MCObjectStreamer&) (/usr/lib/x86_64-linux-gnu/libLLVM.so.23.1+0x6d6b361)\n\
#13 0x00007f1c30942a62 llvm::MCELFStreamer::finishImpl() (/usr/lib/x86_64-linux-gnu/libLLVM.so.23.1+0x6d42a62)\n";
        assert_eq!(
            failure("llvm-mc-23", e).as_deref(),
            Some("oracle:llvm-mc-23:amd64:assert-MCSFrameEmitter.emit:assembler-failed")
        );
        let w = "in.s:19:2: warning: canonical Frame Address not in stack- or frame-pointer. Omitting SFrame unwind info for this function\n";
        assert_eq!(failure("llvm-mc-23", w), None);
    }
}
