//! Data words of valid FREs, for each version, ABI and FDE type: the layouts of v3 manual
//! §3.1 (default type, per ABI), §3.2 (flexible type) and the v1/v2 "SFrame FRE" texts.
//!
//! Shared by the generator (valid rows) and the mutator (which starts from a valid row and
//! breaks one thing).

use crate::edge;
use arbitrary::{Result, Unstructured};
use sframe_spec::constants::{
    s390x_cfa_offset_encode, s390x_v2_offset_encode_regnum, S390X_CFA_OFFSET_ALIGNMENT_FACTOR,
    S390X_SP_VAL_OFFSET,
};
use sframe_spec::{Abi, Control, DataWordSize, Version};

/// What decides which rows are valid.
#[derive(Debug, Clone, Copy)]
pub struct RowContext {
    pub version: Version,
    pub abi: Abi,
    /// Rows with no data word (RA undefined) may be drawn (never in v1).
    pub ra_undefined: bool,
    /// v2 s390x RA/FP offsets may encode register numbers.
    pub s390x_regnum_offsets: bool,
}

/// Data-word counts of a valid default-type FRE (v3 manual §3.1; rules FRE-COUNT-*).
pub fn default_counts(version: Version, abi: Abi, ra_undefined: bool) -> Vec<usize> {
    let mut counts: Vec<usize> = match (version, abi) {
        (_, Abi::Amd64) => vec![1, 2],
        (Version::V3, Abi::Aarch64Le | Abi::Aarch64Be) => vec![1, 3],
        _ => vec![1, 2, 3],
    };
    if ra_undefined && version != Version::V1 {
        counts.push(0);
    }
    counts
}

/// Data-word counts of a valid flex FRE (v3 manual §3.2; rule FLEX-LAYOUT).
pub fn flex_counts(ra_undefined: bool) -> Vec<usize> {
    let mut counts = vec![2, 6, 4, 5];
    if ra_undefined {
        counts.push(0);
    }
    counts
}

/// Data words of a valid default-type FRE with `count` words (one of [`default_counts`]).
pub fn default_words(
    u: &mut Unstructured,
    ctx: &RowContext,
    size: DataWordSize,
    count: usize,
) -> Result<Vec<i32>> {
    if count == 0 {
        return Ok(Vec::new());
    }
    let mut w = vec![cfa_offset(u, ctx, size)?];
    if ctx.abi != Abi::S390x {
        for _ in 1..count {
            w.push(edge::word(u, size)?);
        }
        return Ok(w);
    }
    // s390x (v3 manual §3.1.3): offset2 is the RA slot, 0 meaning "not saved" (padding,
    // only when an FP offset follows); offset3 is the FP slot. v3 offsets are never
    // register numbers, so even; v2 odd offsets encode a register number.
    if count >= 2 {
        let ra = s390x_slot(u, ctx, size)?;
        w.push(match (count, ra) {
            (2, 0) => -8,
            (3, _) if edge::chance(u, 1, 4)? => 0,
            _ => ra,
        });
    }
    if count >= 3 {
        w.push(s390x_slot(u, ctx, size)?);
    }
    Ok(w)
}

/// The first data word: the CFA offset; on s390x from v2 on, in its scaled encoded form.
fn cfa_offset(u: &mut Unstructured, ctx: &RowContext, size: DataWordSize) -> Result<i32> {
    if ctx.abi == Abi::S390x && u.ratio(1u8, 2)? {
        // A real CFA offset: SP at call site + 160 (SP = CFA - 160), plus a frame of 8-byte
        // slots.
        let slots: i64 = u.int_in_range(0..=64)?;
        let cfa = -S390X_SP_VAL_OFFSET + S390X_CFA_OFFSET_ALIGNMENT_FACTOR * slots;
        if let Some(stored) = s390x_cfa_offset_encode(cfa) {
            if size.fits_signed(stored) {
                return Ok(stored as i32);
            }
        }
    }
    edge::word(u, size)
}

/// An s390x RA or FP offset: a stack slot (v3: even), or in v2 possibly a register number.
fn s390x_slot(u: &mut Unstructured, ctx: &RowContext, size: DataWordSize) -> Result<i32> {
    if ctx.version == Version::V2 && ctx.s390x_regnum_offsets && edge::chance(u, 1, 3)? {
        // Floating-point registers f0-f15 are DWARF 16-31; any of 0-31 fits every size.
        let reg: i64 = u.int_in_range(0..=31)?;
        return Ok(s390x_v2_offset_encode_regnum(reg) as i32);
    }
    if ctx.version == Version::V3 {
        return edge::even_word(u, size);
    }
    edge::word(u, size)
}

/// Largest register number a control word of `size` holds (bits 3 and up).
pub fn max_regnum(size: DataWordSize) -> u32 {
    Control::from_word(-1, size).regnum
}

/// A register number: the ABI's SP/FP/RA registers, 0, the largest that fits, or any.
fn regnum(u: &mut Unstructured, abi: Abi, size: DataWordSize) -> Result<u32> {
    let r = abi.regs();
    let max = max_regnum(size);
    let edges = [u32::from(r.sp), u32::from(r.fp), u32::from(r.ra), 0, max];
    edge::pick(u, &edges, |u| u.int_in_range(0..=max))
}

/// A control word naming a register (reg_p = 1), as the model stores it.
pub fn register_control(u: &mut Unstructured, abi: Abi, size: DataWordSize) -> Result<i32> {
    let c = Control {
        reg_p: true,
        deref_p: u.arbitrary()?,
        unused: false,
        regnum: regnum(u, abi, size)?,
    };
    Ok(c.to_word(size) as i32)
}

/// A control word for RA or FP that is not the padding value: a register, or the CFA
/// dereferenced (regnum 0, deref_p 1, reg_p 0: "RA = *(CFA + offset)").
fn location_control(u: &mut Unstructured, abi: Abi, size: DataWordSize) -> Result<i32> {
    if u.ratio(1u8, 2)? {
        return Ok(Control::cfa(true).to_word(size) as i32);
    }
    register_control(u, abi, size)
}

/// Data words of a valid flex FRE with `count` words (one of [`flex_counts`]): the CFA pair,
/// then an RA pair or one padding word followed by an FP pair, then the FP pair.
pub fn flex_words(
    u: &mut Unstructured,
    abi: Abi,
    size: DataWordSize,
    count: usize,
) -> Result<Vec<i32>> {
    if count == 0 {
        return Ok(Vec::new());
    }
    let mut w = vec![register_control(u, abi, size)?, edge::word(u, size)?];
    match count {
        2 => {}
        4 | 6 => {
            w.push(location_control(u, abi, size)?);
            w.push(edge::word(u, size)?);
        }
        5 => w.push(0),
        _ => unreachable!("flex data-word count {count} is not a valid layout"),
    }
    if count >= 5 {
        w.push(location_control(u, abi, size)?);
        w.push(edge::word(u, size)?);
    }
    Ok(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_words_fit_their_size() {
        let data: Vec<u8> = (0..8192u32)
            .map(|i| (i.wrapping_mul(0x9e37_79b9) >> 11) as u8)
            .collect();
        let mut u = Unstructured::new(&data);
        for size in DataWordSize::ALL {
            for count in flex_counts(true) {
                let w = flex_words(&mut u, Abi::Amd64, size, count).unwrap();
                assert_eq!(w.len(), count);
                assert!(w.iter().all(|&x| size.fits_signed(i64::from(x))));
                if count > 0 {
                    assert!(Control::from_word(i64::from(w[0]), size).reg_p);
                }
            }
        }
    }
}
