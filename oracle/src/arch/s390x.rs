//! s390x (SFrame ABI s390x): `brasl %r14,f` leaves the return address in r14; the caller
//! provides a 160-byte register save area at the SP, and the CFA is SP at the call + 160
//! (s390x ELF ABI, "Stack Frame"; SFrame v3 manual §3.1.3); r11 is the frame pointer and r15
//! the SP. Big-endian.

use super::{last_imm, Cpu, Flow, Regs};
use capstone::prelude::*;
use sframe_spec::Abi;
use unicorn_engine::unicorn_const::{Arch, Mode};
use unicorn_engine::{RegisterS390X as R, S390xCpuModel};

/// The s390x CPU.
pub struct S390x;

const fn r(n: i32) -> i32 {
    R::R0 as i32 + n
}

static REGS: Regs = Regs {
    pc: R::PC as i32,
    sp: r(15),
    fp: r(11),
    ra: Some(r(14)),
    ret: r(2),
    args: &[r(2), r(3), r(4), r(5), r(6)],
    callee_saved: &[r(7), r(8), r(9), r(10), r(12), r(13)],
    scratch: &[r(0), r(1)],
};

/// FPR numbers of DWARF registers 16-31 (s390x ELF ABI, "DWARF Definition").
const DWARF_FPR: [i32; 16] = [0, 2, 4, 6, 1, 3, 5, 7, 8, 10, 12, 14, 9, 11, 13, 15];

/// `PSW_MASK_64 | PSW_MASK_32`: 64-bit addressing.
const PSW_64BIT: u64 = 0x0000_0001_8000_0000;
/// `CR0_RESET | CR0_AFP | CR0_VECTOR`: additional FP registers and vector instructions on.
const CR0: u64 = 0xe0 | 0x4_0000 | 0x2_0000;

/// The storage operands of an instruction as Capstone spells them (`64(%r2)`,
/// `0(%r1,%r15)`, `0(8,%r1)`): per operand the registers that add to its address (base and
/// index; `%r0` there means no register) and the displacement. Lengths are not addresses.
pub fn storage_operands(op_str: &str) -> Vec<(Vec<u8>, u64)> {
    let mut out = Vec::new();
    let mut rest = op_str;
    while let Some(open) = rest.find('(') {
        let Some(close) = rest[open..].find(')').map(|c| open + c) else {
            break;
        };
        let start = rest[..open]
            .rfind(|c: char| c == ',' || c.is_whitespace())
            .map_or(0, |i| i + 1);
        let disp = crate::arch::parse_imm(&rest[start..open]).unwrap_or(0);
        let regs = rest[open + 1..close]
            .split(',')
            .filter_map(|t| t.trim().strip_prefix("%r")?.parse::<u8>().ok())
            .filter(|&n| n != 0)
            .collect();
        out.push((regs, disp));
        rest = &rest[close + 1..];
    }
    out
}

impl Cpu for S390x {
    fn abi(&self) -> Abi {
        Abi::S390x
    }
    fn unicorn_mode(&self) -> (Arch, Mode) {
        (Arch::S390X, Mode::BIG_ENDIAN)
    }
    fn cpu_model(&self) -> Option<i32> {
        Some(S390xCpuModel::MAX as i32)
    }
    fn capstone(&self) -> capstone::CsResult<Capstone> {
        Capstone::new()
            .sysz()
            .mode(arch::sysz::ArchMode::Default)
            .build()
    }
    fn regs(&self) -> &'static Regs {
        &REGS
    }
    fn dwarf_register(&self, n: u32) -> Option<i32> {
        match n {
            0..=15 => Some(r(n as i32)),
            16..=31 => Some(R::F0 as i32 + DWARF_FPR[n as usize - 16]),
            _ => None,
        }
    }
    fn cfa_from_entry_sp(&self) -> u64 {
        160
    }
    fn entry_sp_alignment(&self) -> (u64, u64) {
        (8, 0)
    }
    fn red_zone(&self) -> u64 {
        0
    }
    fn insn_granule(&self) -> u64 {
        2
    }
    fn classify(&self, mnemonic: &str, op_str: &str) -> Flow {
        let ops: Vec<&str> = op_str.split(',').map(str::trim).collect();
        match mnemonic {
            "brasl" | "bras" => Flow::Call {
                target: last_imm(op_str),
            },
            // `basr %rX, %r0` only loads the address of the next instruction.
            "basr" if ops.get(1).is_some_and(|o| *o == "%r0" || *o == "0") => Flow::Other,
            "basr" | "bas" | "balr" | "bal" => Flow::Call { target: None },
            "br" if ops.first() == Some(&"%r14") => Flow::Return,
            "br" | "b" => Flow::Jump { target: None },
            "j" | "jg" => Flow::Jump {
                target: last_imm(op_str),
            },
            "jnop" | "jgnop" | "nop" | "nopr" => Flow::Other,
            "svc" => Flow::Trap,
            "brc" | "brcl" => match (
                ops.first().and_then(|m| m.parse::<u8>().ok()),
                last_imm(op_str),
            ) {
                (Some(15), t) => Flow::Jump { target: t },
                (Some(0), _) | (_, None) => Flow::Other,
                (_, Some(target)) => Flow::CondJump { target },
            },
            _ if mnemonic.starts_with('j')
                || mnemonic.starts_with("brct")
                || mnemonic.starts_with("brx") =>
            {
                match last_imm(op_str) {
                    Some(target) => Flow::CondJump { target },
                    None => Flow::Other,
                }
            }
            // Compare and branch relative: crj, cgrj, clrj, clgrj, cij, cgij, clij, clgij.
            _ if mnemonic.starts_with('c') && mnemonic.contains('j') => match last_imm(op_str) {
                Some(target) => Flow::CondJump { target },
                None => Flow::Other,
            },
            _ => Flow::Other,
        }
    }
    fn is_nop(&self, mnemonic: &str, _op_str: &str, bytes: &[u8]) -> bool {
        // bcr 0,x and bc 0,x branch never: what assemblers pad with (`nopr %r7` = 07 07).
        let never = match bytes {
            [0x07, m, ..] | [0x47, m, ..] => m >> 4 == 0,
            _ => false,
        };
        never || matches!(mnemonic, "nop" | "nopr" | "jnop" | "jgnop")
    }
    fn is_sigreturn(&self, head: &[u8]) -> bool {
        // svc 173 (rt_sigreturn) or svc 119 (sigreturn).
        head.starts_with(&[0x0a, 0xad]) || head.starts_with(&[0x0a, 0x77])
    }
    fn return_fill(&self) -> &'static [u8] {
        &[0x07, 0xfe] // br %r14
    }
    fn fetch_needs_write(&self) -> bool {
        true
    }
    fn init_registers(&self, tls: u64) -> Vec<(i32, u64)> {
        vec![
            (R::PSWM as i32, PSW_64BIT),
            (R::CR0 as i32, CR0),
            (R::A0 as i32, tls >> 32),
            (R::A1 as i32, tls & 0xffff_ffff),
        ]
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn storage_operands_in_capstone_spellings() {
        assert_eq!(storage_operands("%r1, 64(%r2)"), [(vec![2], 64)]);
        assert_eq!(storage_operands("%r2, 0(%r1, %r15)"), [(vec![1, 15], 0)]);
        assert_eq!(
            storage_operands("0(8, %r1), 16(%r2)"),
            [(vec![1], 0), (vec![2], 16)]
        );
        assert_eq!(
            storage_operands("%r14, -8(%r0, %r11)"),
            [(vec![11], 0u64.wrapping_sub(8))]
        );
        assert!(storage_operands("%r2, %r1").is_empty());
    }

    use super::*;

    #[test]
    fn control_flow_of_common_instructions() {
        let c = S390x;
        assert_eq!(
            c.classify("brasl", "%r14, 0x1000"),
            Flow::Call {
                target: Some(0x1000)
            }
        );
        assert_eq!(c.classify("basr", "%r14, %r1"), Flow::Call { target: None });
        assert_eq!(c.classify("basr", "%r13, %r0"), Flow::Other);
        assert_eq!(c.classify("br", "%r14"), Flow::Return);
        assert_eq!(
            c.classify("jg", "0x1000"),
            Flow::Jump {
                target: Some(0x1000)
            }
        );
        assert_eq!(
            c.classify("jne", "0x1000"),
            Flow::CondJump { target: 0x1000 }
        );
        assert_eq!(
            c.classify("cgij", "%r2, 0, 8, 0x1000"),
            Flow::CondJump { target: 0x1000 }
        );
        assert!(c.is_nop("bcr", "0, %r7", &[0x07, 0x07]));
        assert_eq!(c.dwarf_register(17), Some(R::F2 as i32));
    }
}
