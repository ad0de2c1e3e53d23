//! Per-PC check of an object's SFrame rows (the reference reader) against its DWARF CFI.
//!
//! What SFrame can express comes from the spec crate's recovery model ([`Recovery`]): the
//! CFI row is turned into the recovery rules an SFrame row would have to give
//! ([`expected`]), and [`expressible`] says whether a row of the section's version and ABI
//! can give them (and, when not, the reason). An emitted FDE must give, at every PC of the
//! function, exactly the expected rules; a function may be left out (counted, not a
//! disagreement).

use crate::cfi::{CfaRule, FdeRows, RegRule, Row};
use sframe_spec::constants::PauthKey;
use sframe_spec::{Abi, Base, Loc, Recovery, SectionRef, Version};

/// What an SFrame row must say at a PC: `None` for a component no SFrame row can give.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expected {
    pub cfa: Option<Loc>,
    pub ra: Option<Loc>,
    pub fp: Option<Loc>,
    pub ra_mangled: bool,
}

fn reg_loc(r: RegRule) -> Option<Loc> {
    Some(match r {
        RegRule::Undefined => Loc::Undefined,
        RegRule::SameValue => Loc::SameValue,
        RegRule::Offset(n) => Loc::Expr {
            base: Base::Cfa,
            offset: n,
            deref: true,
        },
        RegRule::ValOffset(n) => Loc::Expr {
            base: Base::Cfa,
            offset: n,
            deref: false,
        },
        RegRule::Register(r) => Loc::Expr {
            base: Base::Reg(u32::from(r)),
            offset: 0,
            deref: false,
        },
        RegRule::Expression => return None,
    })
}

/// The recovery rules a CFI row stands for.
pub fn expected(abi: Abi, row: &Row, ra_column: u16) -> Expected {
    let regs = abi.regs();
    let cfa = match row.cfa {
        CfaRule::RegOffset(r, o) => Some(Loc::Expr {
            base: Base::Reg(u32::from(r)),
            offset: o,
            deref: false,
        }),
        CfaRule::Expression => None,
    };
    let _ = regs.ra;
    Expected {
        cfa,
        ra: reg_loc(row.reg(ra_column)),
        fp: reg_loc(row.reg(regs.fp)),
        ra_mangled: row.ra_signed,
    }
}

/// Why no row of `version` and `abi` can give `e`, by the spec crate's model; `Ok` when
/// one can.
pub fn expressible(version: Version, abi: Abi, e: &Expected) -> Result<(), &'static str> {
    let regs = abi.regs();
    let flex = version == Version::V3;
    // RA undefined: the outermost-frame row (no data words), v2 Errata 2 and v3.
    if e.ra == Some(Loc::Undefined) {
        return if version == Version::V1 {
            Err("ra-undefined-v1")
        } else {
            Ok(())
        };
    }
    match e.cfa {
        None => return Err("cfa-expression"),
        Some(Loc::Expr {
            base: Base::Reg(r), ..
        }) if r == u32::from(regs.sp) || r == u32::from(regs.fp) => {}
        Some(_) if flex => {}
        Some(_) => return Err("cfa-base-not-sp-fp"),
    }
    // s390x stores the CFA offset adjusted and scaled down by 8 (v3 manual §3.1.3, v2
    // Errata 1): an offset that is not a multiple of 8 has no encoding.
    if let Some(Loc::Expr { offset, .. }) = e.cfa {
        if abi == Abi::S390x
            && version != Version::V1
            && sframe_spec::constants::s390x_cfa_offset_encode(offset).is_none()
        {
            return Err("cfa-offset-unaligned-s390x");
        }
    }
    let slot = |l: Option<Loc>| {
        matches!(
            l,
            Some(Loc::SameValue)
                | Some(Loc::Expr {
                    base: Base::Cfa,
                    deref: true,
                    ..
                })
        )
    };
    let flex_ok = |l: Option<Loc>| matches!(l, Some(Loc::SameValue) | Some(Loc::Expr { .. }));
    // s390x v2 (Errata 1): an odd RA or FP offset names the DWARF register holding it.
    let s390x_reg = |l: Option<Loc>| {
        abi == Abi::S390x
            && version == Version::V2
            && matches!(
                l,
                Some(Loc::Expr {
                    base: Base::Reg(_),
                    offset: 0,
                    deref: false,
                })
            )
    };
    match e.fp {
        Some(Loc::Undefined) => return Err("fp-undefined"),
        None => return Err("fp-expression"),
        l if slot(l) || s390x_reg(l) => {}
        l if flex && flex_ok(l) => {}
        _ => return Err("fp-not-in-cfa-slot"),
    }
    match (abi, e.ra) {
        (_, None) => return Err("ra-expression"),
        (
            Abi::Amd64,
            Some(Loc::Expr {
                base: Base::Cfa,
                offset: -8,
                deref: true,
            }),
        ) => {}
        (Abi::Amd64, l) if flex && flex_ok(l) => {}
        (Abi::Amd64, _) => return Err("ra-not-at-cfa-8"),
        (_, l) if slot(l) || s390x_reg(l) => {}
        (_, l) if flex && flex_ok(l) => {}
        _ => return Err("ra-not-in-cfa-slot"),
    }
    if e.ra_mangled && abi == Abi::Amd64 {
        return Err("ra-mangled-amd64");
    }
    Ok(())
}

/// One disagreement at a PC.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// Function-relative PC.
    pub pc_offset: u64,
    /// `cfa`, `ra`, `fp`, `no-row`, ...: the oracle signature kinds.
    pub kind: &'static str,
    /// The CFI's shape where they disagree (the signature's function part).
    pub shape: String,
    pub expected: String,
    pub found: String,
    /// Why SFrame cannot express the CFI there, if it cannot.
    pub unexpressible: Option<&'static str>,
}

/// What happened to one CFI FDE.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FdeOutcome {
    /// SFrame gives the CFI's rules at every PC.
    Agrees,
    /// No SFrame FDE: `Some(reason)` when some PC's CFI is not expressible.
    Omitted(Option<&'static str>),
    Disagrees(Mismatch),
}

fn loc_shape(l: Option<Loc>, regs: sframe_spec::constants::AbiRegs) -> String {
    match l {
        None => "expr".into(),
        Some(Loc::Undefined) => "undefined".into(),
        Some(Loc::SameValue) => "same".into(),
        Some(Loc::Expr {
            base: Base::Cfa,
            deref: true,
            ..
        }) => "cfa-slot".into(),
        Some(Loc::Expr {
            base: Base::Cfa,
            deref: false,
            ..
        }) => "cfa-value".into(),
        Some(Loc::Expr {
            base: Base::Reg(r), ..
        }) if r == u32::from(regs.sp) => "sp".into(),
        Some(Loc::Expr {
            base: Base::Reg(r), ..
        }) if r == u32::from(regs.fp) => "fp".into(),
        Some(Loc::Expr { .. }) => "reg".into(),
    }
}

/// `shape`, with `@unexpressible-<reason>` when no SFrame row can give the CFI there.
fn shape_with_reason(shape: String, why: Option<&str>) -> String {
    match why {
        Some(reason) => format!("{shape}@unexpressible-{reason}"),
        None => shape,
    }
}

/// Check one CFI FDE against the SFrame section (`sec` at `vaddr`).
pub fn check_fde(sec: &SectionRef<'_>, vaddr: u64, fde: &FdeRows) -> FdeOutcome {
    let abi = sec.abi();
    let version = sec.version();
    let regs = abi.regs();
    let unexp = fde
        .rows
        .iter()
        .find_map(|r| expressible(version, abi, &expected(abi, r, fde.ra_column)).err());
    let rel = |pc: u64| pc.wrapping_sub(vaddr) as i64;
    let sfde = match sec.find_fde(rel(fde.start)) {
        Ok(Some(f)) => f,
        Ok(None) => {
            // No FDE at the start: left out, unless another PC of the function is covered.
            let covered = fde
                .rows
                .iter()
                .any(|r| matches!(sec.find_fde(rel(r.start)), Ok(Some(_))) && r.start != fde.start);
            if !covered {
                return FdeOutcome::Omitted(unexp);
            }
            return FdeOutcome::Disagrees(Mismatch {
                pc_offset: 0,
                kind: "no-row",
                shape: "cfi-partly-covered".into(),
                expected: "an FDE from the function's start".into(),
                found: "none".into(),
                unexpressible: unexp,
            });
        }
        Err(v) => {
            return FdeOutcome::Disagrees(Mismatch {
                pc_offset: 0,
                kind: "step-error",
                shape: "cfi-unreadable".into(),
                expected: "a readable FDE".into(),
                found: format!("{v:?}"),
                unexpressible: unexp,
            })
        }
    };
    // The PCs where either side's rows change.
    let mut pcs: Vec<u64> = fde.rows.iter().map(|r| r.start).collect();
    for fre in sec.fres(&sfde).flatten() {
        let pc = vaddr
            .wrapping_add(sfde.start as u64)
            .wrapping_add(u64::from(fre.start));
        pcs.push(pc);
    }
    pcs.push(fde.start.wrapping_add(fde.len).wrapping_sub(1));
    pcs.sort_unstable();
    pcs.dedup();
    for pc in pcs {
        if pc < fde.start || pc >= fde.start.wrapping_add(fde.len) {
            continue;
        }
        let Some(row) = fde.row_at(pc) else { continue };
        let e = expected(abi, row, fde.ra_column);
        let why = expressible(version, abi, &e).err();
        let off = pc - fde.start;
        // The shape: the field, the CFI's rule and the SFrame row's rule (`offset` when
        // both have the same base and differ in the offset only).
        let mk = |kind: &'static str, want: Option<Loc>, got: Option<Loc>, found: String| {
            let w = loc_shape(want, regs);
            let g = match (want, got) {
                (
                    Some(Loc::Expr {
                        base: b1,
                        deref: d1,
                        ..
                    }),
                    Some(Loc::Expr {
                        base: b2,
                        deref: d2,
                        ..
                    }),
                ) if b1 == b2 && d1 == d2 => "offset".to_string(),
                (_, None) => "none".to_string(),
                _ => loc_shape(got, regs),
            };
            // Where no SFrame row can give the CFI (the producer should have left the
            // function out), the shape says why after `@`.
            let shape = shape_with_reason(format!("cfi-{kind}-{w}-{g}"), why);
            Mismatch {
                pc_offset: off,
                kind,
                shape,
                expected: format!("{e:?}"),
                found,
                unexpressible: why,
            }
        };
        let found = match sec.find(rel(pc)) {
            Ok(Some(f)) => f,
            Ok(None) => {
                let mut m = mk("no-row", e.cfa, None, "no row".into());
                if sfde.num_fres == 0 {
                    m.shape = shape_with_reason("cfi-fde-without-fres".into(), why);
                }
                return FdeOutcome::Disagrees(m);
            }
            Err(v) => {
                return FdeOutcome::Disagrees(mk("step-error", e.cfa, None, format!("{v:?}")))
            }
        };
        let rec: Recovery = match sec.recovery(&found.fde, &found.fre) {
            Ok(r) => r,
            Err(rule) => {
                return FdeOutcome::Disagrees(mk(
                    "step-error",
                    e.cfa,
                    None,
                    format!("breaks {rule:?}"),
                ))
            }
        };
        let found_s = format!("{rec:?}");
        // RA undefined (outermost frame) is about the RA, whatever the CFA says.
        if e.ra == Some(Loc::Undefined) || rec.ra == Loc::Undefined {
            if Some(rec.ra) != e.ra {
                return FdeOutcome::Disagrees(mk("ra", e.ra, Some(rec.ra), found_s));
            }
            continue;
        }
        if Some(rec.cfa) != e.cfa {
            return FdeOutcome::Disagrees(mk("cfa", e.cfa, Some(rec.cfa), found_s));
        }
        if Some(rec.ra) != e.ra {
            return FdeOutcome::Disagrees(mk("ra", e.ra, Some(rec.ra), found_s));
        }
        if Some(rec.fp) != e.fp {
            return FdeOutcome::Disagrees(mk("fp", e.fp, Some(rec.fp), found_s));
        }
        if rec.ra_mangled != e.ra_mangled {
            let mut m = mk("ra", e.ra, Some(rec.ra), found_s);
            m.shape = format!("cfi-ra-mangled-{}", e.ra_mangled);
            return FdeOutcome::Disagrees(m);
        }
    }
    if version == Version::V3 && sfde.signal(version) != fde.signal {
        return FdeOutcome::Disagrees(Mismatch {
            pc_offset: 0,
            kind: "signal",
            shape: if fde.signal {
                "cfi-signal-frame".into()
            } else {
                "cfi-ordinary-frame".into()
            },
            expected: format!("signal = {}", fde.signal),
            found: format!("signal = {}", sfde.signal(version)),
            unexpressible: unexp,
        });
    }
    // AArch64: the key that signs the return addresses (FDE info bit `pauth_key`), where the
    // function signs them at all.
    if matches!(abi, Abi::Aarch64Le | Abi::Aarch64Be) && fde.rows.iter().any(|r| r.ra_signed) {
        let want = if fde.b_key { PauthKey::B } else { PauthKey::A };
        if sfde.pauth_key() != want {
            return FdeOutcome::Disagrees(Mismatch {
                pc_offset: 0,
                kind: "pauth-key",
                shape: format!("cfi-key-{want:?}").to_lowercase(),
                expected: format!("pauth_key = {want:?}"),
                found: format!("pauth_key = {:?}", sfde.pauth_key()),
                unexpressible: unexp,
            });
        }
    }
    FdeOutcome::Agrees
}
