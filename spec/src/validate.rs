//! The validator: every rule of the catalogue checked against a section's bytes, reporting
//! every violation with its byte offset (not just the first).

use crate::clean_run::CleanRun;
use crate::constants::*;
use crate::decode::BlockSet;
use crate::error::Violation;
use crate::layout::header as ho;
use crate::read::{read_header, FdeRef, SectionRef};
use crate::recovery::Control;
use crate::rules::{Class, Rule, Severity};

/// Check every rule; violations come in section order as far as practical.
pub fn validate(data: &[u8]) -> Vec<Violation> {
    let mut out = Vec::new();
    let (endian, h) = match read_header(data) {
        Ok(x) => x,
        Err(v) => {
            out.push(v);
            return out;
        }
    };
    let version = h.version;

    // Flags (v3 §2.1.3).
    let undefined =
        h.flags & !(flags::FDE_SORTED | flags::FRAME_POINTER | flags::FDE_FUNC_START_PCREL);
    if undefined != 0 {
        let rule = if version == Version::V3 {
            Rule::HeaderFlagsReserved
        } else {
            Rule::HeaderFlagsUnknownLegacy
        };
        out.push(
            Violation::new(rule, ho::FLAGS)
                .found(h.flags)
                .expected(h.flags & !undefined),
        );
    }
    let foreign =
        h.flags & (flags::FRAME_POINTER | flags::FDE_FUNC_START_PCREL) & !version.defined_flags();
    if foreign != 0 {
        out.push(Violation::new(Rule::HeaderFlagVersion, ho::FLAGS).found(foreign));
    }

    // Header-level malformed rules, each checked on its own so that all are reported.
    let abi = Abi::from_u8(h.abi_arch).filter(|a| a.defined_in(version));
    if abi.is_none() {
        out.push(Violation::new(Rule::HeaderAbiKnown, ho::ABI_ARCH).found(h.abi_arch));
    }
    let section = match SectionRef::parse(data) {
        Ok(s) => s,
        Err(first) => {
            // Report the bounds rules independently of the ABI.
            let len = data.len() as u64;
            let hsize = h.size() as u64;
            if hsize > len {
                out.push(Violation::new(Rule::HeaderAuxFits, ho::AUXHDR_LEN).found(h.auxhdr_len));
            } else {
                let fde_end = hsize
                    + u64::from(h.fdeoff)
                    + u64::from(h.num_fdes) * version.fde_entry_size() as u64;
                if fde_end > len {
                    out.push(
                        Violation::new(Rule::HeaderFdeSubsectionFits, ho::NUM_FDES)
                            .found(h.num_fdes),
                    );
                }
                if hsize + u64::from(h.freoff) + u64::from(h.fre_len) > len {
                    out.push(
                        Violation::new(Rule::HeaderFreSubsectionFits, ho::FRE_LEN)
                            .found(i64::from(h.fre_len)),
                    );
                }
            }
            if !out.iter().any(|v| v.rule == first.rule) {
                out.push(first);
            }
            return out;
        }
    };
    let abi = section.abi();

    if abi.endian() != endian {
        out.push(Violation::new(Rule::HeaderAbiEndian, ho::ABI_ARCH).found(h.abi_arch));
    }
    match abi {
        Abi::Amd64 if h.cfa_fixed_ra_offset != -8 => out.push(
            Violation::new(Rule::HeaderFixedRaAmd64, ho::CFA_FIXED_RA_OFFSET)
                .found(h.cfa_fixed_ra_offset)
                .expected(-8),
        ),
        Abi::Aarch64Be | Abi::Aarch64Le | Abi::S390x
            if h.cfa_fixed_ra_offset != CFA_FIXED_OFFSET_INVALID =>
        {
            out.push(
                Violation::new(Rule::HeaderFixedRaTracked, ho::CFA_FIXED_RA_OFFSET)
                    .found(h.cfa_fixed_ra_offset)
                    .expected(0),
            )
        }
        _ => {}
    }
    if h.fdeoff != 0 {
        out.push(
            Violation::new(Rule::HeaderFdeOffsetZero, ho::FDEOFF)
                .found(i64::from(h.fdeoff))
                .expected(0),
        );
    }
    let fde_bytes = i64::from(h.num_fdes) * version.fde_entry_size() as i64;
    if i64::from(h.freoff) - i64::from(h.fdeoff) != fde_bytes {
        out.push(
            Violation::new(Rule::HeaderFdeSubsectionTiles, ho::FREOFF)
                .found(i64::from(h.freoff))
                .expected(i64::from(h.fdeoff) + fde_bytes),
        );
    }
    let (fre_lo, fre_hi) = section.fre_subsection();
    if fre_hi != data.len() {
        out.push(
            Violation::new(Rule::HeaderSectionEnd, fre_hi)
                .found(data.len() as i64)
                .expected(fre_hi as i64),
        );
    }

    // Functions.
    let mut blocks = BlockSet::default();
    let mut blocks_sound = true;
    let mut fre_total: u64 = 0;
    let mut order = OrderCheck::new(&section);
    let clean = CleanRun::for_section(&section);
    for i in 0..section.num_fdes() {
        let fde = match section.fde(i) {
            Ok(f) => f,
            Err(v) => {
                if let Some((start, size)) = section.fde_range(i) {
                    order.see(
                        &section,
                        Range {
                            start,
                            size,
                            index: i,
                        },
                    );
                }
                out.push(v);
                blocks_sound = false;
                continue;
            }
        };
        // The reader's start and size are the search's (no quirks here).
        order.see(
            &section,
            Range {
                start: fde.start,
                size: fde.size,
                index: i,
            },
        );
        fre_total += u64::from(fde.num_fres);
        check_fde(&section, &fde, &mut out);
        let clean_end = clean.as_ref().and_then(|c| c.end(&section, &fde));
        match clean_end.or_else(|| check_fres(&section, &fde, &mut out)) {
            Some(end) => {
                let start = fde.attr_offset.unwrap_or(fde.data_start);
                if blocks.insert(start, end).is_err() {
                    out.push(
                        Violation::new(Rule::FdeBlocksDisjoint, fde.offset)
                            .at_function(i)
                            .found(i64::from(fde.fre_off)),
                    );
                    blocks_sound = false;
                }
            }
            None => blocks_sound = false,
        }
    }
    if fre_total != u64::from(h.num_fres) {
        out.push(
            Violation::new(Rule::HeaderNumFres, ho::NUM_FRES)
                .found(i64::from(h.num_fres))
                .expected(fre_total as i64),
        );
    }
    order.finish(&section, &mut out);
    if blocks_sound {
        for (start, len) in blocks.gaps(fre_lo, fre_hi) {
            out.push(Violation::new(Rule::FreSubsectionDense, start).found(len as i64));
        }
    }
    out
}

/// FDE-SORTED (when the section says its FDEs are sorted) and FDE-OVERLAP, over the FDEs
/// whose start and size read, fed in section order. While the functions of non-zero size come
/// in (start, size, index) order, the pairs a sort would give are the neighbours met on the
/// way; only when they do not are their ranges read again, copied and sorted (memory
/// O(FDEs)).
struct OrderCheck {
    sorted_flag: bool,
    unsorted: Vec<Violation>,
    in_order: bool,
    overlaps: Vec<Violation>,
    /// The start of the FDE seen last (`i64::MIN` before the first).
    prev_start: i64,
    /// The last function of non-zero size seen while they came in order.
    prev_sized: Option<Range>,
}

/// A function's range as FDE `index` gives it: `size` bytes from `start`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Range {
    start: i64,
    size: u32,
    index: usize,
}

impl OrderCheck {
    fn new(section: &SectionRef<'_>) -> OrderCheck {
        OrderCheck {
            sorted_flag: section.is_sorted(),
            unsorted: Vec::new(),
            in_order: true,
            overlaps: Vec::new(),
            prev_start: i64::MIN,
            prev_sized: None,
        }
    }

    #[inline(always)]
    fn see(&mut self, section: &SectionRef<'_>, r: Range) {
        if self.sorted_flag && r.start < self.prev_start {
            self.unsorted.push(
                Violation::new(Rule::FdeSorted, section.fde_offset(r.index))
                    .at_function(r.index)
                    .found(r.start)
                    .expected(self.prev_start),
            );
        }
        self.prev_start = r.start;
        if r.size > 0 && self.in_order {
            if let Some(p) = self.prev_sized {
                self.in_order = (p.start, p.size) <= (r.start, r.size);
                if r.start < p.end() {
                    self.overlaps.push(overlap(section, p, r));
                }
            }
            self.prev_sized = Some(r);
        }
    }

    fn finish(mut self, section: &SectionRef<'_>, out: &mut Vec<Violation>) {
        out.append(&mut self.unsorted);
        if self.in_order {
            out.append(&mut self.overlaps);
            return;
        }
        let mut by_start: Vec<Range> = (0..section.num_fdes())
            .filter_map(|index| {
                let (start, size) = section.fde_range(index)?;
                Some(Range { start, size, index })
            })
            .filter(|r| r.size > 0)
            .collect();
        by_start.sort();
        out.extend(
            by_start
                .windows(2)
                .filter(|w| w[1].start < w[0].end())
                .map(|w| overlap(section, w[0], w[1])),
        );
    }
}

impl Range {
    /// Where the function ends (saturating).
    fn end(&self) -> i64 {
        self.start.saturating_add(i64::from(self.size))
    }
}

/// FDE-OVERLAP of `second` with `first`, which starts no later and ends after `second`'s
/// start.
fn overlap(section: &SectionRef<'_>, first: Range, second: Range) -> Violation {
    Violation::new(Rule::FdeOverlap, section.fde_offset(second.index))
        .at_function(second.index)
        .found(second.start)
        .expected(first.end())
}

#[inline]
fn check_fde(s: &SectionRef<'_>, fde: &FdeRef, out: &mut Vec<Violation>) {
    let v = s.version();
    let i = fde.index;
    let info_off = fde.attr_offset.map_or(fde.offset + 16, |a| a + 2);
    let rep_off = fde.attr_offset.map_or(fde.offset + 17, |a| a + 4);
    let unused = fde.info_unused_bits(v);
    if unused != 0 {
        out.push(
            Violation::new(Rule::FdeInfoUnused, info_off)
                .at_function(i)
                .found(unused),
        );
    }
    if fde.info2_unused_bits() != 0 {
        out.push(
            Violation::new(Rule::FdeInfoUnused, info_off + 1)
                .at_function(i)
                .found(fde.info2_unused_bits()),
        );
    }
    if !s.abi().is_aarch64() && fde.pauth_key() == PauthKey::B {
        out.push(Violation::new(Rule::FdePauthKeyAbi, info_off).at_function(i));
    }
    if v != Version::V1 {
        match fde.pc_type() {
            PcType::Mask if fde.rep_size == 0 => out.push(
                Violation::new(Rule::FdeRepSizeMask, rep_off)
                    .at_function(i)
                    .found(0),
            ),
            PcType::Inc if fde.rep_size != 0 => out.push(
                Violation::new(Rule::FdeRepSizeInc, rep_off)
                    .at_function(i)
                    .found(fde.rep_size)
                    .expected(0),
            ),
            _ => {}
        }
    }
    if v == Version::V2 && fde.padding != 0 {
        out.push(
            Violation::new(Rule::FdePadding, fde.offset + 18)
                .at_function(i)
                .found(fde.padding)
                .expected(0),
        );
    }
    if fde.size == 0 {
        out.push(
            Violation::new(
                Rule::FdeSizeZero,
                fde.offset + if v == Version::V3 { 8 } else { 4 },
            )
            .at_function(i)
            .found(0),
        );
    }
    if fde.signal(v) && fde.num_fres == 0 {
        out.push(Violation::new(Rule::FdeSignalV3, info_off).at_function(i));
    }
}

/// The rules a default-type FRE of `count` data words breaks by its count alone, in
/// `version` and `abi` (FRE-COUNT-MAX, and the ABI's FRE-COUNT-*), each with the count
/// expected where the rule names one.
pub(crate) fn count_faults(
    version: Version,
    abi: Abi,
    count: usize,
) -> [Option<(Rule, Option<i64>)>; 2] {
    let max = (version != Version::V3 && count > 3).then_some((Rule::FreCountMax, Some(3)));
    let by_abi = match abi {
        Abi::Amd64 if count > 2 => Some(Rule::FreCountAmd64),
        Abi::Aarch64Be | Abi::Aarch64Le if version == Version::V3 && (count == 2 || count > 3) => {
            Some(Rule::FreCountAarch64)
        }
        Abi::S390x if count > 3 => Some(Rule::FreCountS390x),
        _ => None,
    };
    [max, by_abi.map(|r| (r, None))]
}

/// The end of what `fde`'s FREs describe: the function's size, or a PC-mask function's
/// repetition size. An FRE starting there breaks FRE-START-AT-END (it describes no
/// instruction), past it FRE-START-IN-FUNCTION; `None` where there is nothing to check (a
/// v2/v3 PC-mask function without a repetition size, and a function of size 0, which
/// FDE-SIZE-ZERO reports once).
pub(crate) fn start_limit(version: Version, fde: &FdeRef) -> Option<u32> {
    match (fde.pc_type(), version) {
        (PcType::Mask, Version::V2 | Version::V3) if fde.rep_size > 0 => {
            Some(u32::from(fde.rep_size))
        }
        (PcType::Mask, Version::V2 | Version::V3) => None,
        _ => Some(fde.size),
    }
    .filter(|&l| l > 0 || fde.pc_type() == PcType::Mask)
}

/// Check the FREs of `fde`; returns the end of its data, or `None` when it could not be read.
#[inline]
pub(crate) fn check_fres(
    s: &SectionRef<'_>,
    fde: &FdeRef,
    out: &mut Vec<Violation>,
) -> Option<usize> {
    let v = s.version();
    let abi = s.abi();
    let i = fde.index;
    let mut prev: Option<u32> = None;
    let limit = start_limit(v, fde);
    let mut iter = s.fres(fde);
    for (k, fre) in iter.by_ref().enumerate() {
        let fre = match fre {
            Ok(f) => f,
            Err(e) => {
                out.push(e);
                return None;
            }
        };
        let at = |rule| Violation::new(rule, fre.offset).at_function(i).at_fre(k);
        if let Some(p) = prev {
            if fre.start <= p {
                out.push(
                    at(Rule::FreStartIncreasing)
                        .found(i64::from(fre.start))
                        .expected(i64::from(p) + 1),
                );
            }
        }
        prev = Some(fre.start);
        if let Some(limit) = limit {
            // At the end: no instruction left to describe (a warning, the texts are
            // silent); past it: outside the function.
            let rule = match fre.start.cmp(&limit) {
                core::cmp::Ordering::Less => None,
                core::cmp::Ordering::Equal => Some(Rule::FreStartAtEnd),
                core::cmp::Ordering::Greater => Some(Rule::FreStartInFunction),
            };
            if let Some(rule) = rule {
                out.push(
                    at(rule)
                        .found(i64::from(fre.start))
                        .expected(i64::from(limit)),
                );
            }
        }
        if k == 0 && fde.pc_type() == PcType::Inc && fre.start != 0 {
            out.push(
                at(Rule::FreFirstAtZero)
                    .found(i64::from(fre.start))
                    .expected(0),
            );
        }
        let count = fre.dataword_count();
        let info_at = |rule| {
            Violation::new(rule, fre.offset + fde.fre_type.addr_size())
                .at_function(i)
                .at_fre(k)
        };
        if fde.fde_type == FdeType::Default {
            for (rule, expected) in count_faults(v, abi, count).into_iter().flatten() {
                let found = info_at(rule).found(count as i64);
                out.push(match expected {
                    Some(e) => found.expected(e),
                    None => found,
                });
            }
            if abi == Abi::S390x {
                if v == Version::V3 {
                    for w in 1..count.min(3) {
                        if fre.dataword(w).is_some_and(s390x_v2_offset_is_regnum) {
                            out.push(
                                Violation::new(Rule::FreS390xV3NoRegnum, fre.dataword_offset(w))
                                    .at_function(i)
                                    .at_fre(k),
                            );
                        }
                    }
                }
                if count == 2 && fre.dataword(1) == Some(FRE_RA_OFFSET_INVALID) {
                    out.push(
                        Violation::new(Rule::FreS390xRaPadding, fre.dataword_offset(1))
                            .at_function(i)
                            .at_fre(k),
                    );
                }
            }
        } else {
            for c in flex_control_positions(&fre) {
                if fre.control_word(c).is_some_and(|w| w & 4 != 0) {
                    out.push(
                        Violation::new(Rule::FlexControlUnused, fre.dataword_offset(c))
                            .at_function(i)
                            .at_fre(k),
                    );
                }
            }
        }
        if fre.mangled_ra() && !abi.is_aarch64() {
            out.push(info_at(Rule::FreMangledRaAbi));
        }
        if let Err(rule) = s.recovery_fault(fde, &fre) {
            out.push(info_at(rule).found(count as i64));
        }
    }
    Some(iter.position())
}

/// Indices of the control words of a flex FRE, as far as its layout can be followed.
fn flex_control_positions(fre: &crate::read::FreRef<'_>) -> Vec<usize> {
    let n = fre.dataword_count();
    let mut pos = Vec::new();
    if n == 0 {
        return pos;
    }
    pos.push(0);
    if n > 2 {
        pos.push(2);
        let ra = fre
            .dataword(2)
            .map(|w| Control::from_word(w, fre.dataword_size));
        let fp_at = if ra.is_some_and(|c| c.is_padding()) {
            3
        } else {
            4
        };
        if n > fp_at {
            pos.push(fp_at);
        }
    }
    pos
}

/// Whether a list of violations leaves the section valid: no error-severity rule broken.
pub fn is_valid(violations: &[Violation]) -> bool {
    violations
        .iter()
        .all(|v| v.rule.info().severity != Severity::Error)
}

/// Whether any violation is of a malformed-class rule (the reader cannot decode the bytes).
pub fn is_malformed(violations: &[Violation]) -> bool {
    violations
        .iter()
        .any(|v| v.rule.info().class == Class::Malformed)
}
