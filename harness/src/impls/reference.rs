//! The reference implementation: the `sframe-spec` crate, in this process.
//!
//! `decode` is strict: it fails on the first malformed-class rule (the bytes cannot be
//! read), where GNU libsframe may read on; the engine classifies such cases with the rule
//! catalogue. A row whose data words break a rule (e.g. a flex layout) has no recovery rules
//! (`None`), so it is not compared; the validator reports the rule instead.

use super::BenchTiming;
use super::{Decoded, Found, FreFacts, FunctionFacts, HeaderFacts, Implementation, Outcome, Row};
use sframe_spec::decode::{decode_per_function_within, decode_with, FunctionRead};
use sframe_spec::layout::{fde_info, fde_info2};
use sframe_spec::{
    decode, FdeType, FreType, Quirk, Quirks, Rule, Section, SectionIndex, SectionRef, Stored,
    Version, Violation,
};
use std::hint::black_box;

/// The `sframe-spec` crate.
#[derive(Debug, Default, Clone, Copy)]
pub struct Reference;

fn rejected<T>(v: &Violation) -> Outcome<T> {
    Outcome::rejected(v.rule, Some(v.to_string()))
}

/// The normalized facts of a decoded model.
pub fn facts_of(s: &Section) -> Decoded {
    facts_of_with(s, Quirks::NONE)
}

/// [`facts_of`], with rows read as an implementation with `quirks` reads them.
pub fn facts_of_with(s: &Section, quirks: Quirks) -> Decoded {
    let header = HeaderFacts {
        version: Some(s.version.number()),
        flags: Some(sframe_spec::Quirk::reported_flags(s.flags, quirks)),
        abi: Some(s.abi.id()),
        cfa_fixed_fp_offset: Some(s.cfa_fixed_fp_offset),
        cfa_fixed_ra_offset: Some(s.cfa_fixed_ra_offset),
        num_fdes: Some(s.functions.len() as u32),
        num_fres: None,
    };
    let functions = s
        .functions
        .iter()
        .map(|f| FunctionFacts {
            start: Some(f.start),
            size: Some(f.size),
            fre_type: Some(f.fre_type.into()),
            pc_type: Some(f.pc_type.into()),
            fde_type: Some(f.fde_type.into()),
            rep_size: Some(f.rep_size),
            num_fres: Some(f.fres.len() as u32),
            fres: f
                .fres
                .iter()
                .map(|fre| {
                    if quirks.has(Quirk::UnfilledFrePrinted)
                        && fre.datawords.len() > Quirk::LIBSFRAME_2_47_MAX_DATAWORDS
                    {
                        // Printed from a row libsframe refused to fill: no known value.
                        return FreFacts::default();
                    }
                    let row = match s.recovery_with(f, fre, quirks) {
                        Ok(r) => Row::from(r),
                        Err(_) => Row::unknown(fre.mangled_ra),
                    };
                    FreFacts {
                        start: Some(fre.start),
                        row,
                    }
                })
                .collect(),
            error: None,
        })
        .collect();
    Decoded { header, functions }
}

/// Whether `v` says a function's FREs (or where they start) lie past the FRE sub-section.
fn past_fre_bytes(v: &Violation) -> bool {
    matches!(v.rule, Rule::FreFits | Rule::FdeDataFits)
}

/// Whether a reader with `quirks` lists the functions of a section that the whole-section
/// reading refuses with `v`, reading them one by one ([`facts_per_function`]): FREs past the
/// FRE sub-section ([`Quirk::FresPastEndPrinted`]), an invalid FRE type
/// ([`Quirk::FreTypeUnreadWithoutFres`]; the per-function reading still refuses it in a
/// function with FREs).
fn listed_per_function(v: &Violation, quirks: Quirks) -> bool {
    (quirks.has(Quirk::FresPastEndPrinted) && past_fre_bytes(v))
        || (quirks.has(Quirk::FreTypeUnreadWithoutFres) && v.rule == Rule::FdeFreType)
}

/// The facts of functions read one by one ([`Quirk::PerFunctionErrors`],
/// [`Quirk::FresPastEndPrinted`]): each with its FDE's fields as stored (the FRE count as
/// stored, not as read), the FREs read and the error that stopped them (its rule as the
/// error class). With [`Quirk::FresPastEndPrinted`], a function whose FREs run past the FRE
/// sub-section has `num_fres` rows, those from the first one past it unknown (at most
/// `max_fres` rows in all, else the section is refused as [`Quirky::decode`] bounds it); without
/// [`Quirk::PerFunctionErrors`], any other error refuses the section, and a function without
/// FREs whose FRE type is invalid is listed only with [`Quirk::FreTypeUnreadWithoutFres`].
fn facts_per_function(
    s: &Section,
    functions: &[FunctionRead],
    quirks: Quirks,
    max_fres: usize,
) -> Outcome<Decoded> {
    let mut d = facts_of_with(s, quirks);
    d.header.num_fdes = Some(functions.len() as u32);
    let v3 = s.version == Version::V3;
    let mut rows = 0usize;
    let mut out = Vec::with_capacity(functions.len());
    for r in functions {
        // The error that ends a function's FREs where the reader prints rows past them.
        let past_end = r
            .error
            .as_ref()
            .filter(|v| quirks.has(Quirk::FresPastEndPrinted) && past_fre_bytes(v));
        match &r.error {
            Some(v) if past_end.is_none() && !quirks.has(Quirk::PerFunctionErrors) => {
                return rejected(v)
            }
            _ => {}
        }
        let f = &r.fields;
        let fre_type = FreType::from_u8(fde_info::fre_type(f.info));
        if r.function.is_none()
            && fre_type.is_none()
            && !quirks.has(Quirk::PerFunctionErrors)
            && !quirks.has(Quirk::FreTypeUnreadWithoutFres)
        {
            // No FREs to read (else `r.error` says so), but a reader that checks the FRE
            // type of every FDE refuses it.
            return Outcome::rejected(Rule::FdeFreType, None);
        }
        let mut facts = match &r.function {
            Some(func) => {
                let one = Section {
                    functions: vec![func.clone()],
                    ..s.clone()
                };
                facts_of_with(&one, quirks)
                    .functions
                    .pop()
                    .unwrap_or_default()
            }
            None => FunctionFacts {
                start: Some(r.start),
                size: Some(f.size),
                fre_type: fre_type.map(Stored::Defined),
                pc_type: Some(fde_info::pc_type(f.info).into()),
                fde_type: if v3 {
                    FdeType::from_u8(fde_info2::fde_type(f.info2)).map(Stored::Defined)
                } else {
                    Some(FdeType::Default.into())
                },
                rep_size: Some(f.rep_size),
                ..FunctionFacts::default()
            },
        };
        if v3 {
            // An FDE type the reader does not know is reported as none (its rows were
            // read as default-type ones).
            facts.fde_type = FdeType::from_u8(fde_info2::fde_type(f.info2)).map(Stored::Defined);
        }
        facts.num_fres = Some(f.num_fres);
        facts.error = r.error.as_ref().map(|v| v.rule.into());
        if let Some(v) = past_end {
            // Rows printed from whatever follows the reader's copy of the FRE bytes.
            let printed = usize::try_from(f.num_fres).unwrap_or(usize::MAX);
            if rows.saturating_add(printed) > max_fres {
                return rejected(v);
            }
            facts
                .fres
                .resize(printed.max(facts.fres.len()), FreFacts::default());
            facts.error = None;
        }
        rows += facts.fres.len();
        out.push(facts);
    }
    d.functions = out;
    Outcome::ok(d)
}

impl Implementation for Reference {
    fn name(&self) -> String {
        "reference".into()
    }
    fn version(&self) -> String {
        format!("sframe-spec {}", env!("CARGO_PKG_VERSION"))
    }
    fn supports(&self, _version: Version) -> bool {
        true
    }
    fn decode(&self, data: &[u8]) -> Outcome<Decoded> {
        match decode(data) {
            Ok(s) => Outcome::ok(facts_of(&s)),
            Err(v) => rejected(&v),
        }
    }
    fn find_fre(&self, data: &[u8], pc: i64) -> Outcome<Option<Found>> {
        let s = match SectionRef::parse(data) {
            Ok(s) => s,
            Err(v) => return rejected(&v),
        };
        find_in(&s, pc)
    }
    fn find_fres(&self, data: &[u8], pcs: &[i64]) -> Vec<Outcome<Option<Found>>> {
        match SectionRef::parse(data) {
            Ok(s) => pcs.iter().map(|&pc| find_in(&s, pc)).collect(),
            Err(v) => pcs.iter().map(|_| rejected(&v)).collect(),
        }
    }
    /// Look-ups as a user of the crate makes many: through a [`SectionIndex`] built once,
    /// before the timing (its build is timed apart by `sframe-conform bench`), asking for
    /// the row ([`SectionIndex::find_fre`]) as libsframe's `sframe_find_fre` is asked.
    fn bench_find(&self, data: &[u8], pcs: &[i64], rounds: u32) -> Outcome<BenchTiming> {
        let s = match SectionIndex::parse(data) {
            Ok(s) => s,
            Err(v) => return rejected(&v),
        };
        Outcome::ok(BenchTiming::measure(pcs, rounds, |pc| {
            let Ok(Some(f)) = s.find_fre(pc) else {
                return false;
            };
            // Read the CFA word as a consumer would.
            black_box(f.fre.dataword(0));
            true
        }))
    }
}

/// The row for `pc` in a parsed section.
pub fn find_in(s: &SectionRef<'_>, pc: i64) -> Outcome<Option<Found>> {
    match s.find(pc) {
        Ok(None) => Outcome::ok(None),
        Ok(Some(found)) => {
            let row = match s.recovery(&found.fde, &found.fre) {
                Ok(r) => Row::from(r),
                Err(_) => Row::unknown(s.reported_ra_mangled(&found.fre)),
            };
            Outcome::ok(Some(Found {
                function_start: Some(found.fde.start),
                fre_start: Some(found.fre.start),
                row,
            }))
        }
        Err(v) => rejected(&v),
    }
}

/// The reference reading as an implementation with known deviations does (see
/// [`sframe_spec::quirks`]): what the findings ledger uses to decide whether a discrepancy is
/// one it explains. Not an implementation under test.
#[derive(Debug, Default, Clone, Copy)]
pub struct Quirky(pub Quirks);

impl Quirky {
    /// Decode `data`; with [`Quirk::PerFunctionErrors`], reading at most `max_fres` FREs
    /// in all (functions may share garbage blocks: the caller bounds what is kept, see
    /// [`decode_per_function_within`]). With [`Quirk::FresPastEndPrinted`], a section the
    /// whole-section reading refuses because FREs lie past the FRE sub-section is read function
    /// by function, within the same bound; with [`Quirk::FreTypeUnreadWithoutFres`], so is one
    /// it refuses for an invalid FRE type.
    ///
    /// With [`Quirk::ForeignEndianReadAfterSwap`], a foreign-endian section is read, here and
    /// in [`Quirky::find_fres`], from the bytes the reader's byte-swapping pass leaves
    /// ([`sframe_spec::swap::read_after_swap`]).
    pub fn decode(&self, data: &[u8], max_fres: usize) -> Outcome<Decoded> {
        let data = match sframe_spec::swap::read_after_swap(data, self.0) {
            Ok(d) => d,
            Err(v) => return rejected(&v),
        };
        let data = &data[..];
        let per_function = || match decode_per_function_within(data, self.0, max_fres) {
            Ok((s, functions)) => facts_per_function(&s, &functions, self.0, max_fres),
            Err(v) => rejected(&v),
        };
        if self.0.has(Quirk::PerFunctionErrors) {
            return per_function();
        }
        match decode_with(data, self.0) {
            Ok(s) => Outcome::ok(facts_of_with(&s, self.0)),
            Err(v) if listed_per_function(&v, self.0) => per_function(),
            Err(v) => rejected(&v),
        }
    }
    pub fn find_fres(&self, data: &[u8], pcs: &[i64]) -> Vec<Outcome<Option<Found>>> {
        let data = match sframe_spec::swap::read_after_swap(data, self.0) {
            Ok(d) => d,
            Err(v) => return pcs.iter().map(|_| rejected(&v)).collect(),
        };
        match SectionRef::parse_with(&data, self.0) {
            Ok(s) => pcs.iter().map(|&pc| find_in(&s, pc)).collect(),
            Err(v) => pcs.iter().map(|_| rejected(&v)).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signature::ErrorClass;
    use sframe_spec::{Loc, PcType};

    /// A v2 AMD64 section (sorted, fixed RA -8, no auxiliary header) with one FDE at
    /// `fdeoff`: header fields as in v2 §2.2, the FDE as in §2.3 (start, size, FRE offset,
    /// FRE count, info, rep_size, padding), the FRE bytes after it.
    fn section(gap: &[u8], fde: [u32; 4], num_fres: u32, fres: &[u8]) -> Vec<u8> {
        let mut s = vec![0xe2, 0xde, 2, 0x01, 3, 0, (-8i8) as u8, 0];
        let fdeoff = gap.len() as u32;
        for w in [1, num_fres, fres.len() as u32, fdeoff, fdeoff + 20] {
            s.extend_from_slice(&w.to_le_bytes());
        }
        s.extend_from_slice(gap);
        for w in fde {
            s.extend_from_slice(&w.to_le_bytes());
        }
        s.extend([0, 0, 0, 0]); // info: ADDR1, PC-increment; rep_size; padding
        s.extend_from_slice(fres);
        s
    }

    fn quirky(list: &[Quirk]) -> Quirky {
        Quirky(list.iter().fold(Quirks::NONE, |q, &x| q.with(x)))
    }

    /// corpus/findings/F0155: the 8 bytes before the FDE hold 0x10 and 0x20; the FDE starts at
    /// 0x8000, 1 byte, one FRE (start 0, CFA = SP+8). objdump 2.44, which reads the FDE at
    /// byte 28, printed `func idx [0]: pc = 0x10, size = 32 bytes` and one row read from its
    /// heap (`sframe_decoder_get_fre` at `sfd_fres + 0x8000`, past the 3-byte copy).
    #[test]
    fn objdump_2_44_lists_a_function_whose_fres_lie_past_the_fre_bytes() {
        let mut gap = 0x10u32.to_le_bytes().to_vec();
        gap.extend(0x20u32.to_le_bytes());
        let s = section(&gap, [0x8000, 1, 0, 1], 1, &[0x00, 0x03, 0x08]);
        assert_eq!(s.len(), 59);
        let misplaced = quirky(&[Quirk::SubsectionOffsetsIgnored]).decode(&s, 1000);
        assert!(
            matches!(&misplaced, Outcome::Rejected { class, .. } if *class == ErrorClass::Rule(Rule::FdeDataFits)),
            "{misplaced:?}"
        );
        let printed =
            quirky(&[Quirk::SubsectionOffsetsIgnored, Quirk::FresPastEndPrinted]).decode(&s, 1000);
        let d = printed.value().expect("listed");
        assert_eq!(d.functions.len(), 1);
        let f = &d.functions[0];
        assert_eq!((f.start, f.size), (Some(0x10), Some(32)));
        assert_eq!(f.pc_type, Some(PcType::Inc.into()));
        assert_eq!(f.num_fres, Some(1));
        assert_eq!(f.error, None);
        assert_eq!(f.fres, vec![FreFacts::default()]);
        // No more rows than the caller's bound.
        let bounded =
            quirky(&[Quirk::SubsectionOffsetsIgnored, Quirk::FresPastEndPrinted]).decode(&s, 0);
        assert!(matches!(bounded, Outcome::Rejected { .. }), "{bounded:?}");
    }

    /// corpus/findings/F0157: 4 bytes (0x10) before the FDE (start 0x1000, 32 bytes, FRE
    /// offset 0, 3 FREs). objdump 2.44 reads the FDE at byte 28: start 0x10, size 0x1000, FRE
    /// offset 0x20, no FREs, info 3 (an invalid FRE type); it printed `func idx [0]: pc =
    /// 0x10, size = 4096 bytes` and no row.
    #[test]
    fn objdump_2_44_lists_a_function_without_fres_whatever_its_fre_type() {
        let fres = [0x00, 0x03, 0x08, 0x04, 0x03, 0x10, 0x08, 0x03, 0x08];
        let s = section(&0x10u32.to_le_bytes(), [0x1000, 0x20, 0, 3], 3, &fres);
        assert_eq!(s.len(), 61);
        assert_eq!(s[44], 3, "the misread FDE's info byte");
        let f0155 = [Quirk::SubsectionOffsetsIgnored, Quirk::FresPastEndPrinted];
        let refused = quirky(&f0155).decode(&s, 1000);
        assert!(
            matches!(&refused, Outcome::Rejected { class, .. } if *class == ErrorClass::Rule(Rule::FdeFreType)),
            "{refused:?}"
        );
        let printed = quirky(&[
            Quirk::SubsectionOffsetsIgnored,
            Quirk::FresPastEndPrinted,
            Quirk::FreTypeUnreadWithoutFres,
        ])
        .decode(&s, 1000);
        let d = printed.value().expect("listed");
        assert_eq!(d.functions.len(), 1);
        let f = &d.functions[0];
        assert_eq!((f.start, f.size), (Some(0x10), Some(4096)));
        assert_eq!(f.pc_type, Some(PcType::Inc.into()));
        assert_eq!(f.num_fres, Some(0));
        assert_eq!(f.fre_type, None);
        assert!(f.fres.is_empty());
        assert_eq!(f.error, None);
    }

    /// An invalid FRE type (info 3) in the FDE where the FDE sub-section belongs. objdump 2.44
    /// printed `func idx [0]: pc = 0x40, size = 16 bytes` and no row for it without FREs, and
    /// aborted with one FRE (`sframe_fre_start_addr_size: Assertion '0' failed`): the
    /// quirky reference refuses that section.
    #[test]
    fn an_invalid_fre_type_refuses_only_a_function_with_fres() {
        let q = quirky(&[Quirk::FresPastEndPrinted, Quirk::FreTypeUnreadWithoutFres]);
        let mut none = section(&[], [0x40, 16, 0, 0], 0, &[]);
        none[44] = 3;
        let d = q.decode(&none, 1000);
        let f = &d.value().expect("listed").functions[0];
        assert_eq!(
            (f.start, f.size, f.num_fres),
            (Some(0x40), Some(16), Some(0))
        );
        assert!(f.fres.is_empty());
        let refused = quirky(&[Quirk::FresPastEndPrinted]).decode(&none, 1000);
        assert!(matches!(refused, Outcome::Rejected { .. }), "{refused:?}");
        // First an FDE (start 0x40, 16 bytes, FRE offset 0x100, one FRE) whose FRE lies past
        // the 3 FRE bytes, then the one of FRE type 3 (start 0x80, 16 bytes, no FREs):
        // objdump 2.44 printed both functions, the first with one row read from its heap
        // (`fp+-1 u f`), the second without rows. F0155's quirk alone reads this section
        // function by function (the first refusal is FDE-DATA-FITS), but does not list the
        // second.
        let mut two = section(&[], [0x40, 16, 0x100, 1], 1, &[0x00, 0x03, 0x08]);
        let mut fde = Vec::new();
        for w in [0x80u32, 16, 0, 0, 3] {
            fde.extend_from_slice(&w.to_le_bytes());
        }
        two.splice(48..48, fde);
        two[8] = 2; // two FDEs
        two[24] = 40; // sfh_freoff
        assert_eq!(two.len(), 71);
        let d = q.decode(&two, 1000);
        let fs = &d.value().expect("listed").functions;
        assert_eq!(fs.len(), 2);
        assert_eq!((fs[0].start, fs[0].size), (Some(0x40), Some(16)));
        assert_eq!(fs[0].fres, vec![FreFacts::default()]);
        assert_eq!((fs[1].start, fs[1].num_fres), (Some(0x80), Some(0)));
        assert!(fs[1].fres.is_empty());
        let refused = quirky(&[Quirk::FresPastEndPrinted]).decode(&two, 1000);
        assert!(
            matches!(&refused, Outcome::Rejected { class, .. } if *class == ErrorClass::Rule(Rule::FdeFreType)),
            "{refused:?}"
        );
        let mut one = section(&[], [0x40, 16, 0, 1], 1, &[0x00, 0x03, 0x08]);
        one[44] = 3;
        let refused = q.decode(&one, 1000);
        assert!(
            matches!(&refused, Outcome::Rejected { class, .. } if *class == ErrorClass::Rule(Rule::FdeFreType)),
            "{refused:?}"
        );
    }

    /// Rows before the first FRE past the FRE bytes are read as stored; an FRE the reader's
    /// sanity check refuses inside the bytes still refuses the section.
    #[test]
    fn rows_before_the_end_of_the_fre_bytes_are_exact() {
        // FRE 0: start 0, CFA = SP+8; FRE 1: start 4, info says one 1-byte word, which is cut.
        let s = section(&[], [0, 16, 0, 2], 2, &[0x00, 0x03, 0x08, 0x04, 0x03]);
        let d = quirky(&[Quirk::FresPastEndPrinted]).decode(&s, 1000);
        let f = &d.value().expect("listed").functions[0];
        assert_eq!(f.fres.len(), 2);
        assert_eq!(f.fres[0].start, Some(0));
        assert_eq!(f.fres[0].row.cfa, Some(Loc::reg(7, 8)));
        assert_eq!(f.fres[1], FreFacts::default());
        // FRE 1 with the reserved data-word size (info bits 5-6 = 3), inside the bytes.
        let s = section(&[], [0, 16, 0, 2], 2, &[0x00, 0x03, 0x08, 0x04, 0x63, 0x08]);
        let d = quirky(&[Quirk::FresPastEndPrinted]).decode(&s, 1000);
        assert!(matches!(d, Outcome::Rejected { .. }), "{d:?}");
    }

    /// corpus/findings/F0158: a v1 AArch64 big-endian section (v1 §2.2 header, §2.3 17-byte
    /// FDE, §2.4 FRE) whose one FRE has 4-byte data words, followed by 3 bytes, so that
    /// libsframe 2.44's byte-swapping pass (20 bytes per FDE, plus the FRE bytes it walks)
    /// covers exactly the bytes after the header.
    fn v1_big_endian_with_3_trailing_bytes() -> Vec<u8> {
        let mut s = vec![0xde, 0xe2, 1, 0x01, 1, 0, 0, 0]; // v1, sorted, AArch64 BE, no aux
        for w in [1u32, 1, 11, 0, 17] {
            // FDEs, FREs, FRE bytes, sfh_fdeoff, sfh_freoff
            s.extend_from_slice(&w.to_be_bytes());
        }
        for w in [0x1000u32, 0x20, 0, 1] {
            // start, size, FRE offset, FRE count
            s.extend_from_slice(&w.to_be_bytes());
        }
        s.push(0x01); // info: FRE type ADDR2, PC-increment
        s.extend([0x00, 0x00, 0x45]); // FRE: start 0; CFA on SP, 2 data words of 4 bytes
        s.extend_from_slice(&16i32.to_be_bytes()); // CFA = SP + 16
        s.extend_from_slice(&(-8i32).to_be_bytes()); // RA at CFA - 8
        s.extend([0, 0, 0]);
        assert_eq!(s.len(), 59);
        s
    }

    /// libsframe-2.44's quirks (its findings' in the ledger), this one's aside.
    fn libsframe_2_44() -> Quirks {
        [
            Quirk::LookupRequiresSorted,
            Quirk::V1ReadAsV2,
            Quirk::PerFunctionErrors,
            Quirk::RaUndefinedUnknownV2,
            Quirk::S390xV2Unknown,
            Quirk::FlagsBeyondSortedFpRefused,
            Quirk::SearchEqualStartFirstProbed,
            Quirk::SubsectionOffsetsIgnored,
            Quirk::MaskSectionPcModulo,
            Quirk::PcIncInt32Range,
            Quirk::ForeignEndianExactSize,
            Quirk::DataWordsAbove3Unreadable,
        ]
        .into_iter()
        .collect()
    }

    /// libsframe 2.44 (trixie's libsframe1 2.44-3, in the worker) on that section: the FRE
    /// decodes with start 16 and no data words (CFA offset not present, RA and FP not
    /// present); `sframe_find_fre` gives no row at 0x1000 and that FRE at 0x101f.
    #[test]
    fn libsframe_2_44_reads_a_big_endian_v1_section_from_its_swapped_copy() {
        let s = v1_big_endian_with_3_trailing_bytes();
        let q = Quirky(libsframe_2_44().with(Quirk::ForeignEndianReadAfterSwap));
        let libsframe_row = Found {
            function_start: Some(0x1000),
            fre_start: Some(16),
            row: Row {
                cfa: Some(Loc::Undefined),
                ra: Some(Loc::SameValue),
                fp: Some(Loc::SameValue),
                ra_mangled: Some(false),
            },
        };
        let got = q.find_fres(&s, &[0x1000, 0x101f]);
        assert!(matches!(&got[0], Outcome::Ok { value: None }), "{got:?}");
        let Outcome::Ok { value: found } = &got[1] else {
            panic!("{got:?}")
        };
        assert_eq!(found.as_ref().and_then(|f| f.fre_start), Some(16));
        assert!(
            crate::diff::compare::found(found, &Some(libsframe_row)).is_empty(),
            "{found:?}"
        );
        let d = q.decode(&s, 1000);
        let f = &d.value().expect("decoded").functions[0];
        assert_eq!((f.start, f.size), (Some(0x1000), Some(0x20)));
        assert_eq!(f.fres.len(), 1);
        assert_eq!(f.fres[0].start, Some(16));
        // Without the quirk the FRE read as stored starts at 0: 0x1000 has a row.
        let without = Quirky(libsframe_2_44()).find_fres(&s, &[0x1000]);
        assert!(
            matches!(&without[0], Outcome::Ok { value: Some(f) } if f.fre_start == Some(0)),
            "{without:?}"
        );
    }

    /// A section in the host's byte order is read as it lies, the quirk on or off.
    #[test]
    fn a_host_endian_section_is_read_as_stored() {
        let s = section(&[], [0, 16, 0, 1], 1, &[0x00, 0x03, 0x08]);
        let with = Quirky(libsframe_2_44().with(Quirk::ForeignEndianReadAfterSwap));
        let got = with.find_fres(&s, &[0, 15]);
        let want = Quirky(libsframe_2_44()).find_fres(&s, &[0, 15]);
        assert_eq!(format!("{got:?}"), format!("{want:?}"));
        assert!(matches!(&got[1], Outcome::Ok { value: Some(f) } if f.fre_start == Some(0)));
    }
}
