//! A look-up index built once from a section: the reference's look-up
//! ([`SectionRef::find`] with no quirk) answered from a compact copy of the FDE table.
//!
//! [`SectionIndex::new`] reads every FDE's resolved start and size once (16 bytes a function,
//! where the section spends 16 to 20 on its FDE entry: memory O(input)) and notes whether the
//! starts really are in order. A look-up then searches that copy instead of re-reading and
//! re-resolving FDE entries at every probe, and reads only the FDE it lands on and its FREs,
//! zero-copy. The answers, errors included, are the reference's on every input, valid or
//! not: the same search (the same probe order, through [`crate::search`], when a section
//! claims to be sorted and is not), then the same reads in the same order. A section read
//! with quirks is not indexed: its look-ups are [`SectionRef::find`]'s.

use crate::constants::PcType;
use crate::error::Violation;
use crate::lookup::Found;
use crate::read::{FdeRef, SectionRef};
use crate::search::partition;

/// A section with its FDE table indexed for look-ups (see the module docs).
#[derive(Debug, Clone)]
pub struct SectionIndex<'a> {
    section: SectionRef<'a>,
    /// Resolved start and size of each FDE, in the section's order, and where its FREs
    /// start in `fres` when they can be searched there (see [`SectionIndex::new`]), else
    /// [`NOT_COPIED`]; empty when not indexed.
    fdes: Vec<(i64, u32, u32)>,
    /// Whether the look-ups use `starts`: the section is read without quirks and every FDE
    /// entry was read.
    indexed: bool,
    /// Whether the starts never decrease (then any search for the last start at or below
    /// the PC finds what the reference's binary search does).
    ordered: bool,
    /// When ordered: where to search, by the PC's distance from the lowest start.
    buckets: Buckets,
    /// Start address and absolute offset of the FREs of those functions.
    fres: Vec<(u32, u32)>,
}

/// The `first_fre` of a function whose FREs are read from the section at each look-up.
const NOT_COPIED: u32 = u32::MAX;

/// A radix table over ordered starts: `first[k]` is the first FDE whose start is at least
/// `lowest + (k << shift)`, so the FDEs a PC can fall in lie between two neighbouring
/// entries. There are at most as many entries as FDEs (rounded up to a power of two).
#[derive(Debug, Clone, Default)]
struct Buckets {
    lowest: i64,
    shift: u32,
    first: Vec<u32>,
}

impl Buckets {
    fn new(fdes: &[(i64, u32, u32)]) -> Buckets {
        let (Some(&(lowest, ..)), Some(&(highest, ..))) = (fdes.first(), fdes.last()) else {
            return Buckets::default();
        };
        let span = (i128::from(highest) - i128::from(lowest)) as u128;
        let wanted = (fdes.len() as u128).next_power_of_two();
        let mut shift = 0u32;
        while (span >> shift) >= wanted {
            shift += 1;
        }
        let count = (span >> shift) as usize + 1;
        let mut first = Vec::with_capacity(count);
        let mut i = 0usize;
        for k in 0..count {
            let low = i128::from(lowest) + ((k as i128) << shift);
            while fdes.get(i).is_some_and(|f| i128::from(f.0) < low) {
                i += 1;
            }
            first.push(i as u32);
        }
        Buckets {
            lowest,
            shift,
            first,
        }
    }

    /// How many FDEs start at or before `pc`.
    fn count_at_or_before(&self, fdes: &[(i64, u32, u32)], pc: i64) -> usize {
        if pc < self.lowest {
            return 0;
        }
        let k = (i128::from(pc) - i128::from(self.lowest)) as u128 >> self.shift;
        let at = |k: u128| {
            usize::try_from(k)
                .ok()
                .and_then(|k| self.first.get(k))
                .map_or(fdes.len(), |&i| i as usize)
        };
        let (lo, hi) = (at(k), at(k + 1));
        lo + fdes
            .get(lo..hi)
            .map_or(0, |run| run.partition_point(|f| f.0 <= pc))
    }
}

impl<'a> SectionIndex<'a> {
    /// Index `section`. Time and memory are O(input): every FDE is read, and the FREs of
    /// each PC-increment function whose FREs all read and start in order are copied (start
    /// and offset, 8 bytes an FRE), up to as many FREs in all as the section could hold
    /// disjointly (half its length: functions may share FREs); the FREs of other functions
    /// are read at each look-up, as the reference reads them.
    pub fn new(section: SectionRef<'a>) -> SectionIndex<'a> {
        let n = if section.quirks().is_empty() {
            section.num_fdes()
        } else {
            0
        };
        // The FDE table fits in the section (`SectionRef::parse`), so `n` is bounded by the
        // input's length.
        let mut fdes = Vec::with_capacity(n);
        let mut indexed = section.quirks().is_empty();
        for i in 0..n {
            match section.fde_range(i) {
                Some((start, size)) => fdes.push((start, size, NOT_COPIED)),
                None => {
                    indexed = false;
                    break;
                }
            }
        }
        if !indexed {
            fdes = Vec::new();
        }
        let ordered = fdes.windows(2).all(|w| w[0].0 <= w[1].0);
        let buckets = if ordered && section.is_sorted() {
            Buckets::new(&fdes)
        } else {
            Buckets::default()
        };
        let fres = copy_fres(&section, &mut fdes);
        SectionIndex {
            section,
            fdes,
            indexed,
            ordered,
            buckets,
            fres,
        }
    }

    /// Parse `data` as the reference reads it ([`SectionRef::parse`]) and index it.
    pub fn parse(data: &'a [u8]) -> Result<SectionIndex<'a>, Violation> {
        SectionRef::parse(data).map(SectionIndex::new)
    }

    /// The section indexed.
    pub fn section(&self) -> &SectionRef<'a> {
        &self.section
    }

    /// FDE and FRE for `pc` (section-relative): exactly [`SectionRef::find`]'s answer.
    pub fn find(&self, pc: i64) -> Result<Option<Found<'a>>, Violation> {
        if !self.indexed {
            return self.section.find(pc);
        }
        let Some(fde) = self.find_fde(pc)? else {
            return Ok(None);
        };
        if let Some(run) = self.copied_fres(&fde) {
            // PC-increment FREs in order, all readable: the reference's scan stops at the
            // first FRE starting after the PC and takes the one before.
            let pc_off = pc.wrapping_sub(fde.start);
            if !fde.contains_offset(pc_off) {
                return Ok(None);
            }
            let k = run.partition_point(|f| u64::from(f.0) <= pc_off as u64);
            let Some((k, &(_, off))) = k.checked_sub(1).and_then(|k| Some((k, run.get(k)?))) else {
                return Ok(None);
            };
            let fre = self.section.fre_at(&fde, off as usize, k)?;
            return Ok(Some(Found {
                fde,
                fre_index: k,
                fre,
            }));
        }
        Ok(self
            .section
            .find_fre_in(&fde, pc)?
            .map(|(fre_index, fre)| Found {
                fde,
                fre_index,
                fre,
            }))
    }

    /// The FDE for `pc`: exactly [`SectionRef::find_fde`]'s answer.
    pub fn find_fde(&self, pc: i64) -> Result<Option<FdeRef>, Violation> {
        if !self.indexed {
            return self.section.find_fde(pc);
        }
        let fdes = &self.fdes;
        let contains = |&(start, size, _): &(i64, u32, u32)| {
            pc >= start && pc.checked_sub(start).is_some_and(|d| d < i64::from(size))
        };
        let found = if !self.section.is_sorted() {
            fdes.iter().position(contains)
        } else {
            let after = if self.ordered {
                self.buckets.count_at_or_before(fdes, pc)
            } else {
                // The reference's probes, on the copy.
                partition(fdes.len(), |i| fdes.get(i).map(|f| f.0 <= pc).ok_or(())).unwrap_or(0)
            };
            after.checked_sub(1)
        };
        let Some((i, fde)) = found.and_then(|i| Some((i, fdes.get(i)?))) else {
            return Ok(None);
        };
        if !contains(fde) {
            // The reference reads the FDE's fields before it checks the size.
            self.section.fde_fields(i)?;
            return Ok(None);
        }
        self.section.fde(i).map(Some)
    }
}

impl SectionIndex<'_> {
    /// The copied FREs of `fde`, when they were copied.
    fn copied_fres(&self, fde: &FdeRef) -> Option<&[(u32, u32)]> {
        let first = self.fdes.get(fde.index)?.2;
        if first == NOT_COPIED {
            return None;
        }
        let first = first as usize;
        self.fres
            .get(first..first.checked_add(fde.num_fres as usize)?)
    }
}

/// The FRE copies of [`SectionIndex::new`] for the FDEs `fdes` of `section` (their
/// `first_fre` is set where copied).
fn copy_fres(section: &SectionRef<'_>, fdes: &mut [(i64, u32, u32)]) -> Vec<(u32, u32)> {
    let mut budget = section.data().len() / 2;
    let mut fres = Vec::new();
    for (i, entry) in fdes.iter_mut().enumerate() {
        let Ok(fde) = section.fde(i) else {
            continue;
        };
        let first = fres.len();
        let mut copied = fde.pc_type() == PcType::Inc
            && u32::try_from(first).is_ok_and(|f| f != NOT_COPIED)
            && (fde.num_fres as usize) <= budget;
        if copied {
            budget -= fde.num_fres as usize;
            let mut prev = 0u32;
            for fre in section.fres(&fde) {
                match fre
                    .ok()
                    .and_then(|f| Some((f.start, u32::try_from(f.offset).ok()?)))
                {
                    Some((start, off)) if start >= prev => {
                        prev = start;
                        fres.push((start, off));
                    }
                    _ => {
                        copied = false;
                        break;
                    }
                }
            }
        }
        if copied {
            entry.2 = first as u32;
        } else {
            fres.truncate(first);
        }
    }
    fres
}
