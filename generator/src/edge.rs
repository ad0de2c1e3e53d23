//! Edge-biased choices: values at the limits of each field width drawn more often than
//! uniform sampling would draw them.
//!
//! Every picker takes its first candidate when the input is exhausted (`Unstructured`
//! answers the lower bound of every range then), so the first candidate is always the most
//! ordinary value: running out of fuzz input yields plain sections, not degenerate ones.

use arbitrary::{Result, Unstructured};
use sframe_spec::DataWordSize;

/// One of `edges`, or (about half of the time) a value from `random`.
pub fn pick<T: Copy>(
    u: &mut Unstructured,
    edges: &[T],
    random: impl FnOnce(&mut Unstructured) -> Result<T>,
) -> Result<T> {
    if edges.is_empty() || !u.ratio(1u8, 2)? {
        return random(u);
    }
    Ok(*u.choose(edges)?)
}

/// True with probability `n / d`, false on zero bytes and exhausted input (unlike
/// `Unstructured::ratio`, which answers true then): for switching on rare features, so that
/// shrunk inputs switch them off.
pub fn chance(u: &mut Unstructured, n: u8, d: u8) -> Result<bool> {
    Ok(u.int_in_range(0..=d - 1)? >= d - n)
}

/// Signed range of a data word of `size`.
pub fn word_range(size: DataWordSize) -> (i32, i32) {
    match size {
        DataWordSize::B1 => (i32::from(i8::MIN), i32::from(i8::MAX)),
        DataWordSize::B2 => (i32::from(i16::MIN), i32::from(i16::MAX)),
        DataWordSize::B4 => (i32::MIN, i32::MAX),
    }
}

/// A data word that fits `size`: 0, ±1, ±8, ±16, the limits of the width and their
/// neighbours, or anything in range.
pub fn word(u: &mut Unstructured, size: DataWordSize) -> Result<i32> {
    let (lo, hi) = word_range(size);
    let edges = [8, 0, 1, -1, -8, 16, -16, lo, hi, lo + 1, hi - 1];
    pick(u, &edges, |u| u.int_in_range(lo..=hi))
}

/// A data word that fits `size` and is even (s390x v3 RA/FP offsets, which are never
/// register numbers).
pub fn even_word(u: &mut Unstructured, size: DataWordSize) -> Result<i32> {
    Ok(word(u, size)? & !1)
}

/// A data word that fits `size` and is not zero.
pub fn nonzero_word(u: &mut Unstructured, size: DataWordSize) -> Result<i32> {
    Ok(match word(u, size)? {
        0 => -8,
        w => w,
    })
}

/// A count in `min..=max`: the minimum, one more, the maximum, or anything between.
pub fn count(u: &mut Unstructured, min: usize, max: usize) -> Result<usize> {
    if max <= min {
        return Ok(min);
    }
    let edges = [min, min + 1, max];
    pick(u, &edges, |u| u.int_in_range(min..=max))
}

/// A function size in `1..=max`: small sizes, the FRE-type boundaries 255/256/65535/65536
/// (and neighbours), the maximum, or anything.
pub fn function_size(u: &mut Unstructured, max: u32) -> Result<u32> {
    let max = max.max(1);
    let edges = [16, 1, 2, 255, 256, 257, 65535, 65536, 65537, u32::MAX, max];
    let v = pick(u, &edges, |u| {
        if u.ratio(3u8, 4)? {
            u.int_in_range(1..=max.min(4096))
        } else {
            u.int_in_range(1..=max)
        }
    })?;
    Ok(v.clamp(1, max))
}

/// An `i8` for a header field: 0, ±1, -8, -16, the limits, or anything.
pub fn small_i8(u: &mut Unstructured) -> Result<i8> {
    pick(u, &[0, -8, -16, 1, -1, i8::MIN, i8::MAX], |u| u.arbitrary())
}

/// A byte value in `lo..=hi` other than `avoid` (the choice falls back to `lo`/`hi` when
/// `avoid` is drawn).
pub fn u8_other_than(u: &mut Unstructured, lo: u8, hi: u8, avoid: &[u8]) -> Result<u8> {
    let v = pick(u, &[lo, hi], |u| u.int_in_range(lo..=hi))?;
    if !avoid.contains(&v) {
        return Ok(v);
    }
    Ok((lo..=hi).rev().find(|x| !avoid.contains(x)).unwrap_or(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exhausted_input_gives_the_first_candidate() {
        let mut u = Unstructured::new(&[]);
        assert_eq!(word(&mut u, DataWordSize::B1).unwrap(), 8);
        assert_eq!(function_size(&mut u, u32::MAX).unwrap(), 16);
        assert_eq!(count(&mut u, 2, 9).unwrap(), 2);
        assert!(!chance(&mut u, 1, 2).unwrap());
        assert!(!chance(&mut Unstructured::new(&[0]), 7, 8).unwrap());
        assert!(chance(&mut Unstructured::new(&[7]), 1, 8).unwrap());
    }

    #[test]
    fn words_fit_their_size() {
        let data: Vec<u8> = (0..4096u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let mut u = Unstructured::new(&data);
        for size in DataWordSize::ALL {
            for _ in 0..200 {
                let w = word(&mut u, size).unwrap();
                assert!(size.fits_signed(i64::from(w)), "{w} does not fit {size:?}");
                assert_eq!(even_word(&mut u, size).unwrap() & 1, 0);
                assert_ne!(nonzero_word(&mut u, size).unwrap(), 0);
            }
        }
    }
}
