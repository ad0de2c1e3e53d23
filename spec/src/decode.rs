//! Decoding bytes into the owned [`Section`] model.
//!
//! Fails with the first malformed-class violation. Allocation is bounded by the input: the
//! FDE count is checked against the bytes before anything is reserved, every FRE consumes at
//! least two bytes of input, and function data blocks are checked to be disjoint as they are
//! read (rule FDE-BLOCKS-DISJOINT), so no two functions can re-read the same bytes.

use crate::constants::*;
use crate::error::Violation;
use crate::model::{Fre, Function, ReservedBits, Section};
use crate::read::{FdeFields, FdeRef, SectionRef};
use crate::rules::Rule;
use std::collections::BTreeMap;

/// Decode a whole section.
pub fn decode(data: &[u8]) -> Result<Section, Violation> {
    decode_with(data, crate::Quirks::NONE)
}

/// [`decode`] as an implementation with `quirks` reads the section (see [`crate::quirks`]).
pub fn decode_with(data: &[u8], quirks: crate::Quirks) -> Result<Section, Violation> {
    let s = SectionRef::parse_with(data, quirks)?;
    let h = *s.header();
    let mut functions = Vec::with_capacity(s.num_fdes());
    let mut blocks = BlockSet::default();
    // A reader that lists no function of a v1 section reads none ([`Quirk::V1FunctionsUnlisted`]).
    let listed = if h.version == crate::Version::V1
        && quirks.has(crate::quirks::Quirk::V1FunctionsUnlisted)
    {
        0
    } else {
        s.num_fdes()
    };
    for i in 0..listed {
        let fde = s.fde(i)?;
        let (function, block) = decode_function(&s, &fde)?;
        blocks.insert(block.0, block.1).map_err(|_| {
            Violation::new(Rule::FdeBlocksDisjoint, fde.offset)
                .at_function(i)
                .found(i64::from(fde.fre_off))
        })?;
        functions.push(function);
    }
    Ok(section_model(&s, functions))
}

/// The model of `s`'s header facts, with `functions`.
fn section_model(s: &SectionRef<'_>, functions: Vec<Function>) -> Section {
    let h = s.header();
    Section {
        version: h.version,
        endian: s.endian(),
        flags: h.flags,
        abi: s.abi(),
        cfa_fixed_fp_offset: h.cfa_fixed_fp_offset,
        cfa_fixed_ra_offset: h.cfa_fixed_ra_offset,
        aux_header: s
            .data()
            .get(HEADER_SIZE..h.size())
            .unwrap_or_default()
            .to_vec(),
        functions,
    }
}

/// One function as a reader that reports errors per function reads it
/// ([`decode_per_function_with`]).
#[derive(Debug, Clone)]
pub struct FunctionRead {
    /// The FDE's fields as stored.
    pub fields: FdeFields,
    /// The start, resolved as this reader resolves it.
    pub start: i64,
    /// The function with the FREs read before any error; `None` when its FDE does not
    /// describe a readable function (invalid FRE or FDE type, FREs outside the sub-section).
    pub function: Option<Function>,
    /// Why reading its FREs stopped early; `None` when every FRE was read (an unreadable FDE
    /// without FREs is no error: there is nothing to read).
    pub error: Option<Violation>,
}

/// Decode every function on its own, as a reader with [`Quirk::PerFunctionErrors`] does: a
/// function whose FREs cannot be read is reported with its error and the FREs read before
/// it, and the others are read on. The header's checks ([`SectionRef::parse_with`]) still
/// fail the whole section. The returned [`Section`] has the header's facts and no functions.
///
/// Functions may share bytes here (nothing checks their blocks are disjoint), so the FREs
/// read in all are bounded by the input's length (each takes two bytes or more) times 4:
/// past that the section is refused as a whole (rule FRE-FITS). [`decode_per_function_within`]
/// takes another bound.
///
/// [`Quirk::PerFunctionErrors`]: crate::Quirk::PerFunctionErrors
pub fn decode_per_function_with(
    data: &[u8],
    quirks: crate::Quirks,
) -> Result<(Section, Vec<FunctionRead>), Violation> {
    decode_per_function_within(data, quirks, data.len().saturating_mul(4))
}

/// [`decode_per_function_with`], reading at most `max_fres` FREs in all before refusing the
/// section (rule FRE-FITS). A caller comparing with a reader that kept more rows in memory
/// (functions that share a block of garbage FREs) passes that reader's count: the bound stays
/// the caller's, never the input's.
pub fn decode_per_function_within(
    data: &[u8],
    quirks: crate::Quirks,
    max_fres: usize,
) -> Result<(Section, Vec<FunctionRead>), Violation> {
    let s = SectionRef::parse_with(data, quirks)?;
    let version = s.version();
    let budget = max_fres;
    let mut total = 0usize;
    let mut out = Vec::with_capacity(s.num_fdes());
    for i in 0..s.num_fdes() {
        let fields = s.fde_fields(i)?;
        let start = s.resolve_start(fields.offset, fields.raw_start);
        let fde = match s.fde(i) {
            Ok(f) => f,
            Err(v) => {
                let error = (fields.num_fres > 0).then_some(v);
                out.push(FunctionRead {
                    fields,
                    start,
                    function: None,
                    error,
                });
                continue;
            }
        };
        let mut fres = Vec::new();
        let mut error = None;
        for fre in s.fres(&fde) {
            match fre {
                Ok(fre) if s.fails_sanity(&fre) => {
                    error = Some(
                        Violation::new(Rule::FreCountMax, fre.offset)
                            .at_function(i)
                            .at_fre(fres.len())
                            .found(fre.dataword_count() as i64),
                    );
                    break;
                }
                Ok(fre) => {
                    total += 1;
                    if total > budget {
                        return Err(Violation::new(Rule::FreFits, fre.offset).at_function(i));
                    }
                    fres.push(fre_model(&fre));
                }
                Err(v) => {
                    error = Some(v);
                    break;
                }
            }
        }
        let function = function_model(&fde, version, start, fres);
        out.push(FunctionRead {
            fields,
            start,
            function: Some(function),
            error,
        });
    }
    Ok((section_model(&s, Vec::new()), out))
}

/// Decode one function; also returns the absolute `[start, end)` of its data block.
pub fn decode_function(
    s: &SectionRef<'_>,
    fde: &FdeRef,
) -> Result<(Function, (usize, usize)), Violation> {
    let version = s.version();
    let mut iter = s.fres(fde);
    // At most the FRE count, and no more than the bytes left could hold.
    let mut fres = Vec::with_capacity(iter.size_hint().1.unwrap_or(0));
    for fre in iter.by_ref() {
        fres.push(fre_model(&fre?));
    }
    let block_start = fde.attr_offset.unwrap_or(fde.data_start);
    let block_end = iter.position();
    let function = function_model(fde, version, fde.start, fres);
    Ok((function, (block_start, block_end)))
}

/// The model of an FRE as read.
fn fre_model(fre: &crate::read::FreRef<'_>) -> Fre {
    Fre {
        start: fre.start,
        base_reg: fre.base_reg(),
        mangled_ra: fre.mangled_ra(),
        dataword_size: fre.dataword_size,
        datawords: (0..fre.dataword_count())
            .map(|k| fre.dataword(k).unwrap_or_default() as i32)
            .collect(),
    }
}

/// The model of the function `fde` (of a section of `version`) describes, starting at
/// `start` (the start as the caller resolved it), with `fres`.
fn function_model(fde: &FdeRef, version: crate::Version, start: i64, fres: Vec<Fre>) -> Function {
    Function {
        start,
        size: fde.size,
        fre_type: fde.fre_type,
        pc_type: fde.pc_type(),
        fde_type: fde.fde_type,
        pauth_key: fde.pauth_key(),
        signal: fde.signal(version),
        rep_size: fde.rep_size,
        reserved: ReservedBits {
            info: fde.info_unused_bits(version),
            info2: fde.info2_unused_bits(),
            padding: fde.padding,
        },
        fre_offset: Some(fde.fre_off),
        fres,
    }
}

/// Disjoint half-open intervals; empty intervals are accepted and never overlap.
///
/// Blocks inserted in order of their starts (as a well-formed section lays functions out)
/// are appended to a sorted list in O(1); the first one out of order moves the list into a
/// map, where each insertion costs O(log n).
#[derive(Default)]
pub(crate) struct BlockSet {
    /// Sorted by start while every insertion came in order, neighbouring blocks merged.
    in_order: Vec<(usize, usize)>,
    /// Every block, once one came out of order (then `in_order` is empty).
    by_start: BTreeMap<usize, usize>,
}

/// [`BlockSet::insert`]'s answer to a block that overlaps one already there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Overlap;

impl BlockSet {
    /// Insert `[start, end)`; `Err` when it overlaps a block already there.
    #[inline]
    pub(crate) fn insert(&mut self, start: usize, end: usize) -> Result<(), Overlap> {
        if end <= start {
            return Ok(());
        }
        if self.by_start.is_empty() {
            match self.in_order.last_mut() {
                // The last block is the one before `start`; none after it can overlap.
                Some((s, e)) if *s <= start => {
                    if *e > start {
                        return Err(Overlap);
                    }
                    if *e == start {
                        // Blocks that follow each other, as a producer lays them out, are
                        // kept as one: the set stays small.
                        *e = end;
                    } else {
                        self.in_order.push((start, end));
                    }
                    return Ok(());
                }
                None => {
                    self.in_order.push((start, end));
                    return Ok(());
                }
                Some(_) => self.by_start.extend(std::mem::take(&mut self.in_order)),
            }
        }
        if let Some((_, &e)) = self.by_start.range(..=start).next_back() {
            if e > start {
                return Err(Overlap);
            }
        }
        if let Some((&s, _)) = self.by_start.range(start..).next() {
            if s < end {
                return Err(Overlap);
            }
        }
        self.by_start.insert(start, end);
        Ok(())
    }

    /// Bytes of `[lo, hi)` not covered by any block, as `(start, len)` gaps.
    pub(crate) fn gaps(&self, lo: usize, hi: usize) -> Vec<(usize, usize)> {
        let mut gaps = Vec::new();
        let mut cursor = lo;
        let blocks = self
            .in_order
            .iter()
            .copied()
            .chain(self.by_start.iter().map(|(&s, &e)| (s, e)));
        for (s, e) in blocks {
            if s > cursor {
                gaps.push((cursor, s - cursor));
            }
            cursor = cursor.max(e);
        }
        if hi > cursor {
            gaps.push((cursor, hi - cursor));
        }
        gaps
    }
}

#[cfg(test)]
mod tests {
    use super::{BlockSet, Overlap};

    /// A v1 AMD64 little-endian section: one 17-byte FDE (start 0x100, size 0x10, one FRE),
    /// then the FRE `[start 0, info sp|1 word|1 byte, CFA offset 16]`.
    fn v1_one_function() -> Vec<u8> {
        let mut d = vec![0xe2, 0xde, 1, 0, 3, 0, 0xf8, 0];
        for v in [1u32, 1, 3, 0, 17] {
            d.extend_from_slice(&v.to_le_bytes());
        }
        for v in [0x100u32, 0x10, 0, 1] {
            d.extend_from_slice(&v.to_le_bytes());
        }
        d.push(0); // info: ADDR1, PC-increment
        d.extend_from_slice(&[0x00, 0x03, 0x10]);
        d
    }

    #[test]
    fn v1_read_as_v2_takes_the_next_bytes_for_rep_size_and_padding() {
        use crate::quirks::{Quirk, Quirks};
        let d = v1_one_function();
        let r = super::decode(&d).unwrap();
        assert_eq!(r.functions[0].reserved.padding, 0);
        // libsframe 2.44: a 20-byte sframe_func_desc_entry; its rep_size and padding are
        // the first three bytes after the 17-byte FDE (here the FRE's).
        let q = Quirks::NONE.with(Quirk::V1ReadAsV2);
        let s = super::decode_with(&d, q).unwrap();
        assert_eq!(s.functions[0].start, 0x100);
        assert_eq!(s.functions[0].rep_size, 0x00);
        assert_eq!(s.functions[0].reserved.padding, 0x1003);
        // Two FDEs of 20 bytes run past the 48 bytes: not refused up front (libsframe
        // copies past its buffer), the second FDE fails when read.
        let mut two = d.clone();
        two[8] = 2;
        assert!(crate::SectionRef::parse_with(&two, q).is_ok());
        assert!(super::decode_with(&two, q).is_err());
        // objdump 2.44 lists no function of a v1 section.
        let q = Quirks::NONE.with(Quirk::V1FunctionsUnlisted);
        let s = super::decode_with(&d, q).unwrap();
        assert!(s.functions.is_empty());
        assert_eq!(s.version, crate::Version::V1);
    }

    proptest::proptest! {
        /// The set answers as a plain list of blocks searched in full: a new block overlaps
        /// when the last one starting at or before it ends after its start, or one starts
        /// inside it; gaps are the bytes no block covers.
        #[test]
        fn block_set_is_a_list_of_disjoint_blocks(
            inserts in proptest::collection::vec((0usize..200, 0usize..30), 0..60),
            sorted in proptest::bool::ANY,
        ) {
            let mut inserts = inserts;
            if sorted {
                inserts.sort();
            }
            let mut set = BlockSet::default();
            let mut list: Vec<(usize, usize)> = Vec::new();
            for (start, len) in inserts {
                let end = start + len;
                let before = list.iter().filter(|b| b.0 <= start).max();
                let after = list.iter().filter(|b| b.0 >= start).min();
                let want = match (before, after) {
                    _ if len == 0 => Ok(()),
                    (Some(&(_, e)), _) if e > start => Err(Overlap),
                    (_, Some(&(s, _))) if s < end => Err(Overlap),
                    _ => Ok(()),
                };
                if want.is_ok() && len > 0 {
                    list.push((start, end));
                }
                proptest::prop_assert_eq!(set.insert(start, end), want);
            }
            let gaps: Vec<(usize, usize)> = (0..240)
                .filter(|&x| !list.iter().any(|b| b.0 <= x && x < b.1))
                .fold(Vec::new(), |mut g: Vec<(usize, usize)>, x| {
                    match g.last_mut() {
                        Some(last) if last.0 + last.1 == x => last.1 += 1,
                        _ => g.push((x, 1)),
                    }
                    g
                });
            proptest::prop_assert_eq!(set.gaps(0, 240), gaps);
        }
    }

    #[test]
    fn block_set_detects_overlap_and_gaps() {
        let mut b = BlockSet::default();
        assert!(b.insert(10, 20).is_ok());
        assert!(b.insert(20, 25).is_ok());
        assert!(b.insert(5, 5).is_ok());
        assert_eq!(b.insert(19, 21), Err(Overlap));
        assert_eq!(b.insert(0, 11), Err(Overlap));
        assert_eq!(b.insert(24, 30), Err(Overlap));
        assert_eq!(b.gaps(0, 30), vec![(0, 10), (25, 5)]);
        // Out of order: before the first block, between two, overlapping a later one.
        assert!(b.insert(2, 4).is_ok());
        assert_eq!(b.insert(3, 12), Err(Overlap));
        assert_eq!(b.insert(8, 12), Err(Overlap));
        assert!(b.insert(6, 8).is_ok());
        assert!(b.insert(30, 31).is_ok());
        assert_eq!(b.insert(26, 31), Err(Overlap));
        assert_eq!(
            b.gaps(0, 32),
            vec![(0, 2), (4, 2), (8, 2), (25, 5), (31, 1)]
        );
    }
}
