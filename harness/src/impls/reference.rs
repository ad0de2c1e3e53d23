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
    decode, FdeType, FreType, Quirk, Quirks, Section, SectionIndex, SectionRef, Stored, Version,
    Violation,
};
use std::hint::black_box;

/// The `sframe-spec` crate.
#[derive(Debug, Default, Clone, Copy)]
pub struct Reference;

fn rejected<T>(v: &Violation) -> Outcome<T> {
    Outcome::rejected(v.rule.id(), Some(v.to_string()))
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

/// The facts of functions read one by one ([`Quirk::PerFunctionErrors`]): each with its
/// FDE's fields as stored (the FRE count as stored, not as read), the FREs read and the error
/// that stopped them (its rule as the error class).
fn facts_per_function(s: &Section, functions: &[FunctionRead], quirks: Quirks) -> Decoded {
    let mut d = facts_of_with(s, quirks);
    d.header.num_fdes = Some(functions.len() as u32);
    let v3 = s.version == Version::V3;
    d.functions = functions
        .iter()
        .map(|r| {
            let f = &r.fields;
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
                    fre_type: FreType::from_u8(fde_info::fre_type(f.info)).map(Stored::Defined),
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
                facts.fde_type =
                    FdeType::from_u8(fde_info2::fde_type(f.info2)).map(Stored::Defined);
            }
            facts.num_fres = Some(f.num_fres);
            facts.error = r.error.as_ref().map(|v| v.rule.id().to_string());
            facts
        })
        .collect();
    d
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
    /// [`decode_per_function_within`]).
    pub fn decode(&self, data: &[u8], max_fres: usize) -> Outcome<Decoded> {
        if self.0.has(Quirk::PerFunctionErrors) {
            return match decode_per_function_within(data, self.0, max_fres) {
                Ok((s, functions)) => Outcome::ok(facts_per_function(&s, &functions, self.0)),
                Err(v) => rejected(&v),
            };
        }
        match decode_with(data, self.0) {
            Ok(s) => Outcome::ok(facts_of_with(&s, self.0)),
            Err(v) => rejected(&v),
        }
    }
    pub fn find_fres(&self, data: &[u8], pcs: &[i64]) -> Vec<Outcome<Option<Found>>> {
        match SectionRef::parse_with(data, self.0) {
            Ok(s) => pcs.iter().map(|&pc| find_in(&s, pc)).collect(),
            Err(v) => pcs.iter().map(|_| rejected(&v)).collect(),
        }
    }
}
