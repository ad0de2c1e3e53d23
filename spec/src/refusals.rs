//! Whole-section refusals of real readers, as quirks of the reference.
//!
//! Some readers refuse sections the texts allow: flag bits they do not know, or big-endian
//! sections they cannot byte-swap exactly as laid out. Each refusal here is one
//! [`Quirk`](crate::Quirk); [`SectionRef::parse_with`](crate::SectionRef::parse_with)
//! refuses a section when a quirk it reads with would, so the differential harness explains
//! a refusal only when the quirky reference refuses that very input too.
//!
//! "Foreign" byte order is the one the reader must swap: the harness runs libsframe on
//! little-endian x86-64, so the foreign sections are the big-endian ones (AArch64 big
//! endian and s390x).

use crate::constants::{flags, Version, FDE_ATTR_V3_SIZE};
use crate::endian::Endian;
use crate::error::Violation;
use crate::layout::header as header_offsets;
use crate::quirks::{Quirk, Quirks};
use crate::read::SectionRef;
use crate::rules::Rule;

/// The byte order of the hosts the quirks below describe (libsframe on x86-64).
pub(crate) const HOST: Endian = Endian::Little;

/// The refusal `quirks` make of the section `s` (read with no quirk), if any.
pub(crate) fn refusal(s: &SectionRef<'_>, quirks: Quirks) -> Option<Violation> {
    let h = s.header();
    let foreign = s.endian() != HOST;
    if quirks.has(Quirk::FlagsBeyondSortedFpRefused)
        && h.flags & !(flags::FDE_SORTED | flags::FRAME_POINTER) != 0
    {
        return Some(flag_refusal(h.flags));
    }
    if quirks.has(Quirk::UndefinedFlagsRefused) && h.flags & !h.version.defined_flags() != 0 {
        return Some(flag_refusal(h.flags));
    }
    if foreign && quirks.has(Quirk::ForeignEndianRefused) {
        // glibc's reader compares the magic in host order: a swapped magic is no magic.
        return Some(
            Violation::new(Rule::PreambleMagic, header_offsets::MAGIC)
                .found(i64::from(crate::constants::MAGIC.swap_bytes()))
                .expected(i64::from(crate::constants::MAGIC)),
        );
    }
    if foreign && quirks.has(Quirk::ForeignEndianAuxRefused) && h.auxhdr_len != 0 {
        return Some(
            Violation::new(Rule::HeaderAuxFits, header_offsets::AUXHDR_LEN)
                .found(i64::from(h.auxhdr_len))
                .expected(0),
        );
    }
    if foreign && quirks.has(Quirk::ForeignEndianExactSize) {
        let walked = walk(s);
        // The walk steps through FDEs as the reader does (v2's 20 bytes for v1 in 2.44).
        let fde_bytes =
            s.num_fdes() as u64 * crate::read::fde_entry_size(s.version(), s.quirks()) as u64;
        let body = (s.data().len() as u64).saturating_sub(h.size() as u64);
        let exact = walked
            .is_some_and(|w| w.fres == u64::from(h.num_fres) && fde_bytes + w.fre_bytes == body);
        if !exact {
            return Some(section_end_refusal(s));
        }
    }
    if foreign && quirks.has(Quirk::ForeignEndianTrailingZero) {
        let ok = walk(s).is_some_and(|w| {
            let end = h.size() as u64 + u64::from(h.freoff) + w.fre_bytes;
            // The padding is checked in the buffer as swapped so far: FREs (and v3 FDE
            // attributes) the walk swapped may lie past `end` when their blocks have gaps.
            let swapped = swapped_by_walk(s);
            w.fres == u64::from(h.num_fres)
                && w.fre_bytes <= u64::from(h.fre_len)
                && swapped
                    .get(usize::try_from(end).unwrap_or(usize::MAX)..)
                    .is_none_or(|rest| rest.iter().all(|&b| b == 0))
        });
        if !ok {
            return Some(section_end_refusal(s));
        }
    }
    None
}

fn flag_refusal(found: u8) -> Violation {
    Violation::new(Rule::HeaderFlagsUnknownLegacy, header_offsets::FLAGS).found(found)
}

fn section_end_refusal(s: &SectionRef<'_>) -> Violation {
    Violation::new(Rule::HeaderSectionEnd, header_offsets::FRE_LEN)
        .found(i64::from(s.header().fre_len))
}

/// The section's bytes after libsframe 2.47's byte-swapping walk: every v3 FDE attribute's
/// FRE count, every FRE's start address and data words reversed in place, in walk order.
fn swapped_by_walk(s: &SectionRef<'_>) -> Vec<u8> {
    let mut buf = s.data().to_vec();
    let mut flip = |at: usize, len: usize| {
        if let Some(b) = buf.get_mut(at..at.saturating_add(len)) {
            b.reverse();
        }
    };
    for i in 0..s.num_fdes() {
        let Ok(fde) = s.fde(i) else { return buf };
        if let Some(a) = fde.attr_offset {
            flip(a, 2);
        }
        for fre in s.fres(&fde) {
            let Ok(fre) = fre else { return buf };
            flip(fre.offset, fde.fre_type.addr_size());
            for k in 0..fre.dataword_count() {
                flip(fre.dataword_offset(k), fre.dataword_size.bytes());
            }
        }
    }
    buf
}

/// What a byte-swapping walk over every FDE and its FREs covers: the FREs it swapped and
/// their bytes (v3: each FDE's attribute included).
struct Walk {
    fres: u64,
    fre_bytes: u64,
}

/// Walk every FDE in order and its FREs from where its FRE offset points, as libsframe's
/// `flip_sframe` does; `None` when an FDE or an FRE cannot be read.
fn walk(s: &SectionRef<'_>) -> Option<Walk> {
    let mut w = Walk {
        fres: 0,
        fre_bytes: 0,
    };
    for i in 0..s.num_fdes() {
        let fde = s.fde(i).ok()?;
        if s.version() == Version::V3 {
            w.fre_bytes += FDE_ATTR_V3_SIZE as u64;
        }
        for fre in s.fres(&fde) {
            let fre = fre.ok()?;
            w.fres += 1;
            w.fre_bytes += (fre.end - fre.offset) as u64;
        }
    }
    Some(w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constants::{Abi, BaseReg, DataWordSize};
    use crate::model::{Fre, Function, Section};

    fn section(endian: Endian, abi: Abi, version: Version, flags: u8) -> Vec<u8> {
        let mut f = Function::new(0x100, 0x20);
        // CFA = SP + 16; on AMD64 the RA is at the header's fixed offset, elsewhere saved
        // at CFA - 8.
        let datawords = if abi == Abi::Amd64 {
            vec![16]
        } else {
            vec![16, -8]
        };
        f.fres = vec![Fre {
            start: 0,
            base_reg: BaseReg::Sp,
            mangled_ra: false,
            dataword_size: DataWordSize::B1,
            datawords,
        }];
        let s = Section {
            version,
            endian,
            flags,
            abi,
            cfa_fixed_fp_offset: 0,
            cfa_fixed_ra_offset: if abi == Abi::Amd64 { -8 } else { 0 },
            aux_header: Vec::new(),
            functions: vec![f],
        };
        crate::write::encode(&s).unwrap_or_default()
    }

    fn refused(data: &[u8], q: Quirk) -> bool {
        SectionRef::parse_with(data, Quirks::NONE.with(q)).is_err()
    }

    #[test]
    fn a_flag_beyond_sorted_and_frame_pointer_is_refused_only_with_that_quirk() {
        // libsframe 2.40/2.44 `sframe_header_sanity_check_p`:
        // `all_flags = SFRAME_F_FDE_SORTED | SFRAME_F_FRAME_POINTER`.
        let pcrel = section(
            Endian::Little,
            Abi::Amd64,
            Version::V2,
            flags::FDE_FUNC_START_PCREL,
        );
        assert!(SectionRef::parse(&pcrel).is_ok());
        assert!(refused(&pcrel, Quirk::FlagsBeyondSortedFpRefused));
        assert!(!refused(&pcrel, Quirk::UndefinedFlagsRefused));
    }

    #[test]
    fn every_big_endian_section_and_no_little_endian_one_is_refused_when_foreign_endian_is() {
        // glibc 2.43 `__sframe_decode`: `if (sfp->sfp_magic != SFRAME_MAGIC) return
        // _URC_END_OF_STACK;` in host order, no byte swapping.
        let be = section(Endian::Big, Abi::S390x, Version::V2, 0);
        assert!(SectionRef::parse(&be).is_ok());
        assert!(refused(&be, Quirk::ForeignEndianRefused));
        let le = section(Endian::Little, Abi::Amd64, Version::V2, 0);
        assert!(!refused(&le, Quirk::ForeignEndianRefused));
    }

    #[test]
    fn padding_after_a_big_endian_section_is_refused_by_the_exact_walk() {
        let mut be = section(Endian::Big, Abi::S390x, Version::V2, 0);
        assert!(!refused(&be, Quirk::ForeignEndianExactSize));
        assert!(!refused(&be, Quirk::ForeignEndianTrailingZero));
        be.push(0);
        // 2.40/2.44: bytes_flipped != buf_size - hdrsz; 2.47: a zero pad is allowed.
        assert!(refused(&be, Quirk::ForeignEndianExactSize));
        assert!(!refused(&be, Quirk::ForeignEndianTrailingZero));
        be.push(1);
        assert!(refused(&be, Quirk::ForeignEndianTrailingZero));
        // Little endian: no byte swapping, no walk.
        let mut le = section(Endian::Little, Abi::Amd64, Version::V2, 0);
        le.extend([1, 2, 3]);
        assert!(!refused(&le, Quirk::ForeignEndianExactSize));
        assert!(!refused(&le, Quirk::ForeignEndianTrailingZero));
    }
}
