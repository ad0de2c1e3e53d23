//! The quirks that reproduce simple-frame-rs 0.3.0's readings (F0140, F0152, F0153, F0154),
//! on sections built byte by byte here.

use sframe_spec::decode::{decode_per_function_with, decode_per_function_within, decode_with};
use sframe_spec::{Loc, Quirk, Quirks, SectionRef};

/// A little-endian header: version, flags, ABI 3 (AMD64), fixed FP 0, fixed RA -8.
fn header(
    version: u8,
    flags: u8,
    num_fdes: u32,
    num_fres: u32,
    fre_len: u32,
    freoff: u32,
) -> Vec<u8> {
    let mut h = vec![0xe2, 0xde, version, flags, 3, 0, (-8i8) as u8, 0];
    for w in [num_fdes, num_fres, fre_len, 0, freoff] {
        h.extend_from_slice(&w.to_le_bytes());
    }
    h
}

/// A v2 FDE.
fn fde_v2(start: i32, size: u32, fre_off: u32, num_fres: u32, info: u8) -> Vec<u8> {
    let mut f = Vec::new();
    f.extend_from_slice(&start.to_le_bytes());
    f.extend_from_slice(&size.to_le_bytes());
    f.extend_from_slice(&fre_off.to_le_bytes());
    f.extend_from_slice(&num_fres.to_le_bytes());
    f.extend_from_slice(&[info, 0, 0, 0]);
    f
}

#[test]
fn undefined_flags_refused_refuses_what_simple_frame_rs_does_not_define() {
    let q = Quirks::NONE.with(Quirk::UndefinedFlagsRefused);
    let v2 = header(2, 0x09, 0, 0, 0, 0);
    assert!(SectionRef::parse(&v2).is_ok());
    assert!(SectionRef::parse_with(&v2, q).is_err());
    // v1 knows only SORTED and FRAME_POINTER: 0x4 is refused too.
    let v1 = header(1, 0x05, 0, 0, 0, 0);
    assert!(SectionRef::parse(&v1).is_ok());
    assert!(SectionRef::parse_with(&v1, q).is_err());
    assert!(SectionRef::parse_with(&header(2, 0x07, 0, 0, 0, 0), q).is_ok());
}

#[test]
fn a_v2_fre_without_data_words_has_no_cfa_for_simple_frame_rs() {
    let mut s = header(2, 0x01, 1, 1, 2, 20);
    s.extend(fde_v2(0, 16, 0, 1, 0));
    s.extend([0, 0x01]);
    let q = Quirks::NONE
        .with(Quirk::RaUndefinedUnknownV2)
        .with(Quirk::RaFpByAbi);
    let sec = decode_with(&s, q).unwrap();
    let f = &sec.functions[0];
    let r = sec.recovery_with(f, &f.fres[0], q).unwrap();
    assert_eq!(r.cfa, Loc::Undefined);
    // AMD64: the header's fixed RA offset, as simple-frame-rs's get_ra_offset gives it.
    assert_eq!(
        r.ra,
        Loc::Expr {
            base: sframe_spec::Base::Cfa,
            offset: -8,
            deref: true
        }
    );
    // The reference: erratum 2, the outermost frame.
    let r0 = sec.recovery_with(f, &f.fres[0], Quirks::NONE).unwrap();
    assert_eq!(r0.ra, Loc::Undefined);
}

#[test]
fn functions_are_read_one_by_one_to_the_end_of_the_bytes() {
    // FDE 0: FRE type 0xf (invalid) with one FRE; FDE 1: one FRE of one data word, which
    // lies past sfh_fre_len (0).
    let mut s = header(2, 0x01, 2, 2, 0, 40);
    s.extend(fde_v2(0, 16, 0, 1, 0x0f));
    s.extend(fde_v2(16, 16, 0, 1, 0));
    s.extend([0, 0x03, 8]);
    assert!(decode_with(&s, Quirks::NONE).is_err());
    let q = Quirks::NONE
        .with(Quirk::PerFunctionErrors)
        .with(Quirk::FresReadToSectionEnd);
    let (_, fns) = decode_per_function_with(&s, q).unwrap();
    assert_eq!(fns.len(), 2);
    assert!(fns[0].error.is_some() && fns[0].function.is_none());
    assert_eq!(fns[0].fields.num_fres, 1);
    assert!(fns[1].error.is_none());
    assert_eq!(fns[1].function.as_ref().map(|f| f.fres.len()), Some(1));
    // Without the section-end bound, FDE 1's FRE is outside the FRE sub-section.
    let (_, fns) =
        decode_per_function_with(&s, Quirks::NONE.with(Quirk::PerFunctionErrors)).unwrap();
    assert!(fns[1].error.is_some());
}

#[test]
fn the_sorted_search_compares_absolute_u64_pcs() {
    // v3, sorted: function 0 at -2^62, function 1 at 0, 16 bytes each, one FRE each.
    let mut s = header(3, 0x01, 2, 2, 16, 32);
    for (start, fre_off) in [(-(1i64 << 62), 0u32), (0, 8)] {
        s.extend_from_slice(&start.to_le_bytes());
        s.extend_from_slice(&16u32.to_le_bytes());
        s.extend_from_slice(&fre_off.to_le_bytes());
    }
    for _ in 0..2 {
        s.extend([1, 0, 0, 0, 0, 0, 0x03, 8]);
    }
    let pc = -(1i64 << 62);
    let reference = SectionRef::parse(&s).unwrap();
    assert_eq!(reference.find(pc).unwrap().map(|f| f.fde.index), Some(0));
    let q = Quirks::NONE.with(Quirk::SearchAbsoluteU64);
    let sfr = SectionRef::parse_with(&s, q).unwrap();
    assert!(sfr.find(pc).unwrap().is_none());
    assert_eq!(sfr.find(4).unwrap().map(|f| f.fde.index), Some(1));
}

/// v3, flags as given: function 0 at -2^62, function 1 at 2^62, 16 bytes each, one FRE each.
fn v3_far_apart(flags: u8) -> Vec<u8> {
    let mut s = header(3, flags, 2, 2, 16, 32);
    for (start, fre_off) in [(-(1i64 << 62), 0u32), (1i64 << 62, 8)] {
        s.extend_from_slice(&start.to_le_bytes());
        s.extend_from_slice(&16u32.to_le_bytes());
        s.extend_from_slice(&fre_off.to_le_bytes());
    }
    for _ in 0..2 {
        s.extend([1, 0, 0, 0, 0, 0, 0x03, 8]);
    }
    s
}

#[test]
fn a_pc_more_than_2_63_past_a_start_is_not_in_that_function() {
    // Reference bug fixed: the distance 2^63 + 4 from function 0 wrapped to a negative i64,
    // which the linear search took for "inside function 0".
    let s = v3_far_apart(0);
    let r = SectionRef::parse(&s).unwrap();
    assert_eq!(
        r.find((1i64 << 62) + 4).unwrap().map(|f| f.fde.index),
        Some(1)
    );
}

#[test]
fn the_unsorted_scan_compares_absolute_u64_pcs() {
    let s = v3_far_apart(0);
    let q = Quirks::NONE.with(Quirk::SearchAbsoluteU64);
    let sfr = SectionRef::parse_with(&s, q).unwrap();
    // 2^48 + 2^62 + 4 - (2^48 - 2^62 as u64) wraps to 2^63 + 4: not in function 0, and
    // function 1 holds it.
    assert_eq!(
        sfr.find((1i64 << 62) + 4).unwrap().map(|f| f.fde.index),
        Some(1)
    );
    assert_eq!(
        sfr.find(-(1i64 << 62) + 4).unwrap().map(|f| f.fde.index),
        Some(0)
    );
}

#[test]
fn an_unknown_v3_fde_type_is_read_as_default_by_a_per_function_reader() {
    // v3, one function whose info2 holds FDE type 16 (undefined), one FRE of one data word.
    let mut s = header(3, 0x01, 1, 1, 8, 16);
    s.extend_from_slice(&0i64.to_le_bytes());
    s.extend_from_slice(&16u32.to_le_bytes());
    s.extend_from_slice(&0u32.to_le_bytes());
    s.extend([1, 0, 0, 16, 0, 0, 0x03, 8]);
    assert!(SectionRef::parse(&s).unwrap().fde(0).is_err());
    let q = Quirks::NONE.with(Quirk::PerFunctionErrors);
    let (_, fns) = decode_per_function_with(&s, q).unwrap();
    assert!(fns[0].error.is_none());
    let f = fns[0].function.as_ref().unwrap();
    assert_eq!(f.fde_type, sframe_spec::FdeType::Default);
    assert_eq!(f.fres.len(), 1);
}

/// v2 AMD64, sorted: one PC-mask function at 0 of 64 bytes with `rep_size`, an FRE at 0 (one
/// data word) and an unreadable FRE at 4 (data-word size 3).
fn mask_then_unreadable(rep_size: u8) -> Vec<u8> {
    let mut s = header(2, 0x01, 1, 2, 5, 20);
    let mut f = fde_v2(0, 64, 0, 2, 0x10);
    f[17] = rep_size;
    s.extend(f);
    s.extend([0, 0x03, 8, 4, 0x62]);
    s
}

#[test]
fn a_pc_mask_look_up_reads_fres_up_to_the_first_match_only() {
    let q = Quirks::NONE.with(Quirk::MaskAbsolutePcFirstMatch);
    let s = mask_then_unreadable(16);
    // The reference reads every FRE and meets the unreadable one.
    assert!(SectionRef::parse(&s).unwrap().find(2).is_err());
    // simple-frame-rs's `while let Some(fre) = iter.next()?` returns at FRE 0.
    let sfr = SectionRef::parse_with(&s, q).unwrap();
    assert_eq!(sfr.find(2).unwrap().map(|f| f.fre_index), Some(0));
}

#[test]
fn a_pc_mask_look_up_with_rep_size_0_reads_every_fre_and_finds_none() {
    let q = Quirks::NONE.with(Quirk::MaskAbsolutePcFirstMatch);
    // The loop tests `self.func_rep_size != 0` after reading each FRE: the unreadable one
    // refuses the look-up...
    let sfr_bad = mask_then_unreadable(0);
    assert!(SectionRef::parse_with(&sfr_bad, q)
        .unwrap()
        .find(2)
        .is_err());
    // ...and readable ones give no row.
    let mut ok = mask_then_unreadable(0);
    let last = ok.len() - 1;
    ok[last] = 0x03;
    ok.push(8);
    ok[16] = 6; // sfh_fre_len
    assert!(SectionRef::parse_with(&ok, q)
        .unwrap()
        .find(2)
        .unwrap()
        .is_none());
}

#[test]
fn a_per_function_decode_keeps_as_many_shared_fres_as_its_caller_allows() {
    // 20 functions that all read the same 1,000 FREs: 20,000 rows from 3,428 bytes, more
    // than the default bound of four per byte.
    let mut s = header(2, 0x01, 20, 1000, 3000, 400);
    for i in 0..20 {
        s.extend(fde_v2(i * 16, 16, 0, 1000, 0));
    }
    for _ in 0..1000 {
        s.extend([0, 0x03, 8]);
    }
    let q = Quirks::NONE.with(Quirk::PerFunctionErrors);
    assert!(decode_per_function_with(&s, q).is_err());
    let (_, fns) = decode_per_function_within(&s, q, 20_000).unwrap();
    assert_eq!(fns.len(), 20);
    assert!(fns
        .iter()
        .all(|f| f.function.as_ref().map(|f| f.fres.len()) == Some(1000)));
    assert!(decode_per_function_within(&s, q, 19_999).is_err());
}

/// A v1 FDE.
fn fde_v1(start: i32, size: u32, fre_off: u32, num_fres: u32, info: u8) -> Vec<u8> {
    let mut f = fde_v2(start, size, fre_off, num_fres, info);
    f.truncate(17);
    f
}

#[test]
fn a_v1_pc_mask_look_up_finds_nothing_but_reads_every_fre() {
    let q = Quirks::NONE.with(Quirk::MaskV1NeverMatches);
    // One PC-mask function (info bit 4): a readable FRE, then one of data-word size 3.
    let mut s = header(1, 0x01, 1, 2, 5, 17);
    s.extend(fde_v1(0, 64, 0, 2, 0x10));
    s.extend([0, 0x03, 8, 4, 0x62]);
    assert!(SectionRef::parse_with(&s, q).unwrap().find(2).is_err());
    let last = s.len() - 1;
    s[last] = 0x03;
    s.push(8);
    s[16] = 6; // sfh_fre_len
    assert!(SectionRef::parse_with(&s, q)
        .unwrap()
        .find(2)
        .unwrap()
        .is_none());
}

#[test]
fn simple_frame_rs_reads_v1_fp_and_ra_as_the_header_says() {
    // v1 AMD64 with a fixed FP offset of 16 (and the fixed RA of -8): an FRE with two data
    // words (CFA 8, then -16). src/v1.rs's get_fp_offset returns the fixed offset first.
    let mut s = header(1, 0x01, 1, 1, 4, 17);
    s[5] = 16;
    s.extend(fde_v1(0, 16, 0, 1, 0));
    s.extend([0, 0x05, 8, 0xf0]);
    let q = Quirks::NONE.with(Quirk::RaFpByAbi);
    let sec = decode_with(&s, q).unwrap();
    let f = &sec.functions[0];
    let r = sec.recovery_with(f, &f.fres[0], q).unwrap();
    let at = |offset| Loc::Expr {
        base: sframe_spec::Base::Cfa,
        offset,
        deref: true,
    };
    assert_eq!(r.fp, at(16));
    assert_eq!(r.ra, at(-8));
}
