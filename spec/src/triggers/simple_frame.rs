//! simple-frame-rs 0.3.0 (crates.io) as the harness's adapter drives it
//! (impls/src/simple_frame.rs): every place its code panics on the bytes it is given, in the
//! order the adapter's calls reach them.
//!
//! The adapter's `decode` is `SFrameSection::from (data, 0)`, then per function `get_fde (i)`
//! (stopping at its first error), its FREs through `iter_fre` (stopping at the first error)
//! and each FRE's row (`get_cfa_offset`, `get_ra_offset`, `get_fp_offset`; a v3 flex FDE's
//! `get_flex_recovery_rules` instead); a look-up is `SFrameSection::from (data, 2^48)`,
//! `find_fde (2^48 + pc)`, `find_fre` on the function found, then the row of the FRE found.
//! `to_string` is never called.
//!
//! The crate's panics (line numbers of its 0.3.0 source, `src/*.rs`), each a [`Trigger`]:
//!
//! - v3 `SFrameSection::get_fde` reads the function's 5-byte attribute at `fre_offset =
//!   self.freoff as usize + size_of::<RawSFrameHeader>() + func_start_fre_off as usize` with
//!   no bound: `&self.data[fre_offset..]` panics (v3.rs:271) when `fre_offset` lies past the
//!   end, `read_binary!`'s `copy_from_slice (&$data[data_offset..data_offset + size])` when
//!   the field is cut off (the `read_struct!` of `func_num_fres` at v3.rs:269, `func_info`
//!   :276, `func_info2` :283, `func_rep_size` :290)
//!   ([`Trigger::SimpleFrameRsFdeAttributePastEnd`]). Every other read of the crate is bounded
//!   (`from` checks the function table fits, the FRE iterator each FRE).
//! - With overflow checks (a debug build, `cargo test`, a fuzz build), the arithmetic:
//!   `s390x::cfa_offset_decode`'s `(offset * SFRAME_S390X_CFA_OFFSET_ALIGNMENT_FACTOR) -
//!   SFRAME_S390X_CFA_OFFSET_ADJUSTMENT` in `i32` (v2.rs:49, v3.rs:49), reached through
//!   `get_cfa_offset` on an s390x FRE whose first data word is 4 bytes
//!   ([`Trigger::SimpleFrameRsS390xCfaOffsetOverflow`]); v3 `find_fde`'s `pc < base_pc +
//!   base_fde.func_size as u64` (v3.rs:499, sorted sections;
//!   [`Trigger::SimpleFrameRsFunctionEndOverflow`]) and v3 `find_fre`'s
//!   `fre.start_address.get() as u64 + fde_pc > pc` (v3.rs:819, a PC-increment function;
//!   [`Trigger::SimpleFrameRsFreStartOverflow`]), where a v3 function's 64-bit start put near
//!   2^64 makes the sum wrap. (v1 and v2 starts are 32-bit: those sums stay far below 2^64.
//!   v3.rs:827 repeats :819's sum on the FRE that passed it, so never overflows first.)
//!
//! v1 has no panic the adapter reaches.

use super::{Evaluation, Trigger};
use crate::endian::Endian;

/// What the adapter asks of the crate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Call {
    /// `decode`.
    Decode,
    /// `find_fre` at a section-relative PC.
    Lookup(i64),
}

/// Whether the crate was built with overflow checks (Rust's `-C overflow-checks`, on by
/// default with debug assertions): the arithmetic panics happen only then.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Build {
    pub overflow_checks: bool,
}

impl Build {
    /// simple-frame-rs as this build of the workspace compiles it: one profile for every
    /// crate, whose overflow checks follow its debug assertions (no profile here sets
    /// `overflow-checks` apart).
    pub const THIS: Build = Build {
        overflow_checks: cfg!(debug_assertions),
    };
}

/// A panic of the crate: which bug, and where its source says so (`src/v3.rs`, line).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Panic {
    pub trigger: Trigger,
    pub file: &'static str,
    pub line: u32,
}

impl core::fmt::Display for Panic {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{} at {}:{}", self.trigger, self.file, self.line)
    }
}

/// The section base the adapter's look-ups give the crate (impls/src/simple_frame.rs `BASE`).
pub const LOOKUP_BASE: u64 = 1 << 48;

/// `size_of::<RawSFrameHeader>()`.
const HEADER: usize = 28;
const SORTED: u8 = 1;
const PCREL: u8 = 4;
const S390X: u8 = 4;

/// The section as the crate holds it.
struct Section<'a> {
    data: &'a [u8],
    endian: Endian,
    version: u8,
    flags: u8,
    abi: u8,
    num_fdes: u32,
    fdeoff: u32,
    freoff: u32,
    base: u64,
}

/// One FRE: its start address and its first data word (sign-extended), if any.
#[derive(Clone, Copy)]
struct Fre {
    start: u64,
    first: Option<i64>,
}

/// One function as `get_fde` returns it.
struct Fde {
    /// Where its descriptor starts (`SFrameFDE::offset`).
    offset: usize,
    start: i64,
    size: u32,
    /// Where its first FRE starts (`iter_fre`'s offset).
    fres: usize,
    num_fres: u32,
    info: u8,
    /// v3 `func_info2`.
    info2: u8,
    rep_size: u8,
}

fn panic(trigger: Trigger, file: &'static str, line: u32) -> Panic {
    Panic {
        trigger,
        file,
        line,
    }
}

/// `SFrameSection::from` (lib.rs, then v1.rs/v2.rs/v3.rs): `None` when it refuses.
fn section(data: &[u8], base: u64) -> Option<Section<'_>> {
    let endian = Endian::from_magic(data)?;
    if data.len() < HEADER {
        return None;
    }
    let version = data[2];
    if !(1..=3).contains(&version) {
        return None;
    }
    let flags = data[3];
    // `SFrameFlags::from_bits`: v1 knows 0x1 and 0x2, v2 and v3 0x4 too.
    let known = if version == 1 { 3 } else { 7 };
    let abis = if version == 1 { 1..=3 } else { 1..=4 };
    if flags & !known != 0 || !abis.contains(&data[4]) {
        return None;
    }
    let num_fdes = endian.read_uint(data, 8, 4)? as u32;
    let fdeoff = endian.read_uint(data, 20, 4)? as u32;
    let room = (data.len() - HEADER).checked_sub(fdeoff as usize)?;
    if room / fde_size(version) < num_fdes as usize {
        return None;
    }
    Some(Section {
        data,
        endian,
        version,
        flags,
        abi: data[4],
        num_fdes,
        fdeoff,
        freoff: endian.read_uint(data, 24, 4)? as u32,
        base,
    })
}

/// `size_of` the crate's `RawSFrameFDE` (v1 17 bytes packed, v2 20) or `RawSFrameFDEIndex`
/// (v3, 16).
fn fde_size(version: u8) -> usize {
    match version {
        1 => 17,
        2 => 20,
        _ => 16,
    }
}

impl Section<'_> {
    fn rd(&self, at: usize, width: usize) -> Option<u64> {
        self.endian.read_uint(self.data, at, width)
    }

    /// `get_fde (index)` for `index < num_fdes` (`from` made sure the descriptor is there).
    fn fde(&self, index: u32) -> Result<Option<Fde>, Panic> {
        let offset = HEADER + self.fdeoff as usize + index as usize * fde_size(self.version);
        let fres_at = self.freoff as usize + HEADER;
        if self.version != 3 {
            let Some(start) = self.rd(offset, 4) else {
                return Ok(None);
            };
            let info_at = offset + 16;
            return Ok(Some(Fde {
                offset,
                start: i64::from(start as u32 as i32),
                size: self.rd(offset + 4, 4).unwrap_or(0) as u32,
                fres: fres_at + self.rd(offset + 8, 4).unwrap_or(0) as usize,
                num_fres: self.rd(offset + 12, 4).unwrap_or(0) as u32,
                info: self.data.get(info_at).copied().unwrap_or(0),
                rep_size: if self.version == 2 {
                    self.data.get(info_at + 1).copied().unwrap_or(0)
                } else {
                    0
                },
                info2: 0,
            }));
        }
        let Some(fre_off) = self.rd(offset + 12, 4) else {
            return Ok(None);
        };
        let attr = fres_at + fre_off as usize;
        // v3.rs:269-295: the slice, then each field of `RawSFrameFDEAttr` in turn.
        let room = match self.data.len().checked_sub(attr) {
            Some(r) => r,
            None => return Err(attr_panic(271)),
        };
        for (need, line) in [(2, 269), (3, 276), (4, 283), (5, 290)] {
            if room < need {
                return Err(attr_panic(line));
            }
        }
        Ok(Some(Fde {
            offset,
            start: self.rd(offset, 8).unwrap_or(0) as i64,
            size: self.rd(offset + 8, 4).unwrap_or(0) as u32,
            fres: attr + 5,
            num_fres: self.rd(attr, 2).unwrap_or(0) as u32,
            info: self.data[attr + 2],
            info2: self.data[attr + 3],
            rep_size: self.data[attr + 4],
        }))
    }

    /// `SFrameFDE::get_pc`: wrapping sums, no panic.
    fn pc(&self, f: &Fde) -> u64 {
        let rel = if self.version != 1 && self.flags & PCREL != 0 {
            f.start.wrapping_add_unsigned(f.offset as u64)
        } else {
            f.start
        };
        rel.wrapping_add_unsigned(self.base) as u64
    }

    /// The FREs of `f` as `iter_fre` yields them: `(start, the first data word)` each, then
    /// `Err(())` if the iterator fails (an FRE type or data-word size it refuses, an FRE
    /// cut off by the section's end) before `num_fres` FREs.
    fn fres<'s>(&'s self, f: &'s Fde) -> impl Iterator<Item = Result<Fre, ()>> + 's {
        let addr = match f.info & 0xf {
            0 => Some(1usize),
            1 => Some(2),
            2 => Some(4),
            _ => None,
        };
        let mut at = f.fres;
        let mut k = 0u32;
        let mut failed = false;
        core::iter::from_fn(move || {
            if failed || k >= f.num_fres {
                return None;
            }
            let r = self.fre(at, addr);
            match r {
                Ok((fre, next)) => {
                    at = next;
                    k += 1;
                    Some(Ok(fre))
                }
                Err(()) => {
                    failed = true;
                    Some(Err(()))
                }
            }
        })
    }

    /// One FRE at `at` whose start address is `addr` bytes, and where the next begins.
    fn fre(&self, at: usize, addr: Option<usize>) -> Result<(Fre, usize), ()> {
        let addr = addr.ok_or(())?;
        let start = self.rd(at, addr).ok_or(())?;
        let info = *self.data.get(at + addr).ok_or(())?;
        let word = match (info >> 5) & 3 {
            0 => 1usize,
            1 => 2,
            2 => 4,
            _ => return Err(()),
        };
        let count = usize::from((info >> 1) & 0xf);
        let words = at + addr + 1;
        if words + word * count > self.data.len() {
            return Err(());
        }
        let first = (count > 0).then(|| {
            let v = self.rd(words, word).unwrap_or(0);
            let bits = 64 - 8 * word as u32;
            ((v << bits) as i64) >> bits
        });
        Ok((Fre { start, first }, words + word * count))
    }

    /// The row of an FRE (`get_cfa_offset` first): s390x's CFA offset decoding.
    fn row(&self, f: &Fde, first: Option<i64>, b: Build) -> Result<(), Panic> {
        let flex = self.version == 3 && f.info2 & 0x1f == 1;
        if self.version == 1 || flex || self.abi != S390X || !b.overflow_checks {
            return Ok(());
        }
        match first {
            // `offset * 8` overflows, or the `- (-160)` after it.
            Some(o) if i32::try_from(o * 8).is_err() || i32::try_from(o * 8 + 160).is_err() => {
                Err(panic(
                    Trigger::SimpleFrameRsS390xCfaOffsetOverflow,
                    if self.version == 2 {
                        "src/v2.rs"
                    } else {
                        "src/v3.rs"
                    },
                    49,
                ))
            }
            _ => Ok(()),
        }
    }
}

fn attr_panic(line: u32) -> Panic {
    panic(Trigger::SimpleFrameRsFdeAttributePastEnd, "src/v3.rs", line)
}

/// The adapter's decode.
fn decode(data: &[u8], b: Build) -> Result<(), Panic> {
    let Some(s) = section(data, 0) else {
        return Ok(());
    };
    for i in 0..s.num_fdes {
        let Some(f) = s.fde(i)? else { return Ok(()) };
        // `collect_fres`: each FRE's row, up to the iterator's first error.
        for fre in s.fres(&f).map_while(Result::ok) {
            s.row(&f, fre.first, b)?;
        }
    }
    Ok(())
}

/// `find_fde`: the function the crate finds for `pc`.
fn find_fde(s: &Section, pc: u64, b: Build) -> Result<Option<Fde>, Panic> {
    if s.flags & SORTED == 0 {
        for i in 0..s.num_fdes {
            let Some(f) = s.fde(i)? else { return Ok(None) };
            let start = s.pc(&f);
            if start <= pc && pc - start < u64::from(f.size) {
                return Ok(Some(f));
            }
        }
        return Ok(None);
    }
    let mut size = s.num_fdes;
    if size == 0 {
        return Ok(None);
    }
    let mut base = 0;
    while size > 1 {
        let half = size / 2;
        let mid = base + half;
        let Some(f) = s.fde(mid)? else {
            return Ok(None);
        };
        if s.pc(&f) <= pc {
            base = mid;
        }
        size -= half;
    }
    let Some(f) = s.fde(base)? else {
        return Ok(None);
    };
    let start = s.pc(&f);
    if start > pc {
        return Ok(None);
    }
    match start.checked_add(u64::from(f.size)) {
        Some(end) => Ok((pc < end).then_some(f)),
        None if b.overflow_checks => Err(panic(
            Trigger::SimpleFrameRsFunctionEndOverflow,
            "src/v3.rs",
            499,
        )),
        // The sum wraps: `pc < ` a small number.
        None => Ok((pc < start.wrapping_add(u64::from(f.size))).then_some(f)),
    }
}

/// The adapter's look-up at section-relative `pc`.
fn lookup(data: &[u8], pc: i64, b: Build) -> Result<(), Panic> {
    let Some(s) = section(data, LOOKUP_BASE) else {
        return Ok(());
    };
    let pc = LOOKUP_BASE.wrapping_add(pc as u64);
    let Some(f) = find_fde(&s, pc, b)? else {
        return Ok(());
    };
    let fde_pc = s.pc(&f);
    if pc < fde_pc || pc - fde_pc >= u64::from(f.size) {
        return Ok(());
    }
    // `iter.next()?`: an iterator error before the loop ends is the look-up's error.
    let mut found = None;
    if (f.info >> 4) & 1 == 0 {
        // PC increment: the last FRE starting at or before `pc`.
        for fre in s.fres(&f) {
            let Ok(fre) = fre else { return Ok(()) };
            let at = match fre.start.checked_add(fde_pc) {
                Some(at) => at,
                None if b.overflow_checks => {
                    return Err(panic(
                        Trigger::SimpleFrameRsFreStartOverflow,
                        "src/v3.rs",
                        819,
                    ))
                }
                None => fre.start.wrapping_add(fde_pc),
            };
            if at > pc {
                break;
            }
            found = Some((at, fre.first));
        }
        found = found.filter(|(at, _)| *at <= pc);
    } else {
        // PC mask: the first FRE whose start is at most `pc % rep_size`.
        for fre in s.fres(&f) {
            let Ok(fre) = fre else { return Ok(()) };
            if f.rep_size != 0 && pc % u64::from(f.rep_size) >= fre.start {
                found = Some((fre.start, fre.first));
                break;
            }
        }
    }
    match found {
        Some((_, first)) => s.row(&f, first, b),
        None => Ok(()),
    }
}

/// The first panic of simple-frame-rs 0.3.0, built as `b`, on `call` of `data`.
pub fn first_panic(data: &[u8], call: Call, b: Build) -> Option<Panic> {
    let r = match call {
        Call::Decode => decode(data, b),
        Call::Lookup(pc) => lookup(data, pc, b),
    };
    r.err()
}

/// [`first_panic`]'s trigger, as [`Evaluation`] (every input is modelled).
pub fn first_trigger(data: &[u8], call: Call, b: Build) -> Evaluation {
    match first_panic(data, call, b) {
        Some(p) => Evaluation::Triggered(p.trigger),
        None => Evaluation::Clean,
    }
}
