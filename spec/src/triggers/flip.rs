//! libsframe's byte-swapping pass over a foreign-endian section (`flip_header`, then
//! `flip_sframe`), which `sframe_decode` runs on a copy of the section (`tempbuf = malloc
//! (sf_size)`) before reading it: the first bad access it makes, or the copy in host order it
//! leaves for the decode walk ([`super::first_trigger`] then walks the copy).
//!
//! 2.40 and 2.44 (`flip_sframe`) check each descriptor's start against the end (`if
//! ((char*)fdep >= (frame_buf + buf_size)) goto bad;`), not its end, and nothing of the FREs:
//! `fp = frame_buf + sframe_get_hdr_size (ihp) + ihp->sfh_freoff; fp += fre_offset;` then
//! `flip_fre (fp, fre_type, &esz)` per FRE. 2.47 (`flip_sframe_fdes_with_fres_v2`/`_v3`)
//! passes the room left as `buf_end - fp`, which wraps to a huge `size_t` once an FDE's FRE
//! offset puts `fp` past the end, so `flip_fde_attr_v3` and `flip_fre` then swap past it.
//! Both read an FRE's type through `sframe_fre_start_addr_size`, whose `default:
//! sframe_assert (0);` aborts on types 3..15 ([`Trigger::LibsframeInvalidFreType`]).
//!
//! [`swap`](crate::swap) builds the reference's reading of a swapped section; this walk
//! follows the releases' pass to its first bad access instead.

use super::{dataword_bytes, rd, Release, Trigger, HEADER};

/// What the pass does with a section.
pub(super) enum Flipped {
    /// `flip_sframe` or the header check failed: `sframe_decode` refuses the section.
    Refused,
    /// The pass touches bytes outside the copy, or asserts.
    Bug(Trigger),
    /// The copy in host order.
    Host(Vec<u8>),
}

const PAST: Trigger = Trigger::LibsframeFlipPastBuffer;

/// A copy being swapped: each swap or read outside it is the bug.
struct Buf(Vec<u8>);

impl Buf {
    fn swap(&mut self, at: u64, width: u64) -> Result<(), Trigger> {
        let b = usize::try_from(at)
            .ok()
            .and_then(|a| self.0.get_mut(a..a.checked_add(width as usize)?))
            .ok_or(PAST)?;
        b.reverse();
        Ok(())
    }
    fn read(&self, at: u64, width: usize) -> Result<u64, Trigger> {
        rd(&self.0, usize::try_from(at).map_err(|_| PAST)?, width).ok_or(PAST)
    }
    fn len(&self) -> u64 {
        self.0.len() as u64
    }
}

/// `sframe_fre_start_addr_size`.
fn addr_size(fre_type: u8) -> Result<u64, Trigger> {
    match fre_type {
        0 => Ok(1),
        1 => Ok(2),
        2 => Ok(4),
        _ => Err(Trigger::LibsframeInvalidFreType),
    }
}

/// One FRE at `fp` (`flip_fre`): its size. 2.47 passes `room` (`buf_end - fp`, `None` when
/// it wrapped) and fails when the FRE does not fit (`Ok(None)`); 2.40 and 2.44 check nothing.
fn flip_fre(b: &mut Buf, fp: u64, fre_type: u8, checked: bool) -> Result<Option<u64>, Trigger> {
    let room = (checked && fp <= b.len()).then(|| b.len() - fp);
    let addr = addr_size(fre_type)?;
    if room.is_some_and(|r| addr + 1 > r) {
        return Ok(None);
    }
    if addr > 1 {
        b.swap(fp, addr)?;
    }
    let info = b.read(fp + addr, 1)? as u8;
    let words = dataword_bytes(info) as u64;
    if room.is_some_and(|r| addr + 1 + words > r) {
        return Ok(None);
    }
    // `flip_fre_stack_offsets` / `flip_fre_datawords`: 2- and 4-byte words only.
    let size = match (info >> 5) & 3 {
        1 => 2,
        2 => 4,
        _ => 0,
    };
    for k in 0..u64::from((info >> 1) & 0xf) {
        if size > 0 {
            b.swap(fp + addr + 1 + k * size, size)?;
        }
    }
    Ok(Some(addr + 1 + words))
}

/// `flip_header`, then `flip_sframe` of `rel` (the header already checked to be at least
/// `sizeof (sframe_header)`).
pub(super) fn flip(data: &[u8], rel: Release) -> Flipped {
    match run(data, rel) {
        Ok(Some(b)) => Flipped::Host(b),
        Ok(None) => Flipped::Refused,
        Err(t) => Flipped::Bug(t),
    }
}

fn run(data: &[u8], rel: Release) -> Result<Option<Vec<u8>>, Trigger> {
    let mut b = Buf(data.to_vec());
    b.swap(0, 2)?;
    for at in [8, 12, 16, 20, 24] {
        b.swap(at, 4)?;
    }
    let h = &b.0;
    let (version, flags, aux) = (h[2], h[3], h[7]);
    let field = |at: usize| rd(h, at, 4).unwrap_or(0);
    let (num_fdes, num_fres) = (field(8), field(12) as u32);
    let (fre_len, fdeoff, freoff) = (field(16), field(20), field(24));
    // `sframe_header_sanity_check_p` (2.47's admits v1, which `flip_sframe` then refuses).
    let known = match (rel, version) {
        (Release::Libsframe247, 3) => flags & !5 == 0,
        (Release::Libsframe247, 2) => flags & !7 == 0,
        _ => rel.accepts(version, flags),
    };
    // 2.47's `flip_header` refuses an auxiliary header ("Auxiliary header, if present, needs
    // to flipped based on per abi/arch semantics"); its `flip_sframe` refuses v1.
    let new = rel == Release::Libsframe247;
    if !known || fdeoff > freoff || (new && (version == 1 || aux != 0)) {
        return Ok(None);
    }
    let hdrsz = (HEADER as u64) + u64::from(aux);
    let len = b.len();
    let (fdes, fres) = (hdrsz + fdeoff, hdrsz + freoff);
    let (mut j, mut prev) = (0u32, 0u32);
    let (mut fde_bytes, mut fre_bytes) = (0u64, 0u64);
    let stride = match (rel, version) {
        (Release::Libsframe240, _) => 17,
        (_, 3) => 16,
        _ => 20,
    };
    for i in 0..num_fdes {
        let at = fdes + i * stride;
        if at >= len {
            return Ok(None);
        }
        if new && len - at < stride {
            // `flip_fde_desc`'s own check.
            return Ok(None);
        }
        // `flip_fde`: start, size, FRE offset, FRE count (v3: 64-bit start, size, offset).
        let fields: &[(u64, u64)] = if version == 3 {
            &[(0, 8), (8, 4), (12, 4)]
        } else {
            &[(0, 4), (4, 4), (8, 4), (12, 4)]
        };
        for &(off, w) in fields {
            b.swap(at + off, w)?;
        }
        fde_bytes += stride;
        let (mut fp, count, fre_type) = if version == 3 {
            let fp = fres + b.read(at + 12, 4)?;
            // `flip_fde_attr_v3 (fp, buf_end - fp)`: wrapped when `fp` is past the end.
            if fp <= len && len - fp < 5 {
                return Ok(None);
            }
            b.swap(fp, 2)?;
            fre_bytes += 5;
            let count = b.read(fp, 2)? as u32;
            let info = b.read(fp + 2, 1)? as u8;
            (fp + 5, count, info & 0xf)
        } else {
            let count = b.read(at + 12, 4)? as u32;
            let info = b.read(at + 16, 1)? as u8;
            (fres + b.read(at + 8, 4)?, count, info & 0xf)
        };
        // `for (; j < prev_frep_index + num_fres; j++)`, in `unsigned int`. Every FRE is at
        // least two bytes, so the walk leaves the copy, or ends, within `len` steps.
        let end = prev.wrapping_add(count);
        while j < end {
            let Some(esz) = flip_fre(&mut b, fp, fre_type, new)? else {
                return Ok(None);
            };
            fre_bytes += esz;
            // 2.40, 2.44: `bytes_flipped += esz; if (esz == 0 || esz > buf_size) goto bad;`
            if !new && esz > len {
                return Ok(None);
            }
            fp += esz;
            j += 1;
        }
        prev = j;
    }
    let done = if new {
        // All FDEs and FREs flipped, within their sub-sections; zeros after them.
        let size = fres + fre_bytes;
        j == num_fres
            && fde_bytes <= freoff - fdeoff
            && fre_bytes <= fre_len
            && b.0
                .get(size as usize..)
                .is_none_or(|t| t.iter().all(|&x| x == 0))
    } else {
        // `bytes_flipped != (buf_size - hdrsz)`, in `size_t`.
        j == num_fres && len.checked_sub(hdrsz) == Some(fde_bytes + fre_bytes)
    };
    Ok(done.then_some(b.0))
}
