//! Instruction starts and control flow of each function, by a linear sweep with Capstone.
//!
//! Coverage counts executed instruction starts over these. A run of no-op instructions
//! right after an instruction that never falls through (return, jump, trap) is alignment
//! padding: it cannot execute and is counted apart.

use crate::arch::{Cpu, Flow};
use capstone::Capstone;

/// One instruction of a function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Insn {
    pub addr: u64,
    pub size: u8,
    pub flow: Flow,
    /// Unreachable alignment padding.
    pub padding: bool,
    /// Capstone could not decode these bytes (the sweep skipped one granule).
    pub undecodable: bool,
}

/// The instructions of `code`, which starts at `addr`.
pub fn sweep(cpu: &dyn Cpu, cs: &Capstone, code: &[u8], addr: u64) -> Vec<Insn> {
    let mut out: Vec<Insn> = Vec::new();
    let mut off = 0usize;
    let granule = cpu.insn_granule() as usize;
    while off < code.len() {
        let decoded = cs.disasm_all(&code[off..], addr + off as u64);
        let mut advanced = 0usize;
        if let Ok(insns) = decoded {
            for i in insns.iter() {
                let (m, o) = (i.mnemonic().unwrap_or(""), i.op_str().unwrap_or(""));
                let flow = cpu.classify(m, o);
                let prev_blocks = out
                    .last()
                    .is_some_and(|p| p.flow.is_unconditional() || p.padding);
                out.push(Insn {
                    addr: i.address(),
                    size: i.len() as u8,
                    flow,
                    padding: prev_blocks && cpu.is_nop(m, o, i.bytes()),
                    undecodable: false,
                });
                advanced += i.len();
            }
        }
        off += advanced;
        if off < code.len() {
            // Undecodable bytes: skip one granule and go on.
            let size = granule.min(code.len() - off);
            out.push(Insn {
                addr: addr + off as u64,
                size: size as u8,
                flow: Flow::Other,
                padding: false,
                undecodable: true,
            });
            off += size;
        }
    }
    out
}

/// `mnemonic operands` of the instruction at `addr`, or its bytes in hex.
pub fn describe(cs: &Capstone, code: &[u8], addr: u64) -> String {
    match cs.disasm_count(code, addr, 1) {
        Ok(insns) if insns.len() == 1 => {
            let i = insns.iter().next().expect("one instruction");
            format!(
                "{} {}",
                i.mnemonic().unwrap_or(""),
                i.op_str().unwrap_or("")
            )
            .trim_end()
            .to_string()
        }
        _ => format!(
            ".byte {}",
            code.iter()
                .take(4)
                .map(|b| format!("{b:#04x}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}
