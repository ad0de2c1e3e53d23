//! Turning the raw numbers a foreign API returns into [`Loc`] recovery rules.
//!
//! Foreign implementations (libsframe, simple-frame-rs) hand out *offsets*: "the CFA is the
//! SP/FP plus N", "the RA offset is M", "no FP offset is present". What those numbers mean is
//! the format's documented semantics, applied here once, identically for every foreign
//! implementation, so that the comparison is about which numbers each implementation
//! extracts, not about how each adapter reads them:
//!
//! - CFA: base register SP or FP of the ABI (v3 manual §2.4.1 `fre_cfa_base_reg_id`), plus
//!   the offset as returned (libsframe and simple-frame-rs already undo the s390x scaling);
//! - RA/FP at a fixed header offset, or tracked in the FRE: the stack slot at CFA+offset;
//!   not present: unchanged; on s390x an RA offset of `SFRAME_FRE_RA_OFFSET_INVALID` (0)
//!   means unchanged and, in v2 only, an odd offset names a DWARF register
//!   (v3 manual §1.3, §3.1.3);
//! - flex FDEs (v3 §3.2): a control word (`reg_p`, `deref_p`, `regnum`) and an offset.

use sframe_spec::constants::{
    s390x_v2_offset_decode_regnum, s390x_v2_offset_is_regnum, CFA_FIXED_OFFSET_INVALID,
    FRE_RA_OFFSET_INVALID,
};
use sframe_spec::{Abi, Base, Loc};

/// The CFA rule of a default-type row: `base_reg_id` 0 is FP, 1 is SP.
pub fn cfa(abi: Abi, base_reg_id: u8, offset: i64) -> Loc {
    let regs = abi.regs();
    let reg = if base_reg_id & 1 == 1 {
        regs.sp
    } else {
        regs.fp
    };
    Loc::Expr {
        base: Base::Reg(u32::from(reg)),
        offset,
        deref: false,
    }
}

/// The stack slot at CFA + `offset`.
pub fn slot(offset: i64) -> Loc {
    Loc::Expr {
        base: Base::Cfa,
        offset,
        deref: true,
    }
}

/// The rule for an RA or FP offset taken from the header (`fixed` != 0).
pub fn fixed(fixed: i8) -> Option<Loc> {
    (fixed != CFA_FIXED_OFFSET_INVALID).then(|| slot(i64::from(fixed)))
}

/// The rule for an RA (`is_ra`) or FP offset read from an FRE of a default-type FDE.
pub fn tracked(abi: Abi, version: u8, offset: i64, is_ra: bool) -> Loc {
    if abi == Abi::S390x {
        if is_ra && offset == FRE_RA_OFFSET_INVALID {
            return Loc::SameValue;
        }
        if version == 2 && s390x_v2_offset_is_regnum(offset) {
            let reg = s390x_v2_offset_decode_regnum(offset);
            return Loc::Expr {
                base: Base::Reg(reg as u32),
                offset: 0,
                deref: false,
            };
        }
    }
    slot(offset)
}

/// The rule of a flex pair: control word (read unsigned) and offset (v3 manual §3.2).
pub fn flex(control: u64, offset: i64) -> Loc {
    let reg_p = control & 1 != 0;
    let deref = control & 2 != 0;
    let base = if reg_p {
        Base::Reg((control >> 3) as u32)
    } else {
        Base::Cfa
    };
    Loc::Expr {
        base,
        offset,
        deref,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s390x_padding_and_v2_register_numbers() {
        assert_eq!(tracked(Abi::S390x, 3, 0, true), Loc::SameValue);
        assert_eq!(
            tracked(Abi::S390x, 2, (14 << 1) | 1, true),
            Loc::Expr {
                base: Base::Reg(14),
                offset: 0,
                deref: false
            }
        );
        assert_eq!(tracked(Abi::Amd64, 2, -16, false), slot(-16));
        assert_eq!(
            cfa(Abi::Aarch64Le, 1, 16),
            Loc::Expr {
                base: Base::Reg(31),
                offset: 16,
                deref: false
            }
        );
    }

    #[test]
    fn flex_control_words_follow_section_3_2() {
        // (RBP << 3) | deref | reg: *(rbp - 8)
        assert_eq!(
            flex((6 << 3) | 3, -8),
            Loc::Expr {
                base: Base::Reg(6),
                offset: -8,
                deref: true
            }
        );
        assert_eq!(flex(2, -8), slot(-8));
    }
}
