//! The CPU of each ABI, as the oracle needs it: how Unicorn and Capstone are set up, which
//! registers carry arguments, the return value, the return address and the callee-saved
//! state, where the CFA is at function entry, and what an instruction does to control flow.
//!
//! One file per architecture with matching items (as framehop does): [`x86_64`],
//! [`aarch64`], [`s390x`]. The rest of the crate only talks to the [`Cpu`] trait.

pub mod aarch64;
pub mod s390x;
pub mod x86_64;

use capstone::Capstone;
use sframe_elf::Machine;
use sframe_spec::{Abi, Endian};
use unicorn_engine::unicorn_const::{Arch, Mode};

/// Unicorn register IDs of the registers a run sets up and reads.
#[derive(Debug)]
pub struct Regs {
    pub pc: i32,
    pub sp: i32,
    /// The ABI's frame pointer (the one SFrame's FP is about).
    pub fp: i32,
    /// The return-address register; `None` when calls push the return address (AMD64).
    pub ra: Option<i32>,
    /// Where a function's (integer) result goes.
    pub ret: i32,
    /// Integer argument registers, in order.
    pub args: &'static [i32],
    /// Callee-saved registers other than SP and FP (they get sentinel values).
    pub callee_saved: &'static [i32],
    /// Caller-saved registers that are neither arguments nor the result (they get noise).
    pub scratch: &'static [i32],
}

/// What an instruction does to control flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Falls through to the next instruction.
    Other,
    /// Calls a function: the return address is the next instruction. `target` when direct.
    Call { target: Option<u64> },
    /// Returns to the caller.
    Return,
    /// Jumps unconditionally (`target` when direct).
    Jump { target: Option<u64> },
    /// Jumps to `target` or falls through.
    CondJump { target: u64 },
    /// Enters the operating system or stops the program (syscall, breakpoint, halt).
    Trap,
}

impl Flow {
    /// Control never reaches the next instruction from here.
    pub fn is_unconditional(self) -> bool {
        matches!(self, Flow::Return | Flow::Jump { .. } | Flow::Trap)
    }
}

/// One ABI's CPU. Implementations are stateless and shared between threads.
pub trait Cpu: Send + Sync {
    /// The SFrame ABI this CPU runs.
    fn abi(&self) -> Abi;
    /// Unicorn's architecture and mode.
    fn unicorn_mode(&self) -> (Arch, Mode);
    /// The Unicorn CPU model to select (the most capable one), if not the default.
    fn cpu_model(&self) -> Option<i32>;
    /// A disassembler for the machine code.
    fn capstone(&self) -> capstone::CsResult<Capstone>;
    /// Register IDs.
    fn regs(&self) -> &'static Regs;
    /// The Unicorn register holding DWARF register `n` (for flexible recovery rules).
    fn dwarf_register(&self, n: u32) -> Option<i32>;
    /// CFA minus the SP at function entry (AMD64: 8, the return address the call pushed;
    /// AArch64: 0; s390x: 160, the register save area the caller owns).
    fn cfa_from_entry_sp(&self) -> u64;
    /// `(alignment, remainder)` of the SP at function entry.
    fn entry_sp_alignment(&self) -> (u64, u64);
    /// Bytes below the SP that signal handlers leave alone (AMD64's 128-byte red zone).
    fn red_zone(&self) -> u64;
    /// Granule of instruction addresses (to resynchronise a sweep over undecodable bytes).
    fn insn_granule(&self) -> u64;
    /// Classify a decoded instruction.
    fn classify(&self, mnemonic: &str, op_str: &str) -> Flow;
    /// Whether a decoded instruction does nothing (alignment padding when unreachable).
    fn is_nop(&self, mnemonic: &str, op_str: &str, bytes: &[u8]) -> bool;
    /// Whether code starting with `head` invokes `rt_sigreturn` at once (a signal
    /// trampoline, as the kernel's and the C library's restorers are).
    fn is_sigreturn(&self, head: &[u8]) -> bool;
    /// A return instruction, to fill call stubs and pages mapped for wild jumps (the code
    /// hook returns from them before they run; should one run, it returns too).
    fn return_fill(&self) -> &'static [u8];
    /// A page of [`return_fill`](Self::return_fill) instructions.
    fn return_page(&self, page: usize) -> Vec<u8> {
        self.return_fill()
            .iter()
            .copied()
            .cycle()
            .take(page)
            .collect()
    }
    /// Whether Unicorn's target faults on fetching from a page without write permission
    /// (s390x does): then no page of the image can be write-protected.
    fn fetch_needs_write(&self) -> bool {
        false
    }
    /// Extra register set-up at the start of a run (thread pointer, processor state).
    fn init_registers(&self, tls: u64) -> Vec<(i32, u64)>;
}

/// The CPU for an ELF machine and byte order.
pub fn for_machine(machine: Machine, endian: Endian) -> Option<&'static dyn Cpu> {
    match (machine, endian) {
        (Machine::X86_64, Endian::Little) => Some(&x86_64::X86_64),
        (Machine::Aarch64, Endian::Little) => Some(&aarch64::AARCH64_LE),
        (Machine::Aarch64, Endian::Big) => Some(&aarch64::AARCH64_BE),
        (Machine::S390x, Endian::Big) => Some(&s390x::S390x),
        _ => None,
    }
}

/// Parse a Capstone immediate operand (`0x1234`, `#0x1234`, `1234`, `-0x10`).
pub(crate) fn parse_imm(s: &str) -> Option<u64> {
    let s = s.trim().trim_start_matches('#');
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let v = match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok()?,
        None => s.parse::<u64>().ok()?,
    };
    Some(if neg { v.wrapping_neg() } else { v })
}

/// The last comma-separated operand that is an immediate (a branch target).
pub(crate) fn last_imm(op_str: &str) -> Option<u64> {
    op_str.rsplit(',').next().and_then(parse_imm)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn immediates_parse_in_capstone_spellings() {
        assert_eq!(parse_imm("0x10"), Some(16));
        assert_eq!(parse_imm("#0x10"), Some(16));
        assert_eq!(parse_imm("-0x10"), Some(16u64.wrapping_neg()));
        assert_eq!(parse_imm("rax"), None);
        assert_eq!(last_imm("w0, #3, 0x1040"), Some(0x1040));
        assert_eq!(last_imm("x0, #0x1040"), Some(0x1040));
    }
}
