//! glibc's SFrame reader (`sysdeps/generic/sframe-read.c` of glibc 2.43) as `sframe-worker`
//! drives it (worker/src/glibc.rs, worker/glibc/shim.c): the reads its own code makes, in
//! their order, up to the first known bug.
//!
//! The reader takes no buffer length, so its bug is one: every read it makes lies wherever
//! the section's counts and offsets point ([`Trigger::GlibcReadsOutsideSection`]), except
//! the division by a PC-mask function's repetition size
//! ([`Trigger::GlibcMaskRepSizeZero`]). The wrapper's own walk of every function and row
//! (`gs_fde`, `gs_fres`) is given the section's length and reads nothing outside it, so a
//! `decode` reaches glibc's code only in `__sframe_decode`; a look-up is `__sframe_find_fre`
//! at one PC (the worker answers each PC of a crashing request in its own child), then the
//! offset getters on the row it returns (`gs_find`, `gs_fill_row`).
//!
//! Line numbers are those of `sysdeps/generic/sframe-read.c` in Debian's glibc 2.43-6
//! (byte-identical in 2.43-7). The host is little-endian x86-64: glibc reads the section in
//! its own byte order and refuses the other (`sfp_magic != SFRAME_MAGIC`, line 544), so
//! every input is modelled.

use super::{rd, word_bytes, Evaluation, Trigger};

/// What the worker asks of glibc's reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Call {
    /// `decode`: `__sframe_decode`, then the wrapper's bounded walk.
    Decode,
    /// `find_fre` at one section-relative PC: `__sframe_decode`, `__sframe_find_fre (ctx,
    /// pc, &fre)`, the three offset getters on the row found.
    Lookup(i64),
}

/// `sizeof (sframe_header)`, `sizeof (sframe_func_desc_entry)`.
const HEADER: i64 = 28;
const FDE: i64 = 20;
/// `SFRAME_V2_F_ALL_FLAGS`, `SFRAME_F_FDE_SORTED`, `SFRAME_F_FDE_FUNC_START_PCREL`.
const ALL_FLAGS: u8 = 7;
const SORTED: u8 = 1;
const PCREL: u8 = 4;
/// `MAX_NUM_STACK_OFFSETS` (sframe-read.h).
const MAX_OFFSETS: u8 = 3;

/// The section as the reader sees it: reads at offsets from its start, `None` when the
/// bytes are not all inside it (a read of glibc's that is a bad access).
struct Section<'a>(&'a [u8]);

impl Section<'_> {
    fn read(&self, at: i64, width: usize) -> Option<u64> {
        rd(self.0, usize::try_from(at).ok()?, width)
    }
    fn byte(&self, at: i64) -> Option<u8> {
        self.read(at, 1).map(|v| v as u8)
    }
    fn u32(&self, at: i64) -> Option<u32> {
        self.read(at, 4).map(|v| v as u32)
    }
}

/// The decoder context `__sframe_decode` fills.
struct Ctx {
    flags: u8,
    num_fdes: u32,
    fixed_fp: u8,
    fixed_ra: u8,
    /// `sframe_get_hdr_size`: 28 + `sfh_auxhdr_len`, where `sfd_funcdesc` points.
    hdrsz: i64,
    /// Where `sfd_fres` points: `frame_buf += (fidx_size)` with `int fidx_size =
    /// sfh_num_fdes * sizeof (sframe_func_desc_entry)` (lines 561-566), before the section
    /// when the product wraps to a negative `int`.
    fres: i64,
}

const OUTSIDE: Trigger = Trigger::GlibcReadsOutsideSection;

/// `__sframe_decode` (lines 528-571), as the worker calls it: `Ok(None)` when it refuses.
fn decode(s: &Section) -> Result<Option<Ctx>, Trigger> {
    // worker/src/glibc.rs `decoder`: a section whose magic (either byte order) and version
    // byte say version 1 or 3 is answered "unsupported" without calling the reader.
    if matches!(crate::read::section_version(s.0), Some(v) if v != crate::Version::V2) {
        return Ok(None);
    }
    // Line 544: `if (sfp->sfp_magic != SFRAME_MAGIC)`.
    if s.read(0, 2).ok_or(OUTSIDE)? != 0xdee2 {
        return Ok(None);
    }
    // Line 550: `dctx->sfd_header = *(sframe_header *) frame_buf;`.
    s.read(0, HEADER as usize).ok_or(OUTSIDE)?;
    let h = s.0;
    let (version, flags) = (h[2], h[3]);
    let (fdeoff, freoff) = (s.u32(20).ok_or(OUTSIDE)?, s.u32(24).ok_or(OUTSIDE)?);
    // `sframe_header_sanity_check_p` (lines 76-89).
    if version != 2 || flags & !ALL_FLAGS != 0 || fdeoff > freoff {
        return Ok(None);
    }
    let num_fdes = s.u32(8).ok_or(OUTSIDE)?;
    let hdrsz = HEADER + i64::from(h[7]);
    let fidx_size = (u64::from(num_fdes) * FDE as u64) as u32 as i32;
    Ok(Some(Ctx {
        flags,
        num_fdes,
        fixed_fp: h[5],
        fixed_ra: h[6],
        hdrsz,
        fres: hdrsz + i64::from(fidx_size),
    }))
}

impl Ctx {
    /// Where function descriptor `i` begins.
    fn fde(&self, i: u32) -> i64 {
        self.hdrsz + i64::from(i) * FDE
    }

    /// `sframe_decoder_get_secrel_func_start_addr` (lines 226-247): the start field (line
    /// 244), plus, with `SFRAME_F_FDE_FUNC_START_PCREL`, the field's own offset in the
    /// section (a `uint32_t` taken as `int32_t`; the sum wraps as the build computes it).
    fn start(&self, s: &Section, i: u32) -> Result<i32, Trigger> {
        let raw = s.u32(self.fde(i)).ok_or(OUTSIDE)? as i32;
        let off = if self.flags & PCREL != 0 {
            self.fde(i) as u32 as i32
        } else {
            0
        };
        Ok(raw.wrapping_add(off))
    }

    /// `sframe_get_funcdesc_with_addr_internal` (lines 364-409): the binary search over
    /// `int` indices, reading each probed descriptor's start and, when it is at or below
    /// `addr`, its size.
    fn search(&self, s: &Section, addr: i32) -> Result<Option<u32>, Trigger> {
        if self.num_fdes == 0 || self.flags & SORTED == 0 {
            return Ok(None);
        }
        let (mut low, mut high) = (0i32, self.num_fdes.wrapping_sub(1) as i32);
        while low <= high {
            let mid = low + (high - low) / 2;
            let m = mid as u32;
            let start = self.start(s, m)?;
            if start <= addr {
                let size = s.u32(self.fde(m) + 4).ok_or(OUTSIDE)?;
                if (addr.wrapping_sub(start) as u32) < size {
                    return Ok(Some(m));
                }
            }
            if start < addr {
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        Ok(None)
    }
}

/// `sframe_decode_fre_start_address` (lines 333-358) for a start address of `width` bytes.
fn fre_start(s: &Section, at: i64, width: usize) -> Result<u32, Trigger> {
    s.read(at, width).map(|v| v as u32).ok_or(OUTSIDE)
}

/// `__sframe_find_fre` (lines 577-636) at `pc`: the data words' place and the FRE's info
/// byte of the row it returns, `None` when it finds none.
fn find_fre(s: &Section, c: &Ctx, pc: i32) -> Result<Option<(i64, u8)>, Trigger> {
    let Some(idx) = c.search(s, pc)? else {
        return Ok(None);
    };
    let fde = c.fde(idx);
    // Lines 598-603: the FRE type, the first FRE's offset, the start, the FRE count.
    let info = s.byte(fde + 16).ok_or(OUTSIDE)?;
    let fre_off = s.u32(fde + 8).ok_or(OUTSIDE)?;
    let func_start = c.start(s, idx)?;
    let num_fres = s.u32(fde + 12).ok_or(OUTSIDE)?;
    let width = match info & 0xf {
        0 => 1,
        1 => 2,
        2 => 4,
        // Line 611: `if (addr_size == 0) return _URC_END_OF_STACK;` (the start address
        // decoder read nothing for such a type).
        _ => return Ok(None),
    };
    let size = s.u32(fde + 4).ok_or(OUTSIDE)?;
    let pc_from_start = pc.wrapping_sub(func_start) as u32;
    let mut at = c.fres + i64::from(fre_off);
    for i in 0..num_fres {
        // Lines 608-615: start address, info byte, entry size.
        let start = fre_start(s, at, width)?;
        let fre_info = s.byte(at + width as i64).ok_or(OUTSIDE)?;
        let entry = (width + 1) as i64 + data_word_bytes(fre_info);
        // `sframe_fre_get_end_ip_offset` (lines 414-435): the next FRE's start address,
        // or the function's size for the last FRE.
        let end = if i < num_fres - 1 {
            fre_start(s, at + entry, width)?.wrapping_sub(1)
        } else {
            size.wrapping_sub(1)
        };
        // Line 622.
        if start > pc_from_start {
            return Ok(None);
        }
        // `sframe_fre_check_range_p` (lines 254-285): the descriptor's type and
        // repetition size (line 272), then `pc_offset % rep_block_size` (line 282).
        let rep = s.byte(fde + 17).ok_or(OUTSIDE)?;
        let mut pc_offset = pc_from_start;
        if (info >> 4) & 1 == 1 {
            if rep == 0 {
                return Err(Trigger::GlibcMaskRepSizeZero);
            }
            pc_offset %= u32::from(rep);
        }
        if start <= pc_offset && end >= pc_offset {
            return Ok(Some((at + (width + 1) as i64, fre_info)));
        }
        at += entry;
    }
    Ok(None)
}

/// `sframe_fre_offset_bytes_size` (lines 143-156).
fn data_word_bytes(info: u8) -> i64 {
    i64::from((info >> 1) & 0xf) * word_bytes(info) as i64
}

/// `sframe_get_fre_offset` (lines 290-327): data word `idx` of the row, when the sanity
/// check and the count let it be read.
fn offset(s: &Section, words: i64, info: u8, idx: u8) -> Result<(), Trigger> {
    let count = (info >> 1) & 0xf;
    if (info >> 5) & 3 == 3 || count > MAX_OFFSETS || count <= idx {
        return Ok(());
    }
    let w = word_bytes(info);
    s.read(words + i64::from(idx) * w as i64, w)
        .map(|_| ())
        .ok_or(OUTSIDE)
}

/// The getters `gs_fill_row` calls, in order: CFA (word 0), RA (word 1 unless the header
/// fixes it), FP (unless the header fixes it: word 1 when the RA offset is fixed, else 2).
fn getters(s: &Section, c: &Ctx, words: i64, info: u8) -> Result<(), Trigger> {
    offset(s, words, info, 0)?;
    if c.fixed_ra == 0 {
        offset(s, words, info, 1)?;
    }
    if c.fixed_fp == 0 {
        offset(s, words, info, if c.fixed_ra != 0 { 1 } else { 2 })?;
    }
    Ok(())
}

fn run(data: &[u8], call: Call) -> Result<(), Trigger> {
    let s = Section(data);
    if let Call::Lookup(pc) = call {
        // worker/src/glibc.rs: a PC beyond `int32_t` is answered "unsupported" after the
        // decoder is built.
        let ctx = decode(&s)?;
        let (Some(c), Ok(pc)) = (ctx, i32::try_from(pc)) else {
            return Ok(());
        };
        if let Some((words, info)) = find_fre(&s, &c, pc)? {
            getters(&s, &c, words, info)?;
        }
        // `gs_find` then searches again for the function's index: the same reads.
        return Ok(());
    }
    decode(&s).map(|_| ())
}

/// The first known bug glibc 2.43's reader reaches on `data` as the worker drives it.
pub fn first_trigger(data: &[u8], call: Call) -> Evaluation {
    match run(data, call) {
        Ok(()) => Evaluation::Clean,
        Err(t) => Evaluation::Triggered(t),
    }
}

// The expected values are what the ASan+UBSan build of glibc 2.43-6's reader
// (ci/instrumented-libs), hosted in sframe-worker, reported on the same bytes: no report on
// the valid section at PCs 0, 0xff, 0x100, 0x13f, 0x140; UBSan's division by zero and
// SIGFPE at sframe-read.c:282 at 0x100 and 0x13f with repetition size 0, none at 0x140 or
// with size 16; a heap-buffer-overflow read in sframe_get_fre_offset (line 315) at 0x100
// when the data word is cut off, none in its decode; an unknown-crash read in
// __sframe_decode (line 550) for a 27-byte header.
#[cfg(test)]
mod tests {
    use super::*;

    /// A sorted v2 section of one function at 0x100 of size 0x40, one FRE (1-byte start
    /// 0, info 0x03: one 1-byte word), with `fde_type` and `rep`.
    fn one(info: u8, rep: u8) -> Vec<u8> {
        let mut d = vec![0xe2, 0xde, 2, SORTED, 3, 0, 0xf8, 0];
        d.extend(1u32.to_le_bytes()); // num_fdes
        d.extend(1u32.to_le_bytes()); // num_fres
        d.extend(3u32.to_le_bytes()); // fre_len
        d.extend(0u32.to_le_bytes()); // fdeoff
        d.extend(20u32.to_le_bytes()); // freoff
        d.extend(0x100u32.to_le_bytes());
        d.extend(0x40u32.to_le_bytes());
        d.extend(0u32.to_le_bytes());
        d.extend(1u32.to_le_bytes());
        d.extend([info, rep, 0, 0]);
        d.extend([0, 0x03, 0x10]);
        d
    }

    #[test]
    fn a_valid_section_is_clean_at_every_pc() {
        let d = one(0, 0);
        for pc in [0, 0xff, 0x100, 0x13f, 0x140] {
            assert_eq!(first_trigger(&d, Call::Lookup(pc)), Evaluation::Clean);
        }
        assert_eq!(first_trigger(&d, Call::Decode), Evaluation::Clean);
    }

    #[test]
    fn a_pc_mask_function_of_rep_size_zero_divides_at_a_pc_inside_it() {
        let d = one(0x10, 0);
        let fpe = Evaluation::Triggered(Trigger::GlibcMaskRepSizeZero);
        assert_eq!(first_trigger(&d, Call::Lookup(0x100)), fpe);
        assert_eq!(first_trigger(&d, Call::Lookup(0x13f)), fpe);
        // Outside the function the search finds nothing: no division.
        assert_eq!(first_trigger(&d, Call::Lookup(0x140)), Evaluation::Clean);
        assert_eq!(
            first_trigger(&one(0x10, 16), Call::Lookup(0x100)),
            Evaluation::Clean
        );
    }

    #[test]
    fn a_truncated_row_is_read_past_by_the_getters() {
        let mut d = one(0, 0);
        d.pop();
        let past = Evaluation::Triggered(OUTSIDE);
        assert_eq!(first_trigger(&d, Call::Lookup(0x100)), past);
        assert_eq!(first_trigger(&d, Call::Decode), Evaluation::Clean);
        assert_eq!(first_trigger(&d[..27], Call::Decode), past);
        assert_eq!(first_trigger(&[], Call::Decode), past);
    }
}
