//! A look-up index built once from a section: the reference's look-up
//! ([`SectionRef::find`] with no quirk) answered from a compact table of its functions.
//!
//! [`SectionIndex::new`] reads every FDE once and keeps, per function, its resolved start and
//! size and how its FREs are searched (24 bytes a function, where the section spends 16 to
//! 20 on its FDE entry and at least 2 on each FRE: memory O(input)); it notes whether the
//! starts really are in order. A look-up then searches that table instead of re-reading and
//! re-resolving FDE entries at every probe, and reads only the FREs of the function it lands
//! on, zero-copy: in place, the way the reference scans them, for a function of up to
//! [`SCAN_MAX`] FREs; by binary search over a copy of their starts for a longer one. The
//! answers, errors included, are the reference's on every input, valid or not: the same
//! search (the same probe order, through [`crate::search`], when a section claims to be
//! sorted and is not), then the same reads in the same order. Every function whose FDE or
//! FREs the reference could fail to read, or reads under a PC mask, is looked up by the
//! reader itself. A section read with quirks is not indexed: its look-ups are
//! [`SectionRef::find`]'s.
//!
//! [`SectionIndex::find_fre`] answers what an unwinder asks (the row for a PC, and which
//! function and FRE it is) without building the whole [`FdeRef`]; [`SectionIndex::find`]
//! answers with it.

use crate::constants::{FreType, PcType};
use crate::error::Violation;
use crate::lookup::Found;
use crate::read::{FdeRef, FreRef, SectionRef};
use crate::search::partition;

/// Functions of at most this many FREs are searched in place, one FRE after the other as the
/// reference reads them; longer ones by binary search over a copy of their FRE starts.
pub const SCAN_MAX: u32 = 8;

/// A section with its FDE table indexed for look-ups (see the module docs).
#[derive(Debug, Clone)]
pub struct SectionIndex<'a> {
    section: SectionRef<'a>,
    /// One entry per FDE, in the section's order; empty when not indexed.
    fdes: Vec<Entry>,
    /// Whether the look-ups use `fdes`: the section is read without quirks and every FDE
    /// entry was read.
    indexed: bool,
    /// Whether the starts never decrease (then any search for the last start at or below
    /// the PC finds what the reference's binary search does).
    ordered: bool,
    /// When ordered: where to search, by the PC's distance from the lowest start.
    buckets: Buckets,
    /// Start address and absolute offset of the FREs of the functions searched
    /// [`Search::Copied`].
    copies: Vec<(u32, u32)>,
}

/// What the index keeps of one function.
#[derive(Debug, Clone, Copy)]
struct Entry {
    /// Resolved start (offset from the section's start) and size.
    start: i64,
    size: u32,
    num_fres: u32,
    /// [`Search::InPlace`]: absolute offset of the first FRE; [`Search::Copied`]: index of
    /// the first copy in [`SectionIndex::copies`]; [`Search::Reader`]: unused.
    at: u32,
    search: Search,
    fre_type: FreType,
}

/// How a function's FRE is found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Search {
    /// By the reader ([`SectionRef::find_fre_in`]): its FDE or one of its FREs may fail to
    /// read, its FREs are not in order, or it is a PC-mask function.
    Reader,
    /// A PC-increment function whose FREs all read and start in order, of up to
    /// [`SCAN_MAX`] FREs: scanned in place.
    InPlace,
    /// The same, longer: binary search over the copies of its FRE starts.
    Copied,
}

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
    fn new(fdes: &[Entry]) -> Buckets {
        let (Some(lowest), Some(highest)) = (fdes.first(), fdes.last()) else {
            return Buckets::default();
        };
        let lowest = lowest.start;
        let span = (i128::from(highest.start) - i128::from(lowest)) as u128;
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
            while fdes.get(i).is_some_and(|f| i128::from(f.start) < low) {
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
    #[inline]
    fn count_at_or_before(&self, fdes: &[Entry], pc: i64) -> usize {
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
            .map_or(0, |run| run.partition_point(|f| f.start <= pc))
    }
}

/// The row [`SectionIndex::find_fre`] finds for a PC: the FRE, its index in its function,
/// and that function's index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FreHit<'a> {
    pub function: usize,
    pub fre_index: usize,
    pub fre: FreRef<'a>,
}

/// What the index answers without the reader: the row, or none; `None` when the reader must
/// answer.
type Fast<'a> = Option<Option<FreHit<'a>>>;

impl<'a> SectionIndex<'a> {
    /// Index `section`. Time and memory are O(input): every FDE and every FRE is read once;
    /// FRE starts are copied (8 bytes an FRE) only for functions of more than [`SCAN_MAX`]
    /// FREs, up to as many FREs in all as the section could hold disjointly (half its
    /// length: functions may share FREs).
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
                Some((start, size)) => fdes.push(Entry {
                    start,
                    size,
                    num_fres: 0,
                    at: 0,
                    search: Search::Reader,
                    fre_type: FreType::Addr1,
                }),
                None => {
                    indexed = false;
                    break;
                }
            }
        }
        if !indexed {
            fdes = Vec::new();
        }
        let ordered = fdes.windows(2).all(|w| w[0].start <= w[1].start);
        let buckets = if ordered && section.is_sorted() {
            Buckets::new(&fdes)
        } else {
            Buckets::default()
        };
        let copies = plan_searches(&section, &mut fdes);
        SectionIndex {
            section,
            fdes,
            indexed,
            ordered,
            buckets,
            copies,
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

    /// The FRE for `pc` (section-relative), with its function's index: the FRE, FRE index
    /// and FDE index of [`SectionRef::find`]'s answer, errors included.
    #[inline]
    pub fn find_fre(&self, pc: i64) -> Result<Option<FreHit<'a>>, Violation> {
        if let Some(hit) = self.fast(pc) {
            return Ok(hit);
        }
        Ok(self.find(pc)?.map(|f| FreHit {
            function: f.fde.index,
            fre_index: f.fre_index,
            fre: f.fre,
        }))
    }

    /// FDE and FRE for `pc` (section-relative): exactly [`SectionRef::find`]'s answer.
    pub fn find(&self, pc: i64) -> Result<Option<Found<'a>>, Violation> {
        if let Some(hit) = self.fast(pc) {
            return match hit {
                // The index read this FDE without error.
                Some(h) => Ok(Some(Found {
                    fde: self.section.fde(h.function)?,
                    fre_index: h.fre_index,
                    fre: h.fre,
                })),
                None => Ok(None),
            };
        }
        if !self.indexed {
            return self.section.find(pc);
        }
        let Some(fde) = self.find_fde(pc)? else {
            return Ok(None);
        };
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
        let Some(i) = self.candidate(pc) else {
            return Ok(None);
        };
        let Some(fde) = self.fdes.get(i) else {
            return Ok(None);
        };
        if !contains(fde, pc) {
            // The reference reads the FDE's fields before it checks the size.
            self.section.fde_fields(i)?;
            return Ok(None);
        }
        self.section.fde(i).map(Some)
    }
}

/// Whether `pc` lies in the function of `e`.
#[inline]
fn contains(e: &Entry, pc: i64) -> bool {
    pc >= e.start
        && pc
            .checked_sub(e.start)
            .is_some_and(|d| d < i64::from(e.size))
}

impl<'a> SectionIndex<'a> {
    /// The index of the FDE the reference's search lands on for `pc` (whether or not `pc` is
    /// in it); `None` when it lands on none. Only when indexed.
    #[inline]
    fn candidate(&self, pc: i64) -> Option<usize> {
        let fdes = &self.fdes;
        if !self.section.is_sorted() {
            return fdes.iter().position(|e| contains(e, pc));
        }
        let after = if self.ordered {
            self.buckets.count_at_or_before(fdes, pc)
        } else {
            // The reference's probes, on the copy.
            partition(fdes.len(), |i| fdes.get(i).map(|f| f.start <= pc).ok_or(())).unwrap_or(0)
        };
        after.checked_sub(1)
    }

    /// The row for `pc` found from the index alone, where it can be: from a function whose
    /// FDE and FREs all read ([`Search::InPlace`], [`Search::Copied`]), or no function at
    /// all. `None` when the reader must answer (the reader's errors are its own to give).
    #[inline]
    fn fast(&self, pc: i64) -> Fast<'a> {
        if !self.indexed {
            return None;
        }
        let Some(i) = self.candidate(pc) else {
            return Some(None);
        };
        let e = self.fdes.get(i)?;
        if e.search == Search::Reader {
            return None;
        }
        // The FDE read without error when indexed: outside it, there is no row.
        if !contains(e, pc) {
            return Some(None);
        }
        let pc_off = pc.wrapping_sub(e.start) as u64;
        // PC-increment FREs in order, all readable: the reference's scan stops at the first
        // FRE starting after the PC and takes the one before.
        let found = match e.search {
            Search::InPlace => {
                let mut off = e.at as usize;
                let mut best = None;
                for k in 0..e.num_fres as usize {
                    let fre = self.section.fre_in_place(e.fre_type, off)?;
                    if u64::from(fre.start) > pc_off {
                        break;
                    }
                    off = fre.end;
                    best = Some((k, fre));
                }
                best
            }
            Search::Copied => {
                let run = self.copied_fres(i)?;
                let k = run.partition_point(|f| u64::from(f.0) <= pc_off);
                match k
                    .checked_sub(1)
                    .and_then(|k| Some((k, run.get(k)?.1 as usize)))
                {
                    Some((k, off)) => Some((k, self.section.fre_in_place(e.fre_type, off)?)),
                    None => None,
                }
            }
            Search::Reader => return None,
        };
        Some(found.map(|(fre_index, fre)| FreHit {
            function: i,
            fre_index,
            fre,
        }))
    }

    /// The copied FRE starts of function `i`, when they were copied.
    fn copied_fres(&self, i: usize) -> Option<&[(u32, u32)]> {
        let e = self.fdes.get(i)?;
        if e.search != Search::Copied {
            return None;
        }
        let first = e.at as usize;
        self.copies
            .get(first..first.checked_add(e.num_fres as usize)?)
    }
}

/// Decide how each function of `fdes` (the entries of `section`'s FDEs) is searched, and
/// copy the FRE starts of those searched [`Search::Copied`].
fn plan_searches(section: &SectionRef<'_>, fdes: &mut [Entry]) -> Vec<(u32, u32)> {
    let mut budget = section.data().len() / 2;
    let mut copies = Vec::new();
    for (i, entry) in fdes.iter_mut().enumerate() {
        let Ok(fde) = section.fde(i) else {
            continue;
        };
        if fde.pc_type() != PcType::Inc {
            continue;
        }
        let (Ok(data_start), Ok(first)) =
            (u32::try_from(fde.data_start), u32::try_from(copies.len()))
        else {
            continue;
        };
        let copy = fde.num_fres > SCAN_MAX;
        if copy && (fde.num_fres as usize > budget || first == u32::MAX) {
            continue;
        }
        let mut readable = true;
        let mut prev = 0u32;
        for fre in section.fres(&fde) {
            match fre
                .ok()
                .and_then(|f| Some((f.start, u32::try_from(f.offset).ok()?)))
            {
                Some((start, off)) if start >= prev => {
                    prev = start;
                    if copy {
                        copies.push((start, off));
                    }
                }
                _ => {
                    readable = false;
                    break;
                }
            }
        }
        if !readable {
            copies.truncate(first as usize);
            continue;
        }
        if copy {
            budget -= fde.num_fres as usize;
        }
        *entry = Entry {
            num_fres: fde.num_fres,
            at: if copy { first } else { data_start },
            search: if copy {
                Search::Copied
            } else {
                Search::InPlace
            },
            fre_type: fde.fre_type,
            ..*entry
        };
    }
    copies
}
