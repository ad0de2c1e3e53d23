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

/// What an SFrame row must say at a PC: `None` for a component no SFrame row can give
/// (the RA's mangling is always known, from the CFI's `DW_CFA_AARCH64_negate_ra_state`).
pub type Expected = sframe_spec::PartialRecovery;

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
        RegRule::AtRegister(r, n) => Loc::Expr {
            base: Base::Reg(u32::from(r)),
            offset: n,
            deref: true,
        },
        RegRule::ValRegister(r, n) => Loc::Expr {
            base: Base::Reg(u32::from(r)),
            offset: n,
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
        CfaRule::Expression(_) => None,
    };
    let _ = regs.ra;
    Expected {
        cfa,
        ra: reg_loc(row.reg(ra_column)),
        fp: reg_loc(row.reg(regs.fp)),
        ra_mangled: Some(row.ra_signed),
    }
}

pub use crate::said::Said;
use sframe_findings::signature::Shape;
/// Why no SFrame row can give a CFI row: the findings' vocabulary (a crosscheck shape's
/// `@unexpressible-<why>`).
pub use sframe_findings::signature::Unexpressible;

/// Why no row of `version` and `abi` can give `e`, by the spec crate's model; `Ok` when
/// one can.
pub fn expressible(version: Version, abi: Abi, e: &Expected) -> Result<(), Unexpressible> {
    let regs = abi.regs();
    let flex = version == Version::V3;
    // RA undefined: the outermost-frame row (no data words), v2 Errata 2 and v3.
    if e.ra == Some(Loc::Undefined) {
        return if version == Version::V1 {
            Err(Unexpressible::RaUndefinedV1)
        } else {
            Ok(())
        };
    }
    match e.cfa {
        None => return Err(Unexpressible::CfaExpression),
        // The word at an address (GCC's DRAP): only v3's flexible FDEs can say it.
        Some(Loc::Expr { deref: true, .. }) if !flex => return Err(Unexpressible::CfaDeref),
        Some(Loc::Expr {
            base: Base::Reg(r), ..
        }) if r == u32::from(regs.sp) || r == u32::from(regs.fp) => {}
        Some(_) if flex => {}
        Some(_) => return Err(Unexpressible::CfaBaseNotSpFp),
    }
    // s390x stores the CFA offset adjusted and scaled down by 8 (v3 manual §3.1.3, v2
    // Errata 1): an offset that is not a multiple of 8 has no encoding.
    if let Some(Loc::Expr { offset, .. }) = e.cfa {
        if abi == Abi::S390x
            && version != Version::V1
            && sframe_spec::constants::s390x_cfa_offset_encode(offset).is_none()
        {
            return Err(Unexpressible::CfaOffsetUnalignedS390x);
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
        Some(Loc::Undefined) => return Err(Unexpressible::FpUndefined),
        None => return Err(Unexpressible::FpExpression),
        l if slot(l) || s390x_reg(l) => {}
        l if flex && flex_ok(l) => {}
        _ => return Err(Unexpressible::FpNotInCfaSlot),
    }
    match (abi, e.ra) {
        (_, None) => return Err(Unexpressible::RaExpression),
        (
            Abi::Amd64,
            Some(Loc::Expr {
                base: Base::Cfa,
                offset: -8,
                deref: true,
            }),
        ) => {}
        (Abi::Amd64, l) if flex && flex_ok(l) => {}
        (Abi::Amd64, _) => return Err(Unexpressible::RaNotAtCfa8),
        (_, l) if slot(l) || s390x_reg(l) => {}
        (_, l) if flex && flex_ok(l) => {}
        _ => return Err(Unexpressible::RaNotInCfaSlot),
    }
    if e.ra_mangled == Some(true) && abi == Abi::Amd64 {
        return Err(Unexpressible::RaMangledAmd64);
    }
    Ok(())
}

/// What a disagreement is about (the last part of its signature): the findings'
/// vocabulary. `produce` names a mangled RA's state `ra` in its oracle signatures
/// (`OracleKind::from`), `crosscheck` `ra-mangled`.
pub use sframe_findings::signature::CrosscheckKind as Kind;

/// One disagreement at a PC.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Mismatch {
    /// Function-relative PC.
    pub pc_offset: u64,
    pub kind: Kind,
    /// The CFI's shape where they disagree (the signature's function part).
    pub shape: Shape,
    /// What the CFI says there.
    pub expected: Said,
    /// What the SFrame section says there.
    pub found: Said,
    /// The rules the CFI gives there and the SFrame row's, where there are rows.
    pub expected_rules: Option<Expected>,
    pub found_rules: Option<Recovery>,
    /// Why SFrame cannot express the CFI there, if it cannot.
    pub unexpressible: Option<Unexpressible>,
}

/// What happened to one CFI FDE.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FdeOutcome {
    /// SFrame gives the CFI's rules at every PC.
    Agrees,
    /// No SFrame FDE: `Some(reason)` when some PC's CFI is not expressible.
    Omitted(Option<Unexpressible>),
    Disagrees(Box<Mismatch>),
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

/// Compare the SFrame row for `pc` (absolute; the section `sec` at `vaddr`) with the rules
/// `e` the CFI gives there; `pc_offset` is the PC's offset in its function. `Ok` when they
/// agree.
pub fn compare_at(
    sec: &SectionRef<'_>,
    vaddr: u64,
    pc: u64,
    pc_offset: u64,
    e: &Expected,
) -> Result<(), Box<Mismatch>> {
    let abi = sec.abi();
    let regs = abi.regs();
    let why = expressible(sec.version(), abi, e).err();
    // The shape: the field, the CFI's rule and the SFrame row's rule (`offset` when both
    // have the same base and differ in the offset only).
    let mk = |kind: Kind, want: Option<Loc>, got: Option<Recovery>, found: Said| {
        let got_loc = got.map(|r| match kind {
            Kind::Cfa => r.cfa,
            Kind::Fp => r.fp,
            _ => r.ra,
        });
        let w = loc_shape(want, regs);
        let g = match (want, got_loc) {
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
            _ => loc_shape(got_loc, regs),
        };
        // Where no SFrame row can give the CFI (the producer should have left the
        // function out), the shape says why.
        let shape = Shape::new(format!("cfi-{kind}-{w}-{g}"), why);
        Mismatch {
            pc_offset,
            kind,
            shape,
            expected: Said::Rules(*e),
            found,
            expected_rules: Some(*e),
            found_rules: got,
            unexpressible: why,
        }
    };
    let rel = pc.wrapping_sub(vaddr) as i64;
    let found = match sec.find(rel) {
        Ok(Some(f)) => f,
        Ok(None) => {
            let mut m = mk(Kind::NoRow, e.cfa, None, Said::NoRow);
            if let Ok(Some(sfde)) = sec.find_fde(rel) {
                if sfde.num_fres == 0 {
                    m.shape = Shape::new("cfi-fde-without-fres", why);
                }
            }
            return Err(Box::new(m));
        }
        Err(v) => {
            return Err(Box::new(mk(
                Kind::StepError,
                e.cfa,
                None,
                Said::Unreadable(v),
            )))
        }
    };
    let rec: Recovery = match sec.recovery(&found.fde, &found.fre) {
        Ok(r) => r,
        Err(rule) => {
            return Err(Box::new(mk(
                Kind::StepError,
                e.cfa,
                None,
                Said::Breaks(rule),
            )))
        }
    };
    let found_s = Said::Row(rec);
    // RA undefined (outermost frame) is about the RA, whatever the CFA says.
    if e.ra == Some(Loc::Undefined) || rec.ra == Loc::Undefined {
        if Some(rec.ra) != e.ra {
            return Err(Box::new(mk(Kind::Ra, e.ra, Some(rec), found_s)));
        }
        return Ok(());
    }
    if Some(rec.cfa) != e.cfa {
        return Err(Box::new(mk(Kind::Cfa, e.cfa, Some(rec), found_s)));
    }
    if Some(rec.ra) != e.ra {
        return Err(Box::new(mk(Kind::Ra, e.ra, Some(rec), found_s)));
    }
    if Some(rec.fp) != e.fp {
        return Err(Box::new(mk(Kind::Fp, e.fp, Some(rec), found_s)));
    }
    if let Some(mangled) = e.ra_mangled.filter(|&m| m != rec.ra_mangled) {
        let mut m = mk(Kind::RaMangled, e.ra, Some(rec), found_s);
        m.shape = Shape::new(format!("cfi-ra-mangled-{mangled}"), None);
        return Err(Box::new(m));
    }
    Ok(())
}

/// The function-level facts of an SFrame FDE against the CFI FDE: the signal-frame bit
/// (v3) and, on AArch64 where return addresses are signed, the key.
pub fn compare_fde_facts(
    sec: &SectionRef<'_>,
    sfde: &sframe_spec::read::FdeRef,
    fde: &FdeRows,
    unexp: Option<Unexpressible>,
) -> Result<(), Box<Mismatch>> {
    let abi = sec.abi();
    let version = sec.version();
    let fact = |kind: Kind, shape: String, expected: Said, found: Said| {
        Box::new(Mismatch {
            pc_offset: 0,
            kind,
            shape: Shape::new(shape, None),
            expected,
            found,
            expected_rules: None,
            found_rules: None,
            unexpressible: unexp,
        })
    };
    if version == Version::V3 && sfde.signal(version) != fde.signal {
        return Err(fact(
            Kind::Signal,
            if fde.signal {
                "cfi-signal-frame".into()
            } else {
                "cfi-ordinary-frame".into()
            },
            Said::Signal(fde.signal),
            Said::Signal(sfde.signal(version)),
        ));
    }
    // AArch64: the key that signs the return addresses (FDE info bit `pauth_key`), where the
    // function signs them at all.
    if matches!(abi, Abi::Aarch64Le | Abi::Aarch64Be) && fde.rows.iter().any(|r| r.ra_signed) {
        let want = if fde.b_key { PauthKey::B } else { PauthKey::A };
        if sfde.pauth_key() != want {
            return Err(fact(
                Kind::PauthKey,
                format!("cfi-key-{want:?}").to_lowercase(),
                Said::PauthKey(want),
                Said::PauthKey(sfde.pauth_key()),
            ));
        }
    }
    Ok(())
}

/// Check one CFI FDE against the SFrame section (`sec` at `vaddr`): at every PC where
/// either side's rows change; the first disagreement.
pub fn check_fde(sec: &SectionRef<'_>, vaddr: u64, fde: &FdeRows) -> FdeOutcome {
    let abi = sec.abi();
    let version = sec.version();
    let unexp = fde
        .rows
        .iter()
        .find_map(|r| expressible(version, abi, &expected(abi, r, fde.ra_column)).err());
    let rel = |pc: u64| pc.wrapping_sub(vaddr) as i64;
    let no_fde = |pc_offset, kind, shape: &str, expected: Said, found: Said| {
        Box::new(Mismatch {
            pc_offset,
            kind,
            shape: Shape::new(shape, None),
            expected,
            found,
            expected_rules: None,
            found_rules: None,
            unexpressible: unexp,
        })
    };
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
            return FdeOutcome::Disagrees(no_fde(
                0,
                Kind::NoRow,
                "cfi-partly-covered",
                Said::AnFdeFromStart,
                Said::NoFde,
            ));
        }
        Err(v) => {
            return FdeOutcome::Disagrees(no_fde(
                0,
                Kind::StepError,
                "cfi-unreadable",
                Said::AReadableFde,
                Said::Unreadable(v),
            ))
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
        if let Err(m) = compare_at(sec, vaddr, pc, pc - fde.start, &e) {
            return FdeOutcome::Disagrees(m);
        }
    }
    match compare_fde_facts(sec, &sfde, fde, unexp) {
        Ok(()) => FdeOutcome::Agrees,
        Err(m) => FdeOutcome::Disagrees(m),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// GCC's DRAP CFA, `*(rbp - 8)`: v3's flexible FDEs carry a `deref_p` bit for the CFA
    /// (v3 manual, SFrame FDE type SFRAME_FDE_TYPE_FLEX); v1 and v2 rows are register +
    /// offset only.
    #[test]
    fn a_dereferenced_cfa_is_flexible_only() {
        let e = Expected {
            cfa: Some(Loc::Expr {
                base: Base::Reg(6),
                offset: -8,
                deref: true,
            }),
            ra: Some(Loc::Expr {
                base: Base::Cfa,
                offset: -8,
                deref: true,
            }),
            fp: Some(Loc::Expr {
                base: Base::Reg(6),
                offset: 0,
                deref: true,
            }),
            ra_mangled: Some(false),
        };
        assert_eq!(
            expressible(Version::V2, Abi::Amd64, &e),
            Err(Unexpressible::CfaDeref)
        );
        assert_eq!(expressible(Version::V3, Abi::Amd64, &e), Ok(()));
    }
}
