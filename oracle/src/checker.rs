//! The checker: apply the SFrame row of a PC to the machine state and compare what it
//! recovers with the shadow stack's truth.
//!
//! The check is semantic. The row is looked up and applied by the reference
//! ([`sframe_spec::unwind::step`], which uses [`SectionRef::find`] and
//! [`sframe_spec::unwind::apply`]) to the live registers and memory; the recovered CFA, return
//! address and frame pointer must equal the true ones. The executing frame is the topmost
//! one, so "unchanged" RA/FP rules are legitimate there. A value recovered from a stack
//! slot below the SP (less the red zone) is right only by luck: a signal handler may
//! overwrite it, so it is reported as a dead slot.
//!
//! [`unwind_stack`] walks a whole stack the way a stack tracer does: the first step as the
//! topmost frame, the others not.

use crate::shadow::TrueFrame;
use serde::Serialize;
use sframe_spec::recovery::{Base, Loc, Recovery};
use sframe_spec::unwind::{self, Frame, Step, StepError};
use sframe_spec::{Abi, SectionRef};

/// What a row must recover, or what it did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Values {
    pub cfa: u64,
    pub ra: u64,
    pub fp: u64,
}

impl From<&TrueFrame> for Values {
    fn from(t: &TrueFrame) -> Values {
        Values {
            cfa: t.cfa,
            ra: t.ra,
            fp: t.fp,
        }
    }
}

/// What was wrong at a PC: the findings' vocabulary ([`OracleKind`]), the oracle producing
/// all of its kinds but a producer's own (`signal`, `pauth-key`, `assembler-failed`).
pub use sframe_findings::signature::OracleKind;

/// The row a check used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RowUsed {
    pub fde: usize,
    pub fre: usize,
    pub rules: Recovery,
}

/// The outcome of checking one frame at one PC.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckOutcome {
    /// The row recovers the truth.
    Ok(RowUsed),
    /// The row says this is the outermost frame (RA undefined): nothing to compare.
    Outermost,
    /// The row is wrong.
    Mismatch {
        kind: OracleKind,
        row: Option<RowUsed>,
        got: Option<Values>,
        error: Option<String>,
    },
}

/// Machine state access for one check.
pub struct Machine<'m> {
    /// DWARF registers other than SP, FP and the RA register (topmost frame only).
    pub reg: &'m dyn Fn(u32) -> Option<u64>,
    /// Read a target word.
    pub mem: &'m mut dyn FnMut(u64) -> Option<u64>,
}

/// Strip pointer-authentication bits of an AArch64 user address (VA size 48).
pub fn strip_pac(v: u64) -> u64 {
    v & 0x0000_ffff_ffff_ffff
}

/// The address a `deref` rule reads (the stack slot of a saved RA or FP), given the CFA
/// the row recovered; none when the rule does not read memory.
pub fn slot(
    loc: &Loc,
    cfa: u64,
    frame: &Frame,
    abi: Abi,
    reg: &dyn Fn(u32) -> Option<u64>,
) -> Option<u64> {
    let Loc::Expr {
        base,
        offset,
        deref: true,
    } = *loc
    else {
        return None;
    };
    let regs = abi.regs();
    let b = match base {
        Base::Cfa => cfa,
        Base::Reg(n) if n == u32::from(regs.sp) => frame.sp,
        Base::Reg(n) if n == u32::from(regs.fp) => frame.fp,
        Base::Reg(n) => reg(n)?,
    };
    Some(b.wrapping_add(offset as u64))
}

fn row_of(section: &SectionRef<'_>, section_vaddr: u64, pc: u64) -> Option<RowUsed> {
    let found = section.find(pc.wrapping_sub(section_vaddr) as i64).ok()??;
    let rules = section.recovery(&found.fde, &found.fre).ok()?;
    Some(RowUsed {
        fde: found.fde.index,
        fre: found.fre_index,
        rules,
    })
}

/// Compare a step's result with the truth.
pub fn judge(
    section: &SectionRef<'_>,
    section_vaddr: u64,
    frame: &Frame,
    result: &Result<Step, StepError>,
    truth: &Values,
    dead_below: Option<u64>,
    reg: &dyn Fn(u32) -> Option<u64>,
) -> CheckOutcome {
    let abi = section.abi();
    let step = match result {
        Ok(s) => s,
        Err(StepError::Outermost) => return CheckOutcome::Outermost,
        Err(e @ (StepError::NoFde | StepError::NoFre)) => {
            return CheckOutcome::Mismatch {
                kind: OracleKind::NoRow,
                row: None,
                got: None,
                error: Some(format!("{e:?}")),
            }
        }
        Err(e) => {
            return CheckOutcome::Mismatch {
                kind: OracleKind::StepError,
                row: row_of(section, section_vaddr, frame.pc),
                got: None,
                error: Some(format!("{e:?}")),
            }
        }
    };
    let row = RowUsed {
        fde: step.function,
        fre: step.fre,
        rules: step.rules,
    };
    let ra = if step.ra_mangled {
        strip_pac(step.caller.pc)
    } else {
        step.caller.pc
    };
    let got = Values {
        cfa: step.cfa,
        ra,
        fp: step.caller.fp,
    };
    let kind = if got.cfa != truth.cfa {
        Some(OracleKind::Cfa)
    } else if got.ra != truth.ra {
        Some(OracleKind::Ra)
    } else if got.fp != truth.fp {
        Some(OracleKind::Fp)
    } else if let Some(limit) = dead_below {
        let dead = |loc: &Loc| slot(loc, step.cfa, frame, abi, reg).is_some_and(|a| a < limit);
        if dead(&step.rules.ra) {
            Some(OracleKind::RaDeadSlot)
        } else if dead(&step.rules.fp) {
            Some(OracleKind::FpDeadSlot)
        } else {
            None
        }
    } else {
        None
    };
    match kind {
        None => CheckOutcome::Ok(row),
        Some(kind) => CheckOutcome::Mismatch {
            kind,
            row: Some(row),
            got: Some(got),
            error: None,
        },
    }
}

/// Check the executing (topmost) frame at its PC.
pub fn check_topmost(
    section: &SectionRef<'_>,
    section_vaddr: u64,
    frame: &Frame,
    truth: &Values,
    red_zone: u64,
    m: Machine<'_>,
) -> CheckOutcome {
    let result = unwind::step(section, section_vaddr, frame, true, m.reg, m.mem);
    // Slots below the SP are dead only while the frame is sane (SP at or below the CFA: a
    // negative alloca size moves the SP above its own frame).
    let dead_below = (frame.sp <= truth.cfa).then(|| frame.sp.saturating_sub(red_zone));
    judge(
        section,
        section_vaddr,
        frame,
        &result,
        truth,
        dead_below,
        m.reg,
    )
}

/// One frame of a whole-stack walk: the frame the unwinder was at and what it found.
#[derive(Debug, Clone)]
pub struct Walked {
    pub frame: Frame,
    pub result: Result<Step, StepError>,
    /// The row was looked up at `frame.pc - 1` (see [`unwind_stack`]).
    pub looked_up_before_pc: bool,
}

/// Walk up to `max` frames from `start` with the reference unwinder: the first step as
/// the topmost frame, the rest not, each from the caller frame the previous step gave.
///
/// A caller frame's PC is a return address; after a call to a `noreturn` function that
/// ends its function, it lies past the function's last byte: no FDE covers it, or the next
/// function's does. Appendix A looks the PC up as it is; when `past_end(pc)` says the PC is
/// such an end, the walk looks up `pc - 1` instead, as DWARF unwinders do for caller frames,
/// and says so.
pub fn unwind_stack(
    section: &SectionRef<'_>,
    section_vaddr: u64,
    start: Frame,
    max: usize,
    past_end: &dyn Fn(u64) -> bool,
    m: Machine<'_>,
) -> Vec<Walked> {
    let mut out = Vec::new();
    let mut frame = start;
    for k in 0..max {
        let before = k > 0 && past_end(frame.pc);
        let lookup = if before {
            Frame {
                pc: frame.pc.wrapping_sub(1),
                ..frame
            }
        } else {
            frame
        };
        let result = unwind::step(section, section_vaddr, &lookup, k == 0, m.reg, m.mem);
        let next = result.as_ref().ok().map(|s| {
            let mut c = s.caller;
            if s.ra_mangled {
                c.pc = strip_pac(c.pc);
            }
            c
        });
        out.push(Walked {
            frame,
            result,
            looked_up_before_pc: before,
        });
        match next {
            Some(n) => frame = n,
            None => break,
        }
    }
    out
}
