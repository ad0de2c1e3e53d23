//! Finding the FDE and the FRE for a PC.
//!
//! PCs are given as offsets from the start of the section (subtract the section's load
//! address from a virtual address). FDE search is binary when `SFRAME_F_FDE_SORTED` is set
//! (v3 manual §2.3.1: "allowing for efficient binary search") and linear otherwise. FRE
//! search follows the FDE's PC type: v3 §2.3.3.1 (and v2 §2.3.2) for PC-increment and
//! `PC % REP_BLOCK_SIZE` masks; v1 masks follow sframe-v1.h's
//! `(PC & FRE_START_ADDR_AS_MASK >= FRE_START_ADDR_AS_MASK)`.

use crate::constants::*;
use crate::error::Violation;
use crate::quirks::Quirk;

/// Where the harness loads a section for simple-frame-rs (its look-ups take absolute PCs);
/// [`Quirk::MaskAbsolutePcFirstMatch`] depends on it.
pub const SIMPLE_FRAME_RS_BASE: u64 = 1 << 48;
use crate::read::{FdeRef, FreRef, SectionRef};
use crate::recovery::{recovery_rules, Recovery, Row, RowContext};
use crate::rules::Rule;
use crate::search::{partition, probe, Probe};

/// The row found for a PC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found<'a> {
    pub fde: FdeRef,
    pub fre_index: usize,
    pub fre: FreRef<'a>,
}

impl<'a> SectionRef<'a> {
    /// The FDE whose function contains `pc` (section-relative), reading as a consumer would:
    /// trusting the sorted flag.
    pub fn find_fde(&self, pc: i64) -> Result<Option<FdeRef>, Violation> {
        let q = self.quirks();
        if q.has(Quirk::LookupRequiresSorted) && !self.is_sorted() {
            return Ok(None);
        }
        let n = self.num_fdes();
        let range = |i: usize| {
            self.fde_range(i)
                .ok_or_else(|| Violation::new(Rule::HeaderFdeSubsectionFits, 0))
        };
        let contains = |start: i64, size: u32| self.contains(start, size, pc);
        if self.is_sorted() && q.has(Quirk::SearchAbsoluteU64) {
            if n == 0 {
                return Ok(None);
            }
            let abs = |x: i64| SIMPLE_FRAME_RS_BASE.wrapping_add(x as u64);
            let apc = abs(pc);
            let (mut size, mut base) = (n, 0usize);
            while size > 1 {
                let half = size / 2;
                let mid = base + half;
                if abs(range(mid)?.0) <= apc {
                    base = mid;
                }
                size -= half;
            }
            let (start, fsize) = range(base)?;
            let s = abs(start);
            if !(s <= apc && apc < s.wrapping_add(u64::from(fsize))) {
                return Ok(None);
            }
            return self.fde_for_lookup(base, start);
        }
        let idx = if self.is_sorted() && q.has(Quirk::SearchEqualStartFirstProbed) {
            // libsframe 2.40/2.44 `sframe_get_funcdesc_with_addr(_internal)`: `low = 0; high
            // = num_fdes; cnt = high; while (low <= high) { mid = low + (high - low) / 2; ...`:
            // an FDE starting at the PC when one is probed, else the FDE whose next one starts
            // after the PC; no size check.
            let hit = probe(0, n as i64, |mid| {
                let Some(m) = usize::try_from(mid).ok().filter(|&m| m < n) else {
                    return Ok(Probe::Miss);
                };
                let (start, _) = range(m)?;
                if start == pc || (start < pc && m == n - 1) {
                    return Ok(Probe::Hit(m));
                }
                if start < pc {
                    let (next, _) = range(m + 1)?;
                    return Ok(if next > pc {
                        Probe::Hit(m)
                    } else {
                        Probe::Right
                    });
                }
                Ok(Probe::Left)
            })?;
            match hit {
                Some(i) => i,
                None => return Ok(None),
            }
        } else if self.is_sorted() && q.has(Quirk::SearchFirstProbedContaining) {
            // Binary search over the closed range [0, n - 1] (libsframe 2.47: `low = 0; high =
            // num_fdes - 1; while (low <= high) { mid = low + (high - low) / 2; ...`) that
            // stops at the first probed FDE containing the PC; the probe order decides which
            // of overlapping functions is found.
            let hit = probe(0, n as i64 - 1, |mid| {
                let (start, size) = range(mid as usize)?;
                Ok(if contains(start, size) {
                    Probe::Hit(mid as usize)
                } else if start < pc {
                    Probe::Right
                } else {
                    Probe::Left
                })
            })?;
            match hit {
                Some(i) => i,
                None => return Ok(None),
            }
        } else if self.is_sorted() {
            // Last FDE whose start <= pc.
            match partition(n, |i| Ok(range(i)?.0 <= pc))?.checked_sub(1) {
                Some(i) => i,
                None => return Ok(None),
            }
        } else if q.has(Quirk::SearchAbsoluteU64) {
            let abs = |x: i64| SIMPLE_FRAME_RS_BASE.wrapping_add(x as u64);
            let apc = abs(pc);
            let found = (0..n).find(|&i| {
                self.fde_range(i).is_some_and(|(s, size)| {
                    abs(s) <= apc && apc.wrapping_sub(abs(s)) < u64::from(size)
                })
            });
            match found {
                Some(i) => return self.fde_for_lookup(i, range(i)?.0),
                None => return Ok(None),
            }
        } else {
            let found =
                (0..n).find(|&i| self.fde_range(i).is_some_and(|(s, size)| contains(s, size)));
            match found {
                Some(i) => i,
                None => return Ok(None),
            }
        };
        let (start, size) = range(idx)?;
        // libsframe 2.40 and 2.44 check a PC-mask function's end only through its FREs, and
        // a PC-increment function's too (2.40's low-32-bit scan, 2.44's int32 ranges).
        let mask =
            crate::layout::fde_info::pc_type(self.fde_fields(idx)?.info) == PcType::Mask as u8;
        let unbounded = if mask {
            q.has(Quirk::MaskSectionPcModulo) || q.has(Quirk::MaskLowByte)
        } else {
            q.has(Quirk::PcIncLow32Unsigned) || q.has(Quirk::PcIncInt32Range)
        };
        if !(contains(start, size) || unbounded && start <= pc) {
            return Ok(None);
        }
        if q.has(Quirk::PerFunctionErrors) || q.has(Quirk::InvalidFreTypeNoRow) {
            return self.fde_for_lookup(idx, start);
        }
        let mut fde = self.fde(idx)?;
        // The look-up's own reading of the start (it differs from the decoder's only under
        // a quirk).
        fde.start = start;
        Ok(Some(fde))
    }

    /// FDE `i` as the look-up reads it, its start as the look-up resolved it; with
    /// [`Quirk::PerFunctionErrors`] an FDE that is not readable as a function but has no FREs
    /// gives no row rather than an error (nothing is read), and with
    /// [`Quirk::InvalidFreTypeNoRow`] one whose FRE type is invalid.
    fn fde_for_lookup(&self, i: usize, start: i64) -> Result<Option<FdeRef>, Violation> {
        match self.fde(i) {
            Ok(mut fde) => {
                fde.start = start;
                Ok(Some(fde))
            }
            Err(_)
                if self.quirks().has(Quirk::PerFunctionErrors)
                    && self.fde_fields(i)?.num_fres == 0 =>
            {
                Ok(None)
            }
            Err(v)
                if v.rule == Rule::FdeFreType && self.quirks().has(Quirk::InvalidFreTypeNoRow) =>
            {
                Ok(None)
            }
            Err(v) => Err(v),
        }
    }

    /// Whether `pc` lies in the function `[start, start + size)`, as this reader decides it.
    fn contains(&self, start: i64, size: u32, pc: i64) -> bool {
        if self.quirks().has(Quirk::PcDistance32) {
            start <= pc && (pc.wrapping_sub(start) as u32) < size
        } else {
            // The distance of a 64-bit start (v3) may not fit in an i64: such a PC is not in
            // the function (a wrapping difference would put it there).
            pc >= start && pc.checked_sub(start).is_some_and(|d| d < i64::from(size))
        }
    }

    /// The FRE of `fde` that covers `pc` (section-relative).
    pub fn find_fre_in(
        &self,
        fde: &FdeRef,
        pc: i64,
    ) -> Result<Option<(usize, FreRef<'a>)>, Violation> {
        if self.quirks().has(Quirk::FreRangeScan) {
            return self.scan_fre_ranges(fde, pc);
        }
        if fde.pc_type() == PcType::Mask {
            if let Some(found) = self.find_mask_fre_quirky(fde, pc)? {
                return Ok(found);
            }
        } else if self.quirks().has(Quirk::PcIncLow32Unsigned) {
            return self.scan_low_bits(fde, pc, u32::MAX);
        } else if self.quirks().has(Quirk::PcIncInt32Range) {
            return self.scan_int32_ranges(fde, pc);
        }
        let pc_off = if self.quirks().has(Quirk::PcDistance32) {
            i64::from(pc.wrapping_sub(fde.start) as u32)
        } else {
            pc.wrapping_sub(fde.start)
        };
        if !fde.contains_offset(pc_off) {
            return Ok(None);
        }
        let pc_off = pc_off as u64;
        let matches: &dyn Fn(u64) -> bool = match (fde.pc_type(), self.version()) {
            (PcType::Inc, _) => &|start| start <= pc_off,
            (PcType::Mask, Version::V1) => &|start| (pc_off & start) >= start,
            (PcType::Mask, _) => {
                if fde.rep_size == 0 {
                    return Err(Violation::new(
                        Rule::FdeRepSizeMask,
                        fde.attr_offset.map_or(fde.offset + 17, |a| a + 4),
                    )
                    .at_function(fde.index)
                    .found(0));
                }
                let in_block = pc_off % u64::from(fde.rep_size);
                return self.last_fre_where(fde, |start| start <= in_block);
            }
        };
        self.last_fre_where(fde, matches)
    }

    /// The FRE of a PC-mask function as a reader with a PC-mask quirk finds it; `None` when
    /// no such quirk applies (then the texts' rule does).
    #[allow(clippy::type_complexity)]
    fn find_mask_fre_quirky(
        &self,
        fde: &FdeRef,
        pc: i64,
    ) -> Result<Option<Option<(usize, FreRef<'a>)>>, Violation> {
        let q = self.quirks();
        let v1 = self.version() == Version::V1;
        let rep = i64::from(fde.rep_size);
        if q.has(Quirk::MaskV1NeverMatches) && v1 {
            // No FRE matches, but each is read: an unreadable one refuses the look-up.
            for f in self.fres(fde) {
                f?;
            }
            return Ok(Some(None));
        }
        if q.has(Quirk::MaskAbsolutePcFirstMatch) && !v1 {
            let off = pc.wrapping_sub(fde.start);
            if !fde.contains_offset(off) {
                return Ok(Some(None));
            }
            // FREs are read one at a time up to the first match (an unreadable FRE after it
            // is never seen); with `rep_size` 0 nothing matches, but every FRE is read.
            let in_block =
                (rep != 0).then(|| SIMPLE_FRAME_RS_BASE.wrapping_add(pc as u64) % rep as u64);
            for (k, f) in self.fres(fde).enumerate() {
                let f = f?;
                if in_block.is_some_and(|b| b >= u64::from(f.start)) {
                    return Ok(Some(Some((k, f))));
                }
            }
            return Ok(Some(None));
        }
        // libsframe 2.44 reads v1 as v2 (`V1ReadAsV2`): one PC-mask rule for both.
        if q.has(Quirk::MaskSectionPcModulo) && (!v1 || q.has(Quirk::V1ReadAsV2)) {
            if rep == 0 {
                return Ok(Some(None));
            }
            let masked = i64::from((pc as i32).wrapping_rem(rep as i32));
            // sframe_fre_check_range_p takes the FRE's start and end offsets as int32_t.
            for span in self.spans(fde) {
                let (k, f, end) = span?;
                let last = (i64::from(end) - 1) as i32;
                if i64::from(f.start as i32) <= masked && i64::from(last) >= masked {
                    return Ok(Some(Some((k, f))));
                }
            }
            return Ok(Some(None));
        }
        if q.has(Quirk::MaskLowByte) {
            return self.scan_low_bits(fde, pc, 0xff).map(Some);
        }
        Ok(None)
    }

    /// The FREs of `fde` in order, each with where its rows end: the next FRE's start (of
    /// which nothing else is read) or, for the last, the function's size. This is how
    /// libsframe's and glibc's scans walk FREs: FRE `k` whole, then only the start of FRE
    /// `k + 1`, so nothing after the FRE that matches is ever read. An FRE that cannot be
    /// read ends the walk with its error.
    fn spans<'s>(
        &'s self,
        fde: &'s FdeRef,
    ) -> impl Iterator<Item = Result<(usize, FreRef<'a>, u32), Violation>> + 's {
        let mut fres = self.fres(fde);
        let n = fde.num_fres as usize;
        let mut k = 0;
        std::iter::from_fn(move || {
            if k >= n {
                return None;
            }
            let span = fres.next()?.and_then(|f| {
                let end = if k + 1 < n {
                    self.fre_start_at(fde, fres.position())?
                } else {
                    fde.size
                };
                Ok((k, f, end))
            });
            k = if span.is_ok() { k + 1 } else { n };
            Some(span)
        })
    }

    /// glibc's FRE scan ([`Quirk::FreRangeScan`]), on the reader's `int32_t` PC and start.
    fn scan_fre_ranges(
        &self,
        fde: &FdeRef,
        pc: i64,
    ) -> Result<Option<(usize, FreRef<'a>)>, Violation> {
        let (pc, start) = (pc as i32, fde.start as i32);
        let off = pc.wrapping_sub(start) as u32;
        let mask = fde.pc_type() == PcType::Mask;
        for span in self.spans(fde) {
            let (k, f, next) = span?;
            let end = next.wrapping_sub(1);
            if f.start > off {
                return Ok(None);
            }
            if start > pc {
                continue;
            }
            let at = if mask {
                match u32::from(fde.rep_size) {
                    0 => return Ok(None),
                    rep => off % rep,
                }
            } else {
                off
            };
            if f.start <= at && end >= at {
                return Ok(Some((k, f)));
            }
        }
        Ok(None)
    }

    /// libsframe 2.44's FRE scan ([`Quirk::PcIncInt32Range`]): in order, FRE `k` is taken
    /// when `i32(start + start_k) <= i32(pc) <= i32(start + end_k)`, where `end_k` is the
    /// next FRE's start less 1 (the function's size less 1 for the last), all wrapping in 32
    /// bits; no row when the first FRE starts after the PC.
    fn scan_int32_ranges(
        &self,
        fde: &FdeRef,
        pc: i64,
    ) -> Result<Option<(usize, FreRef<'a>)>, Violation> {
        let start = fde.start as i32;
        let pc = pc as i32;
        for span in self.spans(fde) {
            let (k, f, next) = span?;
            let end = next.wrapping_sub(1);
            let lo = start.wrapping_add(f.start as i32);
            let hi = start.wrapping_add(end as i32);
            if k == 0 && lo > pc {
                return Ok(None);
            }
            if lo <= pc && hi >= pc {
                return Ok(Some((k, f)));
            }
        }
        Ok(None)
    }

    /// libsframe 2.40's FRE scan: FRE `k` is taken when `(start + start_k) & mask <= pc &
    /// mask < (start + end_k) & mask`, in order, where `end_k` is the next FRE's start (the
    /// function's size for the last), compared unsigned on the low 32 bits; the scan stops
    /// with no row at the first FRE failing the first test.
    fn scan_low_bits(
        &self,
        fde: &FdeRef,
        pc: i64,
        mask: u32,
    ) -> Result<Option<(usize, FreRef<'a>)>, Violation> {
        let low = |x: i64| (x as u32) & mask;
        let fs = fde.raw_start;
        // FREs are read as 2.40 reads them: FRE k, and FRE k + 1 only once FRE k passed the
        // first test (for where FRE k ends); nothing after the one that matches.
        let mut fres = self.fres(fde);
        let n = fde.num_fres as usize;
        let mut next = fres.next().transpose()?;
        for k in 0..n {
            let Some(f) = next else { break };
            if low(fs.wrapping_add(i64::from(f.start))) > low(pc) {
                return Ok(None);
            }
            next = if k + 1 < n {
                fres.next().transpose()?
            } else {
                None
            };
            // 2.40 sanity-checks the next FRE before it looks at the end.
            if next.is_some_and(|n| self.fails_sanity(&n)) {
                return Ok(None);
            }
            let end = next.map_or(i64::from(fde.size), |n| i64::from(n.start));
            if low(fs.wrapping_add(end)) > low(pc) {
                return Ok(Some((k, f)));
            }
        }
        Ok(None)
    }

    /// The last FRE, in order, whose start address satisfies `pred` (FREs are read until one
    /// fails it, as starts increase in a valid section).
    fn last_fre_where(
        &self,
        fde: &FdeRef,
        pred: impl Fn(u64) -> bool,
    ) -> Result<Option<(usize, FreRef<'a>)>, Violation> {
        let mut best = None;
        for (k, fre) in self.fres(fde).enumerate() {
            let fre = fre?;
            if pred(u64::from(fre.start)) {
                best = Some((k, fre));
            } else if fde.pc_type() == PcType::Inc {
                break;
            }
        }
        Ok(best)
    }

    /// FDE and FRE for `pc` (section-relative).
    pub fn find(&self, pc: i64) -> Result<Option<Found<'a>>, Violation> {
        let Some(fde) = self.find_fde(pc)? else {
            return Ok(None);
        };
        Ok(self.find_fre_in(&fde, pc)?.map(|(fre_index, fre)| Found {
            fde,
            fre_index,
            fre,
        }))
    }

    /// Section-wide facts for interpreting rows.
    pub fn row_context(&self) -> RowContext {
        RowContext {
            version: self.version(),
            abi: self.abi(),
            cfa_fixed_fp_offset: self.header().cfa_fixed_fp_offset,
            cfa_fixed_ra_offset: self.header().cfa_fixed_ra_offset,
            quirks: self.quirks(),
        }
    }

    /// Whether this reader reports `fre`'s RA as mangled: its flag, or `true` where the
    /// getter fails and its error value reads as true ([`Quirk::DataWordsAbove3Unreadable`],
    /// [`Quirk::DataWordsAbove6Unreadable`]).
    pub fn reported_ra_mangled(&self, fre: &FreRef<'_>) -> bool {
        fre.mangled_ra() || self.fails_sanity(fre)
    }

    /// Whether [`SectionRef::recovery`] of `fre` fails, and by which rule, computing no
    /// rules where none can fail: a row of a default-type FDE with data words that passes
    /// the sanity check always has recovery rules ([`recovery_rules`]).
    #[inline]
    pub fn recovery_fault(&self, fde: &FdeRef, fre: &FreRef<'_>) -> Result<(), Rule> {
        if fde.fde_type == FdeType::Default && fre.dataword_count() > 0 && !self.fails_sanity(fre) {
            return Ok(());
        }
        self.recovery(fde, fre).map(|_| ())
    }

    /// The recovery rules of an FRE of `fde`. An FRE failing a libsframe quirk's sanity
    /// check ([`SectionRef::fails_sanity`]) has none (every getter fails), except with
    /// [`Quirk::DataWordsAbove6Unreadable`]: there `sframe_fre_get_ra_undefined_p` returns
    /// its error value, -1, read as true: the outermost frame, RA mangled.
    pub fn recovery(&self, fde: &FdeRef, fre: &FreRef<'_>) -> Result<Recovery, Rule> {
        if self.fails_sanity(fre) {
            if self.quirks().has(Quirk::DataWordsAbove6Unreadable) {
                return Ok(Recovery {
                    cfa: crate::Loc::Undefined,
                    ra: crate::Loc::Undefined,
                    fp: crate::Loc::SameValue,
                    ra_mangled: true,
                });
            }
            return Err(Rule::FreCountMax);
        }
        let mut words = [0i64; MAX_DATAWORD_COUNT as usize];
        let n = fre.dataword_count();
        for (k, w) in words.iter_mut().enumerate().take(n) {
            *w = fre.dataword(k).unwrap_or_default();
        }
        let row = Row {
            fde_type: fde.fde_type,
            base_reg: fre.base_reg(),
            mangled_ra: fre.mangled_ra(),
            dataword_size: fre.dataword_size,
            words: &words[..n],
        };
        recovery_rules(&self.row_context(), &row)
    }
}
