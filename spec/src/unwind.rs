//! One unwind step, per Appendix A of the v3 manual ("Generating Stack Traces using SFrame").
//!
//! Given a frame's PC, SP and FP (and, in the topmost frame, the other registers), the
//! section and a memory reader, compute the caller's PC, SP and FP. The topmost-frame rules
//! are applied: a flex CFA based on a register other than SP or FP is only trusted in the
//! topmost frame (Appendix A, `ERR_SFRAME_UNSAFE_UNWIND`), and an RA left "unchanged" in its
//! register is only valid there (v3 §3.1.3: "Stack tracers are recommended to validate that
//! the 'unchanged RA' pattern, when present, is seen only for the topmost stack frame").

use crate::constants::Abi;
use crate::error::Violation;
use crate::read::SectionRef;
use crate::recovery::{Base, Loc, Recovery};
use crate::rules::Rule;

/// A frame's registers as the unwinder sees them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame {
    pub pc: u64,
    pub sp: u64,
    pub fp: u64,
    /// The return-address register (AArch64 x30, s390x r14), when known: in the topmost
    /// frame, or passed on when a frame left it unchanged.
    pub ra_reg: Option<u64>,
}

/// Why a step could not produce a caller frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepError {
    /// No FDE covers the PC.
    NoFde,
    /// The FDE has no FRE for the PC.
    NoFre,
    /// RA undefined: the outermost frame was reached (the stack trace is complete).
    Outermost,
    /// Recovery needs a register other than SP/FP below the topmost frame.
    UnsafeUnwind,
    /// The RA is "unchanged" in its register below the topmost frame.
    RaUnchangedBelowTop,
    /// A register the rule names is not known.
    RegisterUnavailable(u32),
    /// Memory at this address could not be read.
    MemoryFault(u64),
    /// The section is malformed where the step had to read.
    Malformed(Violation),
    /// The row breaks a rule and cannot be interpreted.
    InvalidRow(Rule),
}

/// The outcome of one step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    pub cfa: u64,
    pub caller: Frame,
    /// The recovered RA carries pointer-authentication bits (not stripped here).
    pub ra_mangled: bool,
    pub function: usize,
    pub fre: usize,
    pub rules: Recovery,
}

/// Apply `rules` to a frame. `reg` gives DWARF registers other than SP, FP and the RA
/// register (topmost frame only); `mem` reads a target word.
pub fn apply(
    abi: Abi,
    rules: &Recovery,
    frame: &Frame,
    topmost: bool,
    reg: &dyn Fn(u32) -> Option<u64>,
    mem: &mut dyn FnMut(u64) -> Option<u64>,
) -> Result<(u64, Frame), StepError> {
    let regs = abi.regs();
    let read_reg = |n: u32| -> Result<u64, StepError> {
        if n == u32::from(regs.sp) {
            Ok(frame.sp)
        } else if n == u32::from(regs.fp) {
            Ok(frame.fp)
        } else if n == u32::from(regs.ra) && frame.ra_reg.is_some() {
            frame.ra_reg.ok_or(StepError::RegisterUnavailable(n))
        } else if topmost {
            reg(n).ok_or(StepError::RegisterUnavailable(n))
        } else {
            Err(StepError::RegisterUnavailable(n))
        }
    };
    let mut eval = |loc: &Loc, cfa: Option<u64>| -> Result<Option<u64>, StepError> {
        match *loc {
            Loc::Expr {
                base,
                offset,
                deref,
            } => {
                let b = match base {
                    Base::Cfa => cfa.ok_or(StepError::InvalidRow(Rule::FlexCfaRegister))?,
                    Base::Reg(n) => read_reg(n)?,
                };
                let addr = b.wrapping_add(offset as u64);
                if deref {
                    mem(addr).map(Some).ok_or(StepError::MemoryFault(addr))
                } else {
                    Ok(Some(addr))
                }
            }
            Loc::SameValue => Ok(None),
            Loc::Undefined => Err(StepError::Outermost),
        }
    };
    if let Loc::Expr {
        base: Base::Reg(n), ..
    } = rules.cfa
    {
        if !topmost && n != u32::from(regs.sp) && n != u32::from(regs.fp) {
            return Err(StepError::UnsafeUnwind);
        }
    }
    let cfa = eval(&rules.cfa, None)?.ok_or(StepError::InvalidRow(Rule::FlexCfaRegister))?;
    let pc = match eval(&rules.ra, Some(cfa))? {
        Some(v) => v,
        None if topmost => frame
            .ra_reg
            .ok_or(StepError::RegisterUnavailable(u32::from(regs.ra)))?,
        None => return Err(StepError::RaUnchangedBelowTop),
    };
    let fp = eval(&rules.fp, Some(cfa))?.unwrap_or(frame.fp);
    let sp = cfa.wrapping_add(abi.sp_from_cfa() as u64);
    Ok((
        cfa,
        Frame {
            pc,
            sp,
            fp,
            ra_reg: None,
        },
    ))
}

/// One step from `frame`, looking its PC up in `section` loaded at `section_vaddr`.
pub fn step(
    section: &SectionRef<'_>,
    section_vaddr: u64,
    frame: &Frame,
    topmost: bool,
    reg: &dyn Fn(u32) -> Option<u64>,
    mem: &mut dyn FnMut(u64) -> Option<u64>,
) -> Result<Step, StepError> {
    // A caller frame's PC is a return address: the instruction after the call, which may be
    // the first of the next function when the call ends its own (a call to a noreturn
    // function). Its row is the one of the call, found at PC - 1 (discrepancy
    // D-APPENDIX-A-CALLER-PC: Appendix A looks the return address up as it is).
    let lookup_pc = if topmost {
        frame.pc
    } else {
        frame.pc.wrapping_sub(1)
    };
    let pc = lookup_pc.wrapping_sub(section_vaddr) as i64;
    let found = section.find(pc).map_err(StepError::Malformed)?;
    let Some(found) = found else {
        return Err(match section.find_fde(pc) {
            Ok(Some(_)) => StepError::NoFre,
            _ => StepError::NoFde,
        });
    };
    let rules = section
        .recovery(&found.fde, &found.fre)
        .map_err(StepError::InvalidRow)?;
    let (cfa, caller) = apply(section.abi(), &rules, frame, topmost, reg, mem)?;
    Ok(Step {
        cfa,
        caller,
        ra_mangled: rules.ra_mangled,
        function: found.fde.index,
        fre: found.fre_index,
        rules,
    })
}
