//! The quirks that reproduce libsframe's and glibc's FRE sanity check and FRE scans (F0134,
//! F0190, F0191, F0192, and the lazy scans of libsframe 2.40 and 2.44), on sections built
//! byte by byte here. What each release does is quoted in the findings' `upstream` fields.

use sframe_spec::decode::decode_per_function_with;
use sframe_spec::{Loc, Quirk, Quirks, SectionRef};

/// A little-endian v2 AMD64 header (sorted, fixed RA -8) and one PC-increment FDE at 0 of
/// `size` bytes with FRE type ADDR1 (or `fre_type`), followed by the FRE bytes.
fn section(size: u32, fre_type: u8, num_fres: u32, fres: &[u8]) -> Vec<u8> {
    let mut s = vec![0xe2, 0xde, 2, 0x01, 3, 0, (-8i8) as u8, 0];
    let fre_len = fres.len() as u32;
    for w in [1, num_fres, fre_len, 0, 20] {
        s.extend_from_slice(&w.to_le_bytes());
    }
    for w in [0u32, size, 0, num_fres] {
        s.extend_from_slice(&w.to_le_bytes());
    }
    s.extend([fre_type, 0, 0, 0]);
    s.extend_from_slice(fres);
    s
}

fn q(list: &[Quirk]) -> Quirks {
    list.iter().fold(Quirks::NONE, |q, &x| q.with(x))
}

/// FRE 0 at 0 with one data word; FRE 1 at 4 with four one-byte data words.
fn four_words_second() -> Vec<u8> {
    section(16, 0, 2, &[0, 0x03, 8, 4, 0x09, 16, 1, 2, 3])
}

#[test]
fn more_than_three_data_words_end_the_function_for_libsframe_2_44() {
    let s = four_words_second();
    let per_function = q(&[Quirk::PerFunctionErrors]);
    let (_, fns) = decode_per_function_with(&s, per_function).unwrap();
    assert_eq!(fns[0].function.as_ref().unwrap().fres.len(), 2);
    assert!(fns[0].error.is_none());
    let libsframe = per_function.with(Quirk::DataWordsAbove3Unreadable);
    let (_, fns) = decode_per_function_with(&s, libsframe).unwrap();
    assert_eq!(fns[0].function.as_ref().unwrap().fres.len(), 1);
    assert!(fns[0].error.is_some());
}

#[test]
fn a_look_up_on_an_fre_failing_the_sanity_check_gets_no_rule_and_a_mangled_ra() {
    let s = four_words_second();
    let r = SectionRef::parse_with(&s, q(&[Quirk::DataWordsAbove3Unreadable])).unwrap();
    let found = r.find(5).unwrap().unwrap();
    assert_eq!(found.fre_index, 1);
    assert!(r.recovery(&found.fde, &found.fre).is_err());
    assert!(r.reported_ra_mangled(&found.fre));
    // The reference reads the first three words (FRE-COUNT-MAX is a validation rule).
    let reference = SectionRef::parse(&s).unwrap();
    let found = reference.find(5).unwrap().unwrap();
    assert!(reference.recovery(&found.fde, &found.fre).is_ok());
    assert!(!reference.reported_ra_mangled(&found.fre));
}

#[test]
fn libsframe_2_47_reads_seven_data_words_as_the_outermost_frame_with_a_mangled_ra() {
    let s = section(16, 0, 1, &[0, 0x0e, 8, 1, 2, 3, 4, 5, 6]);
    let r = SectionRef::parse_with(&s, q(&[Quirk::DataWordsAbove6Unreadable])).unwrap();
    let found = r.find(0).unwrap().unwrap();
    let row = r.recovery(&found.fde, &found.fre).unwrap();
    assert_eq!(
        (row.cfa, row.ra, row.fp),
        (Loc::Undefined, Loc::Undefined, Loc::SameValue)
    );
    assert!(row.ra_mangled);
}

#[test]
fn the_reserved_data_word_size_is_walked_as_one_byte_words_and_fails_the_check() {
    // FRE 0: data-word size 3, one word; FRE 1 after it.
    let s = section(16, 0, 2, &[0, 0x62, 8, 4, 0x03, 16]);
    assert!(SectionRef::parse(&s).unwrap().find(5).is_err());
    let r = SectionRef::parse_with(&s, q(&[Quirk::DataWordsAbove3Unreadable])).unwrap();
    assert_eq!(r.find(5).unwrap().unwrap().fre_index, 1);
    let at0 = r.find(0).unwrap().unwrap();
    assert!(r.fails_sanity(&at0.fre));
}

#[test]
fn glibc_finds_no_row_in_a_function_of_an_invalid_fre_type() {
    let s = section(16, 5, 1, &[0, 0x03, 8]);
    assert!(SectionRef::parse(&s).unwrap().find(0).is_err());
    let glibc = SectionRef::parse_with(&s, q(&[Quirk::InvalidFreTypeNoRow])).unwrap();
    assert!(glibc.find(0).unwrap().is_none());
}

#[test]
fn glibc_ends_an_fre_at_the_next_start_less_one_wrapping() {
    // FREs at 0, 10, 0: FRE 1 ends at 0 - 1 = 0xffffffff, so it holds offset 12; the
    // reference takes the last FRE starting at or before 12: FRE 2.
    let s = section(32, 0, 3, &[0, 0x03, 8, 10, 0x03, 16, 0, 0x03, 24]);
    let reference = SectionRef::parse(&s).unwrap();
    assert_eq!(reference.find(12).unwrap().unwrap().fre_index, 2);
    let glibc = SectionRef::parse_with(&s, q(&[Quirk::FreRangeScan])).unwrap();
    assert_eq!(glibc.find(12).unwrap().unwrap().fre_index, 1);
}

#[test]
fn libsframe_2_44_reads_only_the_start_of_the_fre_after_the_match() {
    // FRE 0 at 0 holds offset 2 up to FRE 1's start (4); FRE 1's data words lie past the
    // FRE sub-section. The reference reads FRE 1 whole to see where FRE 0's rows end.
    let s = section(16, 0, 2, &[0, 0x03, 8, 4, 0x07]);
    assert!(SectionRef::parse(&s).unwrap().find(2).is_err());
    let r = SectionRef::parse_with(&s, q(&[Quirk::PcIncInt32Range])).unwrap();
    assert_eq!(r.find(2).unwrap().unwrap().fre_index, 0);
}

#[test]
fn libsframe_2_40_finds_no_row_when_the_fre_after_the_match_fails_the_check() {
    // FRE 0 holds offset 2; FRE 1 (at 4) has four data words: 2.40 sanity-checks it before
    // it looks at FRE 0's end.
    let s = four_words_second();
    let r2_40 = q(&[Quirk::PcIncLow32Unsigned, Quirk::DataWordsAbove3Unreadable]);
    assert!(SectionRef::parse_with(&s, r2_40)
        .unwrap()
        .find(2)
        .unwrap()
        .is_none());
    let r = SectionRef::parse_with(&s, q(&[Quirk::PcIncLow32Unsigned])).unwrap();
    assert_eq!(r.find(2).unwrap().unwrap().fre_index, 0);
}
