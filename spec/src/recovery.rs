//! Recovery rules: what an FRE says about the caller's CFA, return address and frame pointer.
//!
//! One function, [`recovery_rules`], interprets a row's data words for every version, ABI
//! and FDE type (v3 manual §3.1 default type per ABI, §3.2 flexible type; v1/v2 "SFrame FRE"
//! ordering of tracked offsets; s390x CFA scaling and v2 register-number offsets). The
//! validator, the unwinder, the dumper and the oracle all go through it.

use crate::constants::*;
use crate::quirks::{Quirk, Quirks};
use crate::rules::Rule;

/// Where a recovered value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "rule", rename_all = "snake_case"))]
pub enum Loc {
    /// `value = base + offset`, or `value = *(base + offset)` when `deref`.
    Expr {
        base: Base,
        offset: i64,
        deref: bool,
    },
    /// Not saved by this frame: the register still holds the caller's value.
    SameValue,
    /// The return address is undefined: this is the outermost frame (data-word count 0,
    /// v3 manual §2.4.1, v2 Errata 2).
    Undefined,
}

/// Base of an expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Base {
    /// The CFA just recovered.
    Cfa,
    /// A DWARF register of the ABI.
    Reg(u32),
}

impl std::fmt::Display for Base {
    /// `cfa`, or the DWARF register as `rN`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Base::Cfa => f.write_str("cfa"),
            Base::Reg(n) => write!(f, "r{n}"),
        }
    }
}

impl std::fmt::Display for Loc {
    /// `r7+16` (a value), `*(cfa-8)` (the value at an address), `same`, `undefined`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Loc::Expr {
            base,
            offset,
            deref,
        } = *self
        else {
            return f.write_str(if *self == Loc::SameValue {
                "same"
            } else {
                "undefined"
            });
        };
        let e = if offset == 0 {
            base.to_string()
        } else {
            format!("{base}{offset:+}")
        };
        if deref {
            write!(f, "*({e})")
        } else {
            f.write_str(&e)
        }
    }
}

impl std::fmt::Display for Recovery {
    /// `cfa=r7+16 ra=*(cfa-8) fp=*(cfa-16)`, and ` (ra mangled)` when it is.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cfa={} ra={} fp={}", self.cfa, self.ra, self.fp)?;
        if self.ra_mangled {
            f.write_str(" (ra mangled)")?;
        }
        Ok(())
    }
}

/// The rules of one row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Recovery {
    /// Never based on `Base::Cfa`. `Undefined` when the RA is undefined.
    pub cfa: Loc,
    pub ra: Loc,
    pub fp: Loc,
    /// `fre_mangled_ra_p`: the recovered RA carries authentication bits.
    pub ra_mangled: bool,
}

impl Recovery {
    /// The row of the outermost frame: RA undefined (an FRE without data words, v3 manual
    /// §2.4.1, v2 Errata 2), and so no CFA; the FP unchanged.
    pub const fn outermost(ra_mangled: bool) -> Recovery {
        Recovery {
            cfa: Loc::Undefined,
            ra: Loc::Undefined,
            fp: Loc::SameValue,
            ra_mangled,
        }
    }
}

/// A row some of whose rules are not known: what a reader answered (`None` for a rule it
/// could not interpret or does not report), or what a CFI row asks of an SFrame row (`None`
/// for a rule no SFrame row can give). Compared rule by rule with a [`Recovery`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PartialRecovery {
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub cfa: Option<Loc>,
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub ra: Option<Loc>,
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub fp: Option<Loc>,
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub ra_mangled: Option<bool>,
}

impl PartialRecovery {
    /// A row none of whose rules is known, but whether the RA is mangled.
    pub fn unknown(ra_mangled: bool) -> PartialRecovery {
        PartialRecovery {
            ra_mangled: Some(ra_mangled),
            ..PartialRecovery::default()
        }
    }

    /// The row of the outermost frame ([`Recovery::outermost`]).
    pub fn outermost(ra_mangled: bool) -> PartialRecovery {
        Recovery::outermost(ra_mangled).into()
    }
}

impl From<Recovery> for PartialRecovery {
    fn from(r: Recovery) -> PartialRecovery {
        PartialRecovery {
            cfa: Some(r.cfa),
            ra: Some(r.ra),
            fp: Some(r.fp),
            ra_mangled: Some(r.ra_mangled),
        }
    }
}

/// Section-wide facts that the interpretation of a row depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowContext {
    pub version: Version,
    pub abi: Abi,
    pub cfa_fixed_fp_offset: i8,
    pub cfa_fixed_ra_offset: i8,
    /// Known deviations to reproduce ([`Quirks::NONE`] for the reference).
    pub quirks: Quirks,
}

/// One row's stored facts.
#[derive(Debug, Clone, Copy)]
pub struct Row<'a> {
    pub fde_type: FdeType,
    pub base_reg: BaseReg,
    pub mangled_ra: bool,
    pub dataword_size: DataWordSize,
    /// Data words, sign-extended.
    pub words: &'a [i64],
}

/// Whether a reader that predates the v2 errata's s390x ABI reads this v2 row
/// ([`Quirk::S390xV2Unknown`]).
fn s390x_unknown(ctx: &RowContext) -> bool {
    ctx.version == Version::V2 && ctx.quirks.has(Quirk::S390xV2Unknown)
}

/// `SFRAME_V2_S390X_CFA_OFFSET_DECODE`, in 32-bit arithmetic under
/// [`Quirk::S390xCfaDecode32`].
fn s390x_cfa_decode(ctx: &RowContext, stored: i64) -> i64 {
    if ctx.quirks.has(Quirk::S390xCfaDecode32) {
        i64::from(
            (stored as i32)
                .wrapping_mul(S390X_CFA_OFFSET_ALIGNMENT_FACTOR as i32)
                .wrapping_sub(S390X_CFA_OFFSET_ADJUSTMENT as i32),
        )
    } else {
        s390x_cfa_offset_decode(stored)
    }
}

impl Loc {
    /// The value of DWARF register `reg` plus `offset`.
    pub const fn reg(reg: u32, offset: i64) -> Loc {
        Loc::Expr {
            base: Base::Reg(reg),
            offset,
            deref: false,
        }
    }

    /// The value at the address in DWARF register `reg` plus `offset`.
    pub const fn at_reg(reg: u32, offset: i64) -> Loc {
        Loc::Expr {
            base: Base::Reg(reg),
            offset,
            deref: true,
        }
    }

    /// The stack slot at CFA + `offset`.
    pub const fn slot(offset: i64) -> Loc {
        Loc::Expr {
            base: Base::Cfa,
            offset,
            deref: true,
        }
    }

    /// The rule for an RA or FP offset taken from the header: the slot at CFA + `offset`,
    /// none for `SFRAME_CFA_FIXED_{FP,RA}_INVALID` (0).
    pub fn fixed(offset: i8) -> Option<Loc> {
        (offset != CFA_FIXED_OFFSET_INVALID).then(|| Loc::slot(i64::from(offset)))
    }

    /// The rule for an RA (`is_ra`) or FP offset tracked in an FRE of a default-type FDE:
    /// the slot at CFA + `offset`, except on s390x (unless `s390x_as_slots`), where an RA
    /// offset of `SFRAME_FRE_RA_OFFSET_INVALID` is unchanged and a v2 odd offset names a
    /// DWARF register (v3 manual §1.3, §3.1.3).
    pub fn tracked(
        abi: Abi,
        version: Version,
        offset: i64,
        is_ra: bool,
        s390x_as_slots: bool,
    ) -> Loc {
        if abi == Abi::S390x && !s390x_as_slots {
            if is_ra && offset == FRE_RA_OFFSET_INVALID {
                return Loc::SameValue;
            }
            if version == Version::V2 && s390x_v2_offset_is_regnum(offset) {
                let reg = s390x_v2_offset_decode_regnum(offset);
                return Loc::Expr {
                    base: Base::Reg(reg as u32),
                    offset: 0,
                    deref: false,
                };
            }
        }
        Loc::slot(offset)
    }
}

/// Interpret a tracked RA/FP offset of a default-type FDE.
fn tracked(ctx: &RowContext, offset: i64, is_ra: bool) -> Loc {
    let as_slots = ctx.version == Version::V2 && ctx.quirks.has(Quirk::S390xV2RegsAsSlots);
    Loc::tracked(ctx.abi, ctx.version, offset, is_ra, as_slots)
}

/// The recovery rules of a row, or the rule its data words break.
pub fn recovery_rules(ctx: &RowContext, row: &Row<'_>) -> Result<Recovery, Rule> {
    let w = row.words;
    if w.is_empty() && ctx.version == Version::V2 && ctx.quirks.has(Quirk::RaUndefinedCfaErrorV2) {
        // SFRAME_ERR, what the getter returns for an absent data word.
        return Ok(default_rules(
            ctx,
            &Row {
                words: &[-1],
                ..*row
            },
        ));
    }
    if w.is_empty() && ctx.version == Version::V2 && ctx.quirks.has(Quirk::RaUndefinedUnknownV2) {
        // An ordinary row with no CFA offset: the getters report the CFA offset as not
        // present, the RA and FP as the header's fixed offsets or not saved.
        let ordinary = default_rules(
            ctx,
            &Row {
                words: &[0],
                ..*row
            },
        );
        return Ok(Recovery {
            cfa: Loc::Undefined,
            ..ordinary
        });
    }
    if w.is_empty() {
        if ctx.version == Version::V1 {
            return Err(Rule::FreCountZeroV1);
        }
        return Ok(Recovery::outermost(row.mangled_ra));
    }
    match row.fde_type {
        FdeType::Default => Ok(default_rules(ctx, row)),
        FdeType::Flex => flex_rules(ctx, row),
    }
}

fn default_rules(ctx: &RowContext, row: &Row<'_>) -> Recovery {
    let w = row.words;
    let regs = ctx.abi.regs();
    let base = match row.base_reg {
        BaseReg::Sp => regs.sp,
        BaseReg::Fp => regs.fp,
    };
    let cfa_offset = if ctx.abi == Abi::S390x && ctx.version != Version::V1 && !s390x_unknown(ctx) {
        s390x_cfa_decode(ctx, w[0])
    } else {
        w[0]
    };
    let cfa = Loc::Expr {
        base: Base::Reg(u32::from(base)),
        offset: cfa_offset,
        deref: false,
    };
    if ctx.quirks.has(Quirk::RaFpByAbi) && ctx.version != Version::V1 {
        let word = |i: usize, is_ra| w.get(i).map_or(Loc::SameValue, |&o| tracked(ctx, o, is_ra));
        let (ra, fp) = if ctx.abi == Abi::Amd64 {
            (
                Loc::fixed(ctx.cfa_fixed_ra_offset).unwrap_or(Loc::SameValue),
                word(1, false),
            )
        } else {
            (word(1, true), word(2, false))
        };
        return Recovery {
            cfa,
            ra,
            fp,
            ra_mangled: row.mangled_ra,
        };
    }
    // v1/v2 "SFrame FRE": RA is tracked when the header gives no fixed RA offset; then the
    // second offset is the RA and the third the FP, else the second is the FP.
    let ra_tracked = ctx.cfa_fixed_ra_offset == CFA_FIXED_OFFSET_INVALID;
    let ra = match Loc::fixed(ctx.cfa_fixed_ra_offset) {
        Some(_) if ctx.quirks.has(Quirk::FixedRaUnreported) => Loc::SameValue,
        Some(l) => l,
        None => w.get(1).map_or(Loc::SameValue, |&o| tracked(ctx, o, true)),
    };
    let fp_idx = if ra_tracked { 2 } else { 1 };
    let fp = match Loc::fixed(ctx.cfa_fixed_fp_offset) {
        Some(_) if ctx.quirks.has(Quirk::FixedFpUnreported) => Loc::SameValue,
        Some(l) => l,
        None => w
            .get(fp_idx)
            .map_or(Loc::SameValue, |&o| tracked(ctx, o, false)),
    };
    Recovery {
        cfa,
        ra,
        fp,
        ra_mangled: row.mangled_ra,
    }
}

/// A flex control word's fields (v3 manual §3.2, "Encoding of Data Word 1").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Control {
    pub reg_p: bool,
    pub deref_p: bool,
    pub unused: bool,
    pub regnum: u32,
}

impl Control {
    /// The value of register `regnum` (with `deref`, the value at its address).
    pub const fn register(regnum: u32, deref: bool) -> Control {
        Control {
            reg_p: true,
            deref_p: deref,
            unused: false,
            regnum,
        }
    }
    /// The CFA (with `deref`, the value at it): "RA = *(CFA + offset)" and the like.
    pub const fn cfa(deref: bool) -> Control {
        Control {
            reg_p: false,
            deref_p: deref,
            unused: false,
            regnum: 0,
        }
    }
    pub fn from_word(word: i64, size: DataWordSize) -> Control {
        let bits = 8 * size.bytes() as u32;
        let u = (word as u64) & ((1u64 << bits) - 1);
        Control {
            reg_p: u & 1 != 0,
            deref_p: u & 2 != 0,
            unused: u & 4 != 0,
            regnum: (u >> 3) as u32,
        }
    }
    /// The fields as a reader that keeps the word sign-extended sees them
    /// ([`Quirk::FlexControlSignExtended`]): the register number is the arithmetic shift of
    /// the signed word, truncated to 32 bits.
    pub fn from_word_sign_extended(word: i64) -> Control {
        Control {
            reg_p: word & 1 != 0,
            deref_p: word & 2 != 0,
            unused: word & 4 != 0,
            regnum: (word >> 3) as u32,
        }
    }
    /// The sign-extended data word holding this control word (how the model stores it).
    pub fn to_word(self, size: DataWordSize) -> i64 {
        let u = (u64::from(self.regnum) << 3)
            | ((self.unused as u64) << 2)
            | ((self.deref_p as u64) << 1)
            | self.reg_p as u64;
        let bits = 8 * size.bytes() as u32;
        let shift = 64 - bits;
        ((u << shift) as i64) >> shift
    }
    pub fn is_padding(self) -> bool {
        !self.reg_p && !self.deref_p && !self.unused && self.regnum == 0
    }
    /// The rule of this control word with its `offset` word.
    pub fn rule(self, offset: i64) -> Loc {
        let base = if self.reg_p {
            Base::Reg(self.regnum)
        } else {
            Base::Cfa
        };
        Loc::Expr {
            base,
            offset,
            deref: self.deref_p,
        }
    }
}

fn flex_rules(ctx: &RowContext, row: &Row<'_>) -> Result<Recovery, Rule> {
    let w = row.words;
    let ctl = |i: usize| {
        if ctx.quirks.has(Quirk::FlexControlSignExtended) {
            Control::from_word_sign_extended(w[i])
        } else {
            Control::from_word(w[i], row.dataword_size)
        }
    };
    if w.len() < 2 {
        return Err(Rule::FlexLayout);
    }
    let cfa_ctl = ctl(0);
    if !cfa_ctl.reg_p {
        return Err(Rule::FlexCfaRegister);
    }
    // On s390x the CFA offset is stored adjusted and scaled in flex FDEs too, as GNU as
    // writes it and libsframe reads it; the manual states it for default FDEs only
    // (discrepancy D-V3-S390X-FLEX-CFA-SCALE, finding F0107).
    let cfa_offset = if ctx.abi == Abi::S390x && !ctx.quirks.has(Quirk::S390xFlexCfaUnscaled) {
        s390x_cfa_decode(ctx, w[1])
    } else {
        w[1]
    };
    let cfa = cfa_ctl.rule(cfa_offset);
    // The rule of an RA or FP control word with its offset word.
    let saved = |c: Control, offset: i64| {
        if !c.reg_p && ctx.quirks.has(Quirk::FlexCfaBaseDerefIgnored) {
            Control { deref_p: true, ..c }.rule(offset)
        } else {
            c.rule(offset)
        }
    };
    let mut i = 2;
    // RA: a control/offset pair, or one padding word (then an FP pair must follow), or nothing.
    let default_ra = Loc::fixed(ctx.cfa_fixed_ra_offset).unwrap_or(Loc::SameValue);
    let ra = if w.len() > i {
        let c = ctl(i);
        if c.is_padding() {
            i += 1;
            if w.len() == i {
                return Err(Rule::FlexLayout);
            }
            default_ra
        } else {
            let off = *w.get(i + 1).ok_or(Rule::FlexLayout)?;
            i += 2;
            saved(c, off)
        }
    } else {
        default_ra
    };
    let fp = if w.len() > i {
        let c = ctl(i);
        if c.is_padding() {
            return Err(Rule::FlexFpControl);
        }
        let off = *w.get(i + 1).ok_or(Rule::FlexLayout)?;
        i += 2;
        saved(c, off)
    } else if ctx.quirks.has(Quirk::FlexFixedFpUnreported) {
        Loc::SameValue
    } else {
        Loc::fixed(ctx.cfa_fixed_fp_offset).unwrap_or(Loc::SameValue)
    };
    if w.len() > i {
        return Err(Rule::FlexLayout);
    }
    Ok(Recovery {
        cfa,
        ra,
        fp,
        ra_mangled: row.mangled_ra,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(version: Version, abi: Abi) -> RowContext {
        let ra = if abi == Abi::Amd64 { -8 } else { 0 };
        RowContext {
            version,
            abi,
            cfa_fixed_fp_offset: 0,
            cfa_fixed_ra_offset: ra,
            quirks: Quirks::NONE,
        }
    }
    fn row(fde_type: FdeType, words: &[i64]) -> Row<'_> {
        Row {
            fde_type,
            base_reg: BaseReg::Sp,
            mangled_ra: false,
            dataword_size: DataWordSize::B1,
            words,
        }
    }

    #[test]
    fn fixed_fp_quirks_report_the_fp_as_not_saved() {
        // objdump 2.40: a fixed FP offset in the header prints 'u' (F0121).
        let mut c = ctx(Version::V1, Abi::Aarch64Le);
        c.cfa_fixed_fp_offset = -16;
        let words = [16, -8];
        let r = recovery_rules(&c, &row(FdeType::Default, &words)).unwrap();
        assert_eq!(r.fp, Loc::slot(-16));
        c.quirks = Quirks::NONE.with(Quirk::FixedFpUnreported);
        let r = recovery_rules(&c, &row(FdeType::Default, &words)).unwrap();
        assert_eq!(r.fp, Loc::SameValue);
        assert_eq!(r.ra, Loc::slot(-8));
        // objdump 2.47: a flex row without FP words prints 'u' despite the fixed FP (F0151).
        let mut c = ctx(Version::V3, Abi::Amd64);
        c.cfa_fixed_fp_offset = -16;
        let sp = Control::register(7, false).to_word(DataWordSize::B1);
        let words = [sp, 16];
        let r = recovery_rules(&c, &row(FdeType::Flex, &words)).unwrap();
        assert_eq!(r.fp, Loc::slot(-16));
        c.quirks = Quirks::NONE.with(Quirk::FlexFixedFpUnreported);
        let r = recovery_rules(&c, &row(FdeType::Flex, &words)).unwrap();
        assert_eq!(r.fp, Loc::SameValue);
        // Default FDEs keep the fixed FP (dump_sframe_func_fres_simple prints it).
        let r = recovery_rules(&c, &row(FdeType::Default, &[16])).unwrap();
        assert_eq!(r.fp, Loc::slot(-16));
    }

    #[test]
    fn flex_cfa_based_rules_print_as_slots_in_objdump_2_47() {
        // What s390x-linux-gnu-objdump 2.47.50.20261021 (Debian sid) printed for one-row
        // flex FDEs (corpus/findings/F0156): words [0x59, 0, 0, 0x20, 0] -> `fp+160  c+0  U`,
        // the same text as for 0x22 (deref_p set); [0x59, 0, 0x20, -8, 0x22, -16] -> `fp+160
        // c-16  c-8`; [0x59, 0, 0, 0x21, 8] -> `r4+8`, [0x59, 0, 0, 0x23, 8] -> `(r4+8)`.
        let mut c = ctx(Version::V3, Abi::S390x);
        let flex =
            |c: &RowContext, words: &[i64]| recovery_rules(c, &row(FdeType::Flex, words)).unwrap();
        // The texts: deref_p 0 is the value CFA + offset (v3 manual §3.2, "Recovery Rules").
        let value = Loc::Expr {
            base: Base::Cfa,
            offset: 0,
            deref: false,
        };
        assert_eq!(flex(&c, &[0x59, 0, 0, 0x20, 0]).fp, value);
        c.quirks = Quirks::NONE.with(Quirk::FlexCfaBaseDerefIgnored);
        let r = flex(&c, &[0x59, 0, 0, 0x20, 0]);
        assert_eq!(r.cfa, Loc::reg(11, 160));
        assert_eq!(r.fp, Loc::slot(0));
        assert_eq!(flex(&c, &[0x59, 0, 0, 0x22, 0]).fp, Loc::slot(0));
        let r = flex(&c, &[0x59, 0, 0x20, -8, 0x22, -16]);
        assert_eq!((r.ra, r.fp), (Loc::slot(-8), Loc::slot(-16)));
        // Register-based rules keep their deref_p.
        assert_eq!(flex(&c, &[0x59, 0, 0, 0x21, 8]).fp, Loc::reg(4, 8));
        assert_eq!(flex(&c, &[0x59, 0, 0, 0x23, 8]).fp, Loc::at_reg(4, 8));
    }

    #[test]
    fn a_v2_row_without_words_prints_the_getter_error_as_cfa_offset() {
        // objdump 2.44: sprintf (temp, "%s+%d", ..., cfa_offset) with cfa_offset = SFRAME_ERR.
        let mut c = ctx(Version::V2, Abi::Aarch64Le);
        c.quirks = Quirks::NONE.with(Quirk::RaUndefinedCfaErrorV2);
        let r = recovery_rules(&c, &row(FdeType::Default, &[])).unwrap();
        assert_eq!(r.cfa, Loc::reg(31, -1));
        assert_eq!((r.ra, r.fp), (Loc::SameValue, Loc::SameValue));
    }

    #[test]
    fn amd64_second_offset_is_fp_and_ra_is_fixed() {
        // v3 manual §3.1.1 summary table; §2.2 "in AMD64, the stack offset of the return address is CFA - 8".
        let r = recovery_rules(
            &ctx(Version::V3, Abi::Amd64),
            &row(FdeType::Default, &[16, -16]),
        )
        .unwrap();
        assert_eq!(r.cfa, Loc::reg(7, 16));
        assert_eq!(r.ra, Loc::slot(-8));
        assert_eq!(r.fp, Loc::slot(-16));
    }

    #[test]
    fn aarch64_offsets_are_cfa_ra_fp() {
        // v3 manual §3.1.2 summary table.
        let r = recovery_rules(
            &ctx(Version::V2, Abi::Aarch64Le),
            &row(FdeType::Default, &[32, -8, -16]),
        )
        .unwrap();
        assert_eq!(r.cfa, Loc::reg(31, 32));
        assert_eq!((r.ra, r.fp), (Loc::slot(-8), Loc::slot(-16)));
        let r = recovery_rules(
            &ctx(Version::V3, Abi::Aarch64Le),
            &row(FdeType::Default, &[0]),
        )
        .unwrap();
        assert_eq!((r.ra, r.fp), (Loc::SameValue, Loc::SameValue));
    }

    #[test]
    fn s390x_cfa_is_scaled_and_ra_padding_means_unchanged() {
        // v3 manual §3.1.3: CFA = BASE_REG + offset1 * 8 + 160; RA unchanged when offset2 is
        // SFRAME_FRE_RA_OFFSET_INVALID; FP = CFA + offset3.
        let r = recovery_rules(
            &ctx(Version::V3, Abi::S390x),
            &row(FdeType::Default, &[20, 0, -72]),
        )
        .unwrap();
        assert_eq!(r.cfa, Loc::reg(15, 320));
        assert_eq!((r.ra, r.fp), (Loc::SameValue, Loc::slot(-72)));
    }

    #[test]
    fn s390x_v2_odd_offsets_name_registers() {
        // v3 manual §1.3 (Errata 1): SFRAME_V2_S390X_OFFSET_IS_REGNUM / _DECODE_REGNUM.
        let r = recovery_rules(
            &ctx(Version::V2, Abi::S390x),
            &row(FdeType::Default, &[0, (16 << 1) | 1, (17 << 1) | 1]),
        )
        .unwrap();
        assert_eq!(r.ra, Loc::reg(16, 0));
        assert_eq!(r.fp, Loc::reg(17, 0));
    }

    #[test]
    fn zero_words_mean_ra_undefined_except_in_v1() {
        let r = recovery_rules(&ctx(Version::V2, Abi::Amd64), &row(FdeType::Default, &[])).unwrap();
        assert_eq!(r.ra, Loc::Undefined);
        assert_eq!(
            recovery_rules(&ctx(Version::V1, Abi::Amd64), &row(FdeType::Default, &[])),
            Err(Rule::FreCountZeroV1)
        );
    }

    #[test]
    fn flex_examples_of_the_manual() {
        // v3 manual §3.2 examples: CFA = *(RBP - 8): (RBP << 3) | (1 << 1) | 1, -8;
        // RA = *(CFA - 8): (0 << 3) | (1 << 1) | 0, -8; FP = *(RBP + 0).
        let s = DataWordSize::B1;
        let rbp_deref = Control::register(6, true).to_word(s);
        assert_eq!(rbp_deref as u8, (6 << 3) | 2 | 1);
        let cfa_deref = Control::cfa(true).to_word(s);
        let c = ctx(Version::V3, Abi::Amd64);
        let r = recovery_rules(
            &c,
            &row(FdeType::Flex, &[rbp_deref, -8, cfa_deref, -8, rbp_deref, 0]),
        )
        .unwrap();
        assert_eq!(r.cfa, Loc::at_reg(6, -8));
        assert_eq!(r.ra, Loc::slot(-8));
        assert_eq!(r.fp, Loc::at_reg(6, 0));
        // padding word for RA, then FP pair: RA from the header's fixed offset.
        let r = recovery_rules(&c, &row(FdeType::Flex, &[rbp_deref, -8, 0, rbp_deref, 0])).unwrap();
        assert_eq!(r.ra, Loc::slot(-8));
        // CFA without a register, padding without FP, FP control 0, trailing words.
        assert_eq!(
            recovery_rules(&c, &row(FdeType::Flex, &[cfa_deref, -8])),
            Err(Rule::FlexCfaRegister)
        );
        assert_eq!(
            recovery_rules(&c, &row(FdeType::Flex, &[rbp_deref, -8, 0])),
            Err(Rule::FlexLayout)
        );
        assert_eq!(
            recovery_rules(
                &c,
                &row(FdeType::Flex, &[rbp_deref, -8, cfa_deref, -8, 0, 0])
            ),
            Err(Rule::FlexFpControl)
        );
        assert_eq!(
            recovery_rules(&c, &row(FdeType::Flex, &[rbp_deref, -8, cfa_deref])),
            Err(Rule::FlexLayout)
        );
        assert_eq!(
            recovery_rules(
                &c,
                &row(
                    FdeType::Flex,
                    &[rbp_deref, -8, cfa_deref, -8, rbp_deref, 0, 1]
                )
            ),
            Err(Rule::FlexLayout)
        );
    }

    #[test]
    fn s390x_flex_cfa_offsets_are_scaled_like_default_ones() {
        // GNU as 2.47 and libsframe 2.47 (finding F0107), confirmed by the emulator: a flex
        // CFA word of 0 based on r15 means CFA = r15 + 160.
        let s = DataWordSize::B1;
        let r15 = Control::register(15, false).to_word(s);
        let r = recovery_rules(
            &ctx(Version::V3, Abi::S390x),
            &row(FdeType::Flex, &[r15, 0]),
        )
        .unwrap();
        assert_eq!(r.cfa, Loc::reg(15, 160));
        let r = recovery_rules(
            &ctx(Version::V3, Abi::Amd64),
            &row(FdeType::Flex, &[r15, 0]),
        )
        .unwrap();
        assert_eq!(r.cfa, Loc::reg(15, 0));
    }

    #[test]
    fn control_words_round_trip_through_every_size() {
        for s in DataWordSize::ALL {
            for regnum in [0u32, 6, 15] {
                let c = Control {
                    reg_p: true,
                    deref_p: regnum % 2 == 0,
                    unused: false,
                    regnum,
                };
                let w = c.to_word(s);
                assert!(s.fits_signed(w));
                assert_eq!(Control::from_word(w, s), c);
            }
        }
    }
}
