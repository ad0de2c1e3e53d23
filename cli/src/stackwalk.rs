//! Whole-stack walks by every implementation, checked against the emulator's truth.
//!
//! The oracle keeps a [`StackSnapshot`] at the deepest point of each run: registers, the
//! live stack and the true frames (what every caller's CFA, return address and frame
//! pointer really are). Any implementation that can find the row for a PC can walk that
//! stack: at each frame it looks the PC up (its own `find_fre`; a caller frame's PC is a
//! return address, looked up at PC - 1 like the reference does, so that every walker asks
//! about the same instruction) and the row's rules are applied to the frame with the
//! reference's Appendix A step ([`sframe_spec::unwind::apply`]). What is compared with the
//! truth is therefore what each implementation says the rows are, frame by frame.
//!
//! Where the reference's own walk already departs from the truth (a producer bug the
//! oracle ledgers as `oracle:...`), the frame is not held against the other implementations;
//! where the reference matches the truth and an implementation does not, that is a
//! discrepancy with signature `unwind:<impl>:<version tag>:<what>`, `<what>` one of
//! `no-row` (no row found), `rejected`, `crashed`, `hung` or `unsupported` (the look-up's outcome), `incomplete-row` (the answer
//! lacks a CFA, RA or FP rule), `step` (the rules cannot be applied), `cfa`, `ra`, `fp`.

use sframe_harness::impls::{Implementation, Outcome};
use sframe_harness::signature::{LayoutTag, Signature, Unwind};
use sframe_oracle::StackSnapshot;
use sframe_spec::unwind::{apply, Frame};
use sframe_spec::Recovery;

/// Where an implementation's walk first departs from the truth.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkDiscrepancy {
    pub signature: Signature,
    /// Frame index (0: innermost) and its function.
    pub frame: usize,
    pub function: String,
    pub pc: u64,
    pub detail: String,
}

/// One frame's recovered values, or why there are none.
type Recovered = Result<(u64, Frame), String>;

/// Pointer-authentication bits off a recovered AArch64 return address (the oracle's truth
/// holds plain addresses).
fn strip(abi: sframe_spec::Abi, pc: u64) -> u64 {
    if abi.is_aarch64() {
        sframe_oracle::checker::strip_pac(pc)
    } else {
        pc
    }
}

/// Step from `frame` (index `k`) with the rules `imp` gives for it.
fn step_with(
    imp: &dyn Implementation,
    snap: &StackSnapshot,
    section: &[u8],
    vaddr: u64,
    k: usize,
    frame: &Frame,
) -> Result<(u64, Frame), (&'static str, String)> {
    let lookup = if k == 0 {
        frame.pc
    } else {
        frame.pc.wrapping_sub(1)
    };
    let rel = lookup.wrapping_sub(vaddr) as i64;
    let found = match imp.find_fre(section, rel) {
        Outcome::Ok { value: Some(f) } => f,
        Outcome::Ok { value: None } => {
            return Err(("no-row", format!("no row for pc {lookup:#x}")))
        }
        other => return Err((other.status(), format!("look-up of {lookup:#x}: {other:?}"))),
    };
    let (Some(cfa), Some(ra), Some(fp)) = (found.row.cfa, found.row.ra, found.row.fp) else {
        return Err(("incomplete-row", format!("{:?}", found.row)));
    };
    let rules = Recovery {
        cfa,
        ra,
        fp,
        ra_mangled: found.row.ra_mangled.unwrap_or(false),
    };
    let reg = |n: u32| snap.reg(n);
    let mut mem = |a: u64| snap.read_word(a);
    let (cfa, mut caller) = apply(snap.abi, &rules, frame, k == 0, &reg, &mut mem)
        .map_err(|e| ("step", format!("{e:?}")))?;
    caller.pc = strip(snap.abi, caller.pc);
    Ok((cfa, caller))
}

/// Walk `snap` with `imp`'s rows: for each true frame, the recovered CFA and caller frame.
pub fn walk(
    imp: &dyn Implementation,
    snap: &StackSnapshot,
    section: &[u8],
    vaddr: u64,
) -> Vec<Recovered> {
    let mut out = Vec::new();
    let mut frame = snap.start_frame();
    for k in 0..snap.frames.len() {
        match step_with(imp, snap, section, vaddr, k, &frame) {
            Ok((cfa, caller)) => {
                out.push(Ok((cfa, caller)));
                frame = caller;
            }
            Err((what, detail)) => {
                out.push(Err(format!("{what}: {detail}")));
                break;
            }
        }
    }
    out
}

fn matches_truth(r: &Recovered, snap: &StackSnapshot, k: usize) -> Result<(), (Unwind, String)> {
    let t = &snap.frames[k].expected;
    match r {
        Err(e) => {
            // The failure `walk` wrote as `<what>: <detail>`.
            let what = Unwind::ALL
                .iter()
                .copied()
                .find(|w| e.starts_with(&format!("{w}:")))
                .unwrap_or(Unwind::Step);
            Err((what, e.clone()))
        }
        Ok((cfa, caller)) => {
            if *cfa != t.cfa {
                Err((Unwind::Cfa, format!("CFA {cfa:#x}, true {:#x}", t.cfa)))
            } else if caller.pc != t.ra {
                Err((Unwind::Ra, format!("RA {:#x}, true {:#x}", caller.pc, t.ra)))
            } else if caller.fp != t.fp {
                Err((Unwind::Fp, format!("FP {:#x}, true {:#x}", caller.fp, t.fp)))
            } else {
                Ok(())
            }
        }
    }
}

/// Compare `imp`'s walk of `snap` with the truth, over the frames the reference walks
/// truthfully; the first departure, if any.
pub fn check(
    reference: &dyn Implementation,
    imp: &dyn Implementation,
    snap: &StackSnapshot,
    section: &[u8],
    vaddr: u64,
) -> Option<WalkDiscrepancy> {
    let ours = walk(reference, snap, section, vaddr);
    let theirs = walk(imp, snap, section, vaddr);
    for k in 0..snap.frames.len() {
        let Some(r) = ours.get(k) else { break };
        if matches_truth(r, snap, k).is_err() {
            // The producer's rows are wrong here (an oracle finding): nothing to hold
            // against the implementation from this frame on.
            break;
        }
        let t = theirs
            .get(k)
            .cloned()
            .unwrap_or_else(|| Err("step: the walk stopped earlier".into()));
        if let Err((what, detail)) = matches_truth(&t, snap, k) {
            return Some(WalkDiscrepancy {
                signature: Signature::Unwind {
                    imp: imp.tool(),
                    tag: LayoutTag::of(section),
                    what,
                },
                frame: k,
                function: snap.frames[k].function.clone(),
                pc: snap.frames[k].pc,
                detail,
            });
        }
    }
    None
}
