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

use sframe_spec::recovery::Control;
use sframe_spec::{Abi, Base, Loc, Version};

/// Section-wide facts a foreign adapter needs to read its rows: the ABI, the version byte
/// and the header's fixed FP and RA offsets, as the implementation reported them.
#[derive(Debug, Clone, Copy)]
pub struct Ctx {
    pub abi: Abi,
    pub version: u8,
    pub fixed_fp: i8,
    pub fixed_ra: i8,
}

/// The CFA rule of a default-type row: `base_reg_id` 0 is FP, 1 is SP.
pub fn cfa(abi: Abi, base_reg_id: u8, offset: i64) -> Loc {
    let regs = abi.regs();
    let reg = if base_reg_id & sframe_spec::layout::fre_info::BASE_REG_MASK != 0 {
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

/// The stack slot at CFA + `offset` ([`Loc::slot`]).
pub fn slot(offset: i64) -> Loc {
    Loc::slot(offset)
}

/// The rule for an RA or FP offset taken from the header ([`Loc::fixed`]).
pub fn fixed(fixed: i8) -> Option<Loc> {
    Loc::fixed(fixed)
}

/// The rule for an RA (`is_ra`) or FP offset read from an FRE of a default-type FDE
/// ([`Loc::tracked`], as the reference reads it).
pub fn tracked(abi: Abi, version: u8, offset: i64, is_ra: bool) -> Loc {
    // Only v2's reading differs; a version byte the format does not define reads as v3.
    let version = Version::from_u8(version).unwrap_or(Version::V3);
    Loc::tracked(abi, version, offset, is_ra, false)
}

/// The rule of a flex pair: control word (read unsigned) and offset (v3 manual §3.2).
pub fn flex(control: u64, offset: i64) -> Loc {
    // The signed reading of the word gives the same low 32 bits of the register number.
    Control::from_word_sign_extended(control as i64).rule(offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    // The words below are literal on purpose: they are the encodings the texts give (v2
    // Errata 1 `(regnum << 1) | 1`; v3 §3.2 control words), the expected input of the decoder
    // under test, not values taken from the spec crate's encoder.
    #[test]
    fn s390x_padding_and_v2_register_numbers() {
        assert_eq!(tracked(Abi::S390x, 3, 0, true), Loc::SameValue);
        assert_eq!(tracked(Abi::S390x, 2, (14 << 1) | 1, true), Loc::reg(14, 0));
        assert_eq!(tracked(Abi::Amd64, 2, -16, false), slot(-16));
        assert_eq!(cfa(Abi::Aarch64Le, 1, 16), Loc::reg(31, 16));
    }

    #[test]
    fn flex_control_words_follow_section_3_2() {
        // (RBP << 3) | deref | reg: *(rbp - 8)
        assert_eq!(flex((6 << 3) | 3, -8), Loc::at_reg(6, -8));
        assert_eq!(flex(2, -8), slot(-8));
    }
}
