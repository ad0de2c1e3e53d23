//! A stack snapshot: the machine state at the deepest point of a run, with the true frames,
//! so that any unwinder (the reference here, other implementations in the harness) can walk
//! the same stack and be compared with the truth.

use crate::checker::{self, Machine, Values, Walked};
use serde::Serialize;
use sframe_spec::unwind::Frame;
use sframe_spec::{Abi, Endian, SectionRef};

/// A copied range of target memory.
#[derive(Debug, Clone, Serialize)]
pub struct MemoryRange {
    pub addr: u64,
    #[serde(serialize_with = "hex")]
    pub bytes: Vec<u8>,
}

fn hex<S: serde::Serializer>(b: &[u8], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&sframe_spec::hex::encode(b))
}

/// One true frame, innermost first.
#[derive(Debug, Clone, Serialize)]
pub struct SnapshotFrame {
    pub function: String,
    /// The PC of this frame: the current PC for the innermost, the return address of the
    /// pending call for the others.
    pub pc: u64,
    /// What an unwinder must recover from this frame.
    pub expected: Values,
}

/// The machine state at one PC of a run.
#[derive(Debug, Clone, Serialize)]
pub struct StackSnapshot {
    pub abi: Abi,
    /// The function under test of the run.
    pub under_test: String,
    pub pc: u64,
    pub sp: u64,
    pub fp: u64,
    /// The return-address register (AArch64 x30, s390x r14).
    pub ra_reg: Option<u64>,
    /// Every DWARF register the CPU maps, as `(number, value)`.
    pub regs: Vec<(u32, u64)>,
    /// The live stack (from below the SP, red zone included, to the top of the stack).
    pub memory: Vec<MemoryRange>,
    pub frames: Vec<SnapshotFrame>,
}

impl StackSnapshot {
    /// Byte order of target words.
    pub fn endian(&self) -> Endian {
        self.abi.endian()
    }

    /// The target word at `addr`, if the snapshot holds it.
    pub fn read_word(&self, addr: u64) -> Option<u64> {
        let r = self
            .memory
            .iter()
            .find(|r| addr >= r.addr && addr.saturating_add(8) <= r.addr + r.bytes.len() as u64)?;
        let off = (addr - r.addr) as usize;
        let b: [u8; 8] = r.bytes.get(off..off + 8)?.try_into().ok()?;
        Some(match self.endian() {
            Endian::Little => u64::from_le_bytes(b),
            Endian::Big => u64::from_be_bytes(b),
        })
    }

    /// DWARF register `n`.
    pub fn reg(&self, n: u32) -> Option<u64> {
        self.regs.iter().find(|(k, _)| *k == n).map(|&(_, v)| v)
    }

    /// The innermost frame as an unwinder starts from it (Appendix A, "frame 0").
    pub fn start_frame(&self) -> Frame {
        Frame {
            pc: self.pc,
            sp: self.sp,
            fp: self.fp,
            ra_reg: self.ra_reg,
        }
    }

    /// Walk the snapshot's stack with the reference unwinder, exactly as Appendix A says
    /// (return addresses looked up as they are).
    pub fn unwind_reference(&self, section: &SectionRef<'_>, section_vaddr: u64) -> Vec<Walked> {
        let reg = |n: u32| self.reg(n);
        let mut mem = |a: u64| self.read_word(a);
        let never = |_: u64| false;
        checker::unwind_stack(
            section,
            section_vaddr,
            self.start_frame(),
            self.frames.len(),
            &never,
            Machine {
                reg: &reg,
                mem: &mut mem,
            },
        )
    }
}
