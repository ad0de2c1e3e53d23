//! AArch64 (SFrame ABIs AArch64 little and big endian): `bl` leaves the return address in
//! x30 (LR), so at function entry the CFA is SP (AAPCS64 §6.4, the SFrame manual's CFA) and
//! the RA is still in LR; x29 is the frame pointer; there is no red zone on Linux.
//! Instructions are little-endian in both byte orders.

use super::{last_imm, Cpu, Flow, Regs};
use capstone::prelude::*;
use sframe_spec::Abi;
use unicorn_engine::unicorn_const::{Arch, Mode};
use unicorn_engine::{Arm64CpuModel, RegisterARM64 as R};

/// An AArch64 CPU of one byte order.
pub struct Aarch64 {
    big_endian: bool,
}

/// Little-endian AArch64.
pub static AARCH64_LE: Aarch64 = Aarch64 { big_endian: false };
/// Big-endian AArch64 (data big-endian, instructions little-endian).
pub static AARCH64_BE: Aarch64 = Aarch64 { big_endian: true };

const fn x(n: i32) -> i32 {
    match n {
        29 => R::X29 as i32,
        30 => R::X30 as i32,
        _ => R::X0 as i32 + n,
    }
}

static REGS: Regs = Regs {
    pc: R::PC as i32,
    sp: R::SP as i32,
    fp: R::X29 as i32,
    ra: Some(R::X30 as i32),
    ret: x(0),
    args: &[x(0), x(1), x(2), x(3), x(4), x(5), x(6), x(7)],
    callee_saved: &[
        x(19),
        x(20),
        x(21),
        x(22),
        x(23),
        x(24),
        x(25),
        x(26),
        x(27),
        x(28),
    ],
    scratch: &[
        x(8),
        x(9),
        x(10),
        x(11),
        x(12),
        x(13),
        x(14),
        x(15),
        x(16),
        x(17),
        x(18),
    ],
};

impl Cpu for Aarch64 {
    fn abi(&self) -> Abi {
        if self.big_endian {
            Abi::Aarch64Be
        } else {
            Abi::Aarch64Le
        }
    }
    fn unicorn_mode(&self) -> (Arch, Mode) {
        (
            Arch::ARM64,
            if self.big_endian {
                Mode::BIG_ENDIAN
            } else {
                Mode::LITTLE_ENDIAN
            },
        )
    }
    fn cpu_model(&self) -> Option<i32> {
        // The "max" CPU has pointer authentication, so signed return addresses are real.
        Some(Arm64CpuModel::MAX as i32)
    }
    fn capstone(&self) -> capstone::CsResult<Capstone> {
        Capstone::new()
            .arm64()
            .mode(arch::arm64::ArchMode::Arm)
            .build()
    }
    fn regs(&self) -> &'static Regs {
        &REGS
    }
    fn dwarf_register(&self, n: u32) -> Option<i32> {
        // AADWARF64: 0-30 are x0-x30, 31 is SP.
        match n {
            0..=30 => Some(x(n as i32)),
            31 => Some(R::SP as i32),
            _ => None,
        }
    }
    fn cfa_from_entry_sp(&self) -> u64 {
        0
    }
    fn entry_sp_alignment(&self) -> (u64, u64) {
        (16, 0)
    }
    fn red_zone(&self) -> u64 {
        0
    }
    fn insn_granule(&self) -> u64 {
        4
    }
    fn classify(&self, mnemonic: &str, op_str: &str) -> Flow {
        match mnemonic {
            "bl" => Flow::Call {
                target: last_imm(op_str),
            },
            "blr" | "blraa" | "blraaz" | "blrab" | "blrabz" => Flow::Call { target: None },
            "ret" | "retaa" | "retab" => Flow::Return,
            "b" => Flow::Jump {
                target: last_imm(op_str),
            },
            "br" | "braa" | "braaz" | "brab" | "brabz" => Flow::Jump { target: None },
            "svc" | "hvc" | "smc" | "brk" | "hlt" | "udf" => Flow::Trap,
            _ if mnemonic.starts_with("b.")
                || matches!(mnemonic, "cbz" | "cbnz" | "tbz" | "tbnz") =>
            {
                match last_imm(op_str) {
                    Some(target) => Flow::CondJump { target },
                    None => Flow::Other,
                }
            }
            // Capstone spells some conditions without the dot (`bne`).
            _ if mnemonic.len() == 3
                && mnemonic.starts_with('b')
                && last_imm(op_str).is_some()
                && op_str.split(',').count() == 1 =>
            {
                Flow::CondJump {
                    target: last_imm(op_str).unwrap_or_default(),
                }
            }
            _ => Flow::Other,
        }
    }
    fn is_nop(&self, mnemonic: &str, _op_str: &str, _bytes: &[u8]) -> bool {
        matches!(mnemonic, "nop" | "udf")
    }
    fn is_sigreturn(&self, head: &[u8]) -> bool {
        // mov x8, #139 (rt_sigreturn); svc #0.
        head.starts_with(&[0x68, 0x11, 0x80, 0xd2, 0x01, 0x00, 0x00, 0xd4])
    }
    fn return_fill(&self) -> &'static [u8] {
        &[0xc0, 0x03, 0x5f, 0xd6] // ret (little-endian instruction)
    }
    fn init_registers(&self, tls: u64) -> Vec<(i32, u64)> {
        // FP/SIMD enabled at EL0 and EL1 (CPACR_EL1.FPEN = 0b11).
        vec![(R::TPIDR_EL0 as i32, tls), (R::CPACR_EL1 as i32, 3 << 20)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_flow_of_common_instructions() {
        let c = &AARCH64_LE;
        assert_eq!(
            c.classify("bl", "#0x10040"),
            Flow::Call {
                target: Some(0x10040)
            }
        );
        assert_eq!(c.classify("blr", "x1"), Flow::Call { target: None });
        assert_eq!(c.classify("b.ne", "#0x10"), Flow::CondJump { target: 0x10 });
        assert_eq!(
            c.classify("tbz", "w0, #3, #0x20"),
            Flow::CondJump { target: 0x20 }
        );
        assert_eq!(c.classify("ret", ""), Flow::Return);
        assert_eq!(c.classify("b", "#0x8"), Flow::Jump { target: Some(8) });
        assert_eq!(c.classify("bic", "x0, x0, x1"), Flow::Other);
        assert_eq!(c.dwarf_register(31), Some(R::SP as i32));
        assert_eq!(c.dwarf_register(29), Some(R::X29 as i32));
    }
}
