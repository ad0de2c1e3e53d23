//! x86-64 (SFrame ABI AMD64): `call` pushes the return address, so at function entry the
//! CFA is SP + 8 and the caller's RA is at CFA - 8 (System V AMD64 psABI §3.2); RBP is the
//! frame pointer; 128 bytes below RSP are a red zone (psABI §3.2.2).

use super::{last_imm, Cpu, Flow, Regs};
use capstone::prelude::*;
use sframe_spec::Abi;
use unicorn_engine::unicorn_const::{Arch, Mode};
use unicorn_engine::RegisterX86 as R;

/// The x86-64 CPU.
pub struct X86_64;

static REGS: Regs = Regs {
    pc: R::RIP as i32,
    sp: R::RSP as i32,
    fp: R::RBP as i32,
    ra: None,
    ret: R::RAX as i32,
    args: &[
        R::RDI as i32,
        R::RSI as i32,
        R::RDX as i32,
        R::RCX as i32,
        R::R8 as i32,
        R::R9 as i32,
    ],
    callee_saved: &[
        R::RBX as i32,
        R::R12 as i32,
        R::R13 as i32,
        R::R14 as i32,
        R::R15 as i32,
    ],
    scratch: &[R::R10 as i32, R::R11 as i32],
};

/// DWARF register numbers 0-16 (psABI Figure 3.36).
const DWARF: [R; 17] = [
    R::RAX,
    R::RDX,
    R::RCX,
    R::RBX,
    R::RSI,
    R::RDI,
    R::RBP,
    R::RSP,
    R::R8,
    R::R9,
    R::R10,
    R::R11,
    R::R12,
    R::R13,
    R::R14,
    R::R15,
    R::RIP,
];

impl Cpu for X86_64 {
    fn abi(&self) -> Abi {
        Abi::Amd64
    }
    fn unicorn_mode(&self) -> (Arch, Mode) {
        (Arch::X86, Mode::MODE_64)
    }
    fn cpu_model(&self) -> Option<i32> {
        None
    }
    fn capstone(&self) -> capstone::CsResult<Capstone> {
        Capstone::new()
            .x86()
            .mode(arch::x86::ArchMode::Mode64)
            .build()
    }
    fn regs(&self) -> &'static Regs {
        &REGS
    }
    fn dwarf_register(&self, n: u32) -> Option<i32> {
        DWARF.get(n as usize).map(|&r| r as i32)
    }
    fn cfa_from_entry_sp(&self) -> u64 {
        8
    }
    fn entry_sp_alignment(&self) -> (u64, u64) {
        // The SP is 16-byte aligned before the call (psABI §3.2.2), so 8 mod 16 at entry.
        (16, 8)
    }
    fn red_zone(&self) -> u64 {
        128
    }
    fn insn_granule(&self) -> u64 {
        1
    }
    fn classify(&self, mnemonic: &str, op_str: &str) -> Flow {
        // Prefixes (bnd, notrack, rep) come first in Capstone's mnemonic.
        let m = mnemonic.split_whitespace().last().unwrap_or("");
        match m {
            "call" => Flow::Call {
                target: last_imm(op_str),
            },
            "ret" | "retq" => Flow::Return,
            "jmp" => Flow::Jump {
                target: last_imm(op_str),
            },
            "syscall" | "sysenter" | "int" | "int1" | "int3" | "into" | "hlt" | "ud0" | "ud1"
            | "ud2" => Flow::Trap,
            _ if m.starts_with('j') || m.starts_with("loop") => match last_imm(op_str) {
                Some(target) => Flow::CondJump { target },
                None => Flow::Other,
            },
            _ => Flow::Other,
        }
    }
    fn is_nop(&self, mnemonic: &str, op_str: &str, _bytes: &[u8]) -> bool {
        let m = mnemonic.split_whitespace().last().unwrap_or("");
        m.starts_with("nop") || m == "int3" || (m == "xchg" && op_str.replace(' ', "") == "ax,ax")
    }
    fn is_sigreturn(&self, head: &[u8]) -> bool {
        // mov $15, %rax (or %eax); syscall: rt_sigreturn is system call 15.
        head.starts_with(&[0x48, 0xc7, 0xc0, 0x0f, 0, 0, 0, 0x0f, 0x05])
            || head.starts_with(&[0xb8, 0x0f, 0, 0, 0, 0x0f, 0x05])
    }
    fn return_fill(&self) -> &'static [u8] {
        &[0xc3] // ret
    }
    fn init_registers(&self, tls: u64) -> Vec<(i32, u64)> {
        vec![(R::FS_BASE as i32, tls), (R::EFLAGS as i32, 0x202)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_flow_of_common_instructions() {
        let c = X86_64;
        assert_eq!(
            c.classify("call", "0x1040"),
            Flow::Call {
                target: Some(0x1040)
            }
        );
        assert_eq!(
            c.classify("call", "qword ptr [rip + 0x2fe2]"),
            Flow::Call { target: None }
        );
        assert_eq!(c.classify("bnd ret", ""), Flow::Return);
        assert_eq!(c.classify("jne", "0x10"), Flow::CondJump { target: 0x10 });
        assert_eq!(
            c.classify("notrack jmp", "rax"),
            Flow::Jump { target: None }
        );
        assert_eq!(c.classify("mov", "rax, rbx"), Flow::Other);
        assert!(c.is_nop("nop", "word ptr cs:[rax + rax]", &[]));
        assert!(c.is_nop("xchg", "ax, ax", &[]));
        assert!(!c.is_nop("xchg", "rax, rbx", &[]));
    }
}
