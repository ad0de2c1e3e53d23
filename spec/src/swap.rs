//! The bytes a reader reads a foreign-endian section from after swapping it in place.
//!
//! libsframe 2.44 does not read a foreign-endian section where it lies: `sframe_decode`
//! copies it, swaps the copy with `flip_sframe`, then reads the FDEs and FREs of the copy in
//! host order. The swapping pass and the reading lay the section out differently (the pass
//! follows `sfh_fdeoff` and `sfh_freoff`, the reading does not; both step through v1 FDEs 20
//! bytes apart), so where they differ the reading meets bytes swapped at other boundaries
//! than it reads them at, or not swapped at all. [`read_after_swap`] builds that copy for
//! the reference reading with [`Quirk::ForeignEndianReadAfterSwap`], which then reads it as
//! a host-endian section; a section the reader refuses is refused here too.

use std::borrow::Cow;

use crate::constants::Version;
use crate::error::Violation;
use crate::layout::header as o;
use crate::quirks::{Quirk, Quirks};
use crate::read::SectionRef;
use crate::refusals::HOST;

/// The bytes a reader with `quirks` reads `data` from: with
/// [`Quirk::ForeignEndianReadAfterSwap`] on and `data` a v1 or v2 section of the foreign byte
/// order, a copy swapped as libsframe 2.44's `flip_sframe` swaps it; otherwise `data`
/// itself. The error is the reader's refusal of the section.
pub fn read_after_swap(data: &[u8], quirks: Quirks) -> Result<Cow<'_, [u8]>, Violation> {
    if !quirks.has(Quirk::ForeignEndianReadAfterSwap) {
        return Ok(Cow::Borrowed(data));
    }
    // The reader's refusals (the pass's own checks among them) come first.
    let s = SectionRef::parse_with(data, quirks)?;
    if s.endian() == HOST || s.version() == Version::V3 {
        return Ok(Cow::Borrowed(data));
    }
    // The pass reads the sub-section offsets although `sframe_decode` does not.
    let walk = SectionRef::parse_with(
        data,
        quirks
            .minus(Quirks::REFUSALS)
            .without(Quirk::SubsectionOffsetsIgnored),
    )?;
    Ok(Cow::Owned(swapped(&walk)))
}

/// `s`'s bytes after `flip_header` and `flip_sframe`, in their order: the magic and the five
/// 32-bit header fields; then per FDE, where the pass steps, its start, size, FRE offset and
/// FRE count (`flip_fde`: not the info byte, the repetition size or the padding), then the
/// start and data words of each of its FREs, walked from `sfh_freoff` plus its FRE offset
/// (`flip_fre`), each FRE's info byte read as stored (the pass reads it as swapped so far: the
/// same byte unless a field swapped before covers it). The walk stops where an FDE or an FRE cannot be read (the pass would fail
/// there, or crash; a reader refusing such sections refused it already).
fn swapped(s: &SectionRef<'_>) -> Vec<u8> {
    let mut buf = s.data().to_vec();
    let mut flip = |at: usize, len: usize| {
        if let Some(b) = buf.get_mut(at..at.saturating_add(len)) {
            b.reverse();
        }
    };
    flip(o::MAGIC, 2);
    for at in [o::NUM_FDES, o::NUM_FRES, o::FRE_LEN, o::FDEOFF, o::FREOFF] {
        flip(at, 4);
    }
    for i in 0..s.num_fdes() {
        let at = s.fde_offset(i);
        for k in 0..4 {
            flip(at + 4 * k, 4);
        }
        let Ok(fde) = s.fde(i) else { break };
        for fre in s.fres(&fde) {
            let Ok(fre) = fre else { break };
            flip(fre.offset, fde.fre_type.addr_size());
            for k in 0..fre.dataword_count() {
                flip(fre.dataword_offset(k), fre.dataword_size.bytes());
            }
        }
    }
    buf
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A v1 AArch64 big-endian section (v1 §2.2 header, §2.3 17-byte FDE: start 0x1000, size
    /// 0x20, FRE offset 0, 1 FRE, ADDR2; one FRE: start 0, 2 data words of 4 bytes, CFA
    /// +16, RA -8), then 3 bytes: libsframe 2.44's pass covers exactly the bytes after the
    /// header (20 for the FDE, 11 for the FRE; F0158).
    const V1_BE: [u8; 59] = [
        0xde, 0xe2, 1, 1, 1, 0, 0, 0, // preamble, ABI, fixed offsets, no aux
        0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 11, 0, 0, 0, 0, 0, 0, 0, 17, // counts, offsets
        0, 0, 0x10, 0, 0, 0, 0, 0x20, 0, 0, 0, 0, 0, 0, 0, 1, 0x01, // FDE
        0, 0, 0x45, 0, 0, 0, 0x10, 0xff, 0xff, 0xff, 0xf8, // FRE
        0, 0, 0, // trailing
    ];

    fn libsframe_2_44() -> Quirks {
        [
            Quirk::V1ReadAsV2,
            Quirk::SubsectionOffsetsIgnored,
            Quirk::ForeignEndianExactSize,
            Quirk::ForeignEndianReadAfterSwap,
        ]
        .into_iter()
        .collect()
    }

    /// `flip_header` swaps the magic and the five 32-bit fields; `flip_fde` the FDE's four
    /// 32-bit fields at bytes 28..44 (20 bytes apart, so not the v1 FDE's info byte at 44);
    /// `flip_fre` the FRE at byte 45 (`sfh_freoff` 17): its 2-byte start and its two 4-byte
    /// words at 48 and 52.
    #[test]
    fn the_copy_is_swapped_where_the_pass_walks() {
        let got = read_after_swap(&V1_BE, libsframe_2_44()).expect("not refused");
        let want: [u8; 59] = [
            0xe2, 0xde, 1, 1, 1, 0, 0, 0, //
            1, 0, 0, 0, 1, 0, 0, 0, 11, 0, 0, 0, 0, 0, 0, 0, 17, 0, 0, 0, //
            0, 0x10, 0, 0, 0x20, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0x01, //
            0, 0, 0x45, 0x10, 0, 0, 0, 0xf8, 0xff, 0xff, 0xff, //
            0, 0, 0,
        ];
        assert_eq!(&got[..], &want[..]);
        // Read in host order from where libsframe 2.44 reads FREs (28 + 20): the swapped
        // CFA word gives the FRE start 0x0010 and the info byte 0.
        let s = SectionRef::parse_with(&got, libsframe_2_44()).expect("parses");
        let fde = s.fde(0).expect("FDE");
        let fre = s.fres(&fde).next().expect("one FRE").expect("readable");
        assert_eq!((fre.offset, fre.start, fre.info), (48, 16, 0));
    }

    /// Without the quirk, or on a section in the host's order, the bytes are read as stored;
    /// a section the reader refuses is refused.
    #[test]
    fn other_sections_are_read_as_stored_or_refused() {
        let off = libsframe_2_44().without(Quirk::ForeignEndianReadAfterSwap);
        assert!(matches!(read_after_swap(&V1_BE, off), Ok(Cow::Borrowed(_))));
        let swapped = read_after_swap(&V1_BE, libsframe_2_44()).expect("not refused");
        assert!(matches!(
            read_after_swap(&swapped, libsframe_2_44()),
            Ok(Cow::Borrowed(_))
        ));
        // Without the 3 trailing bytes the pass's size check fails (F0147).
        assert!(read_after_swap(&V1_BE[..56], libsframe_2_44()).is_err());
    }
}
