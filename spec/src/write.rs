//! Encoding the [`Section`] model into bytes, for any version, ABI and byte order.
//!
//! The writer refuses only what the bytes cannot represent (a value wider than its field, a
//! v3 field in a v1 section, overlapping explicit layouts). Everything the bytes *can* say,
//! including what the rules forbid (unsorted FDEs under the sorted flag, undefined flag bits,
//! a wrong header fixed offset), it writes as asked: that is how malformed test inputs are made.

use crate::constants::*;
use crate::layout::fde_info::unused_mask as info_unused_mask;
use crate::model::{Function, Section};
use core::fmt;

/// Why a model cannot be encoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EncodeError {
    /// The start-address field (int32 in v1/v2) cannot hold the value.
    StartOutOfRange { function: usize, value: i64 },
    /// An FRE start address does not fit the function's FRE type.
    FreStartTooWide {
        function: usize,
        fre: usize,
        start: u32,
        fre_type: FreType,
    },
    /// A data word does not fit the FRE's data-word size.
    DataWordTooWide {
        function: usize,
        fre: usize,
        word: usize,
        value: i32,
    },
    /// More than 15 data words.
    TooManyDataWords {
        function: usize,
        fre: usize,
        count: usize,
    },
    /// More FREs than the count field holds (v3: 65535).
    TooManyFres { function: usize, count: usize },
    /// A field exists only in a later version (flex FDE type, signal bit, rep_size, padding, info2 bits).
    NotInVersion {
        function: usize,
        what: &'static str,
        version: Version,
    },
    /// Explicit FRE offsets make two functions' data overlap.
    LayoutOverlap { function: usize },
    /// Reserved bits given outside the reserved positions.
    ReservedBitsMisplaced { function: usize },
    /// The auxiliary header is longer than 255 bytes, or the section longer than 4 GiB.
    TooLarge,
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot encode: {self:?}")
    }
}
impl std::error::Error for EncodeError {}

/// Encode `s` into the bytes of an SFrame section.
pub fn encode(s: &Section) -> Result<Vec<u8>, EncodeError> {
    let e = s.endian;
    let v = s.version;
    let entry = v.fde_entry_size();
    let auxhdr_len = u8::try_from(s.aux_header.len()).map_err(|_| EncodeError::TooLarge)?;
    let hsize = HEADER_SIZE + s.aux_header.len();
    let fde_bytes = s
        .functions
        .len()
        .checked_mul(entry)
        .ok_or(EncodeError::TooLarge)?;
    let fre_base = hsize + fde_bytes;

    // Function data blocks (v3: attribute + FREs; v1/v2: FREs).
    let mut blocks = Vec::with_capacity(s.functions.len());
    for (i, f) in s.functions.iter().enumerate() {
        check_function(v, i, f)?;
        blocks.push(encode_block(s, i, f)?);
    }
    // Layout: explicit offsets when every function has one, else dense in FDE order.
    let explicit = !s.functions.is_empty() && s.functions.iter().all(|f| f.fre_offset.is_some());
    let mut offsets = vec![0u32; s.functions.len()];
    let mut fre_sub: Vec<u8> = Vec::new();
    if explicit {
        let mut order: Vec<usize> = (0..s.functions.len()).collect();
        order.sort_by_key(|&i| (s.functions[i].fre_offset, i));
        for i in order {
            let off = s.functions[i].fre_offset.unwrap_or_default() as usize;
            if blocks[i].is_empty() {
                offsets[i] = off as u32;
                if off > fre_sub.len() {
                    fre_sub.resize(off, 0);
                }
                continue;
            }
            if off < fre_sub.len() {
                return Err(EncodeError::LayoutOverlap { function: i });
            }
            fre_sub.resize(off, 0);
            fre_sub.extend_from_slice(&blocks[i]);
            offsets[i] = off as u32;
        }
    } else {
        for (i, b) in blocks.iter().enumerate() {
            offsets[i] = u32::try_from(fre_sub.len()).map_err(|_| EncodeError::TooLarge)?;
            fre_sub.extend_from_slice(b);
        }
    }
    let fre_len = u32::try_from(fre_sub.len()).map_err(|_| EncodeError::TooLarge)?;
    let num_fres = u32::try_from(s.num_fres()).map_err(|_| EncodeError::TooLarge)?;
    let num_fdes = u32::try_from(s.functions.len()).map_err(|_| EncodeError::TooLarge)?;
    let freoff = u32::try_from(fde_bytes).map_err(|_| EncodeError::TooLarge)?;

    let mut out = Vec::with_capacity(fre_base + fre_sub.len());
    e.put(&mut out, u64::from(MAGIC), 2);
    out.push(v.number());
    out.push(s.flags);
    out.push(s.abi.id());
    out.push(s.cfa_fixed_fp_offset as u8);
    out.push(s.cfa_fixed_ra_offset as u8);
    out.push(auxhdr_len);
    e.put(&mut out, u64::from(num_fdes), 4);
    e.put(&mut out, u64::from(num_fres), 4);
    e.put(&mut out, u64::from(fre_len), 4);
    e.put(&mut out, 0, 4); // sfh_fdeoff
    e.put(&mut out, u64::from(freoff), 4);
    out.extend_from_slice(&s.aux_header);

    let pcrel = v != Version::V1 && s.flags & flags::FDE_FUNC_START_PCREL != 0;
    for (i, f) in s.functions.iter().enumerate() {
        let field_off = out.len() as i64;
        let raw = if pcrel {
            f.start.wrapping_sub(field_off)
        } else {
            f.start
        };
        match v {
            Version::V1 | Version::V2 => {
                let raw = i32::try_from(raw).map_err(|_| EncodeError::StartOutOfRange {
                    function: i,
                    value: f.start,
                })?;
                e.put(&mut out, u64::from(raw as u32), 4);
                e.put(&mut out, u64::from(f.size), 4);
                e.put(&mut out, u64::from(offsets[i]), 4);
                e.put(&mut out, f.fres.len() as u64, 4);
                out.push(f.info_byte(v));
                if v == Version::V2 {
                    out.push(f.rep_size);
                    e.put(&mut out, u64::from(f.reserved.padding), 2);
                }
            }
            Version::V3 => {
                e.put(&mut out, raw as u64, 8);
                e.put(&mut out, u64::from(f.size), 4);
                e.put(&mut out, u64::from(offsets[i]), 4);
            }
        }
    }
    out.extend_from_slice(&fre_sub);
    Ok(out)
}

fn check_function(v: Version, i: usize, f: &Function) -> Result<(), EncodeError> {
    let not_in = |what| {
        Err(EncodeError::NotInVersion {
            function: i,
            what,
            version: v,
        })
    };
    if v != Version::V3 {
        if f.fde_type != FdeType::Default {
            return not_in("flex FDE type");
        }
        if f.signal {
            return not_in("signal bit");
        }
        if f.reserved.info2 != 0 {
            return not_in("info2 bits");
        }
    }
    if v == Version::V1 && f.rep_size != 0 {
        return not_in("rep_size");
    }
    if v != Version::V2 && f.reserved.padding != 0 {
        return not_in("padding");
    }
    if f.reserved.info & !info_unused_mask(v) != 0
        || f.reserved.info2 & !crate::layout::fde_info2::UNUSED_MASK != 0
    {
        return Err(EncodeError::ReservedBitsMisplaced { function: i });
    }
    if v == Version::V3 && f.fres.len() > usize::from(u16::MAX) {
        return Err(EncodeError::TooManyFres {
            function: i,
            count: f.fres.len(),
        });
    }
    Ok(())
}

fn encode_block(s: &Section, i: usize, f: &Function) -> Result<Vec<u8>, EncodeError> {
    let e = s.endian;
    let mut b = Vec::new();
    if s.version == Version::V3 {
        e.put(&mut b, f.fres.len() as u64, 2);
        b.push(f.info_byte(s.version));
        b.push(f.info2_byte());
        b.push(f.rep_size);
    }
    let asz = f.fre_type.addr_size();
    for (k, fre) in f.fres.iter().enumerate() {
        if u64::from(fre.start) >= f.fre_type.limit() {
            return Err(EncodeError::FreStartTooWide {
                function: i,
                fre: k,
                start: fre.start,
                fre_type: f.fre_type,
            });
        }
        if fre.datawords.len() > usize::from(MAX_DATAWORD_COUNT) {
            return Err(EncodeError::TooManyDataWords {
                function: i,
                fre: k,
                count: fre.datawords.len(),
            });
        }
        e.put(&mut b, u64::from(fre.start), asz);
        b.push(fre.info_byte());
        let ws = fre.dataword_size.bytes();
        for (w, &val) in fre.datawords.iter().enumerate() {
            // Data words are held sign-extended (flex control words too: see
            // `Fre::control_word`), so that decode(encode(m)) == m.
            let fits = fre.dataword_size.fits_signed(i64::from(val));
            if !fits {
                return Err(EncodeError::DataWordTooWide {
                    function: i,
                    fre: k,
                    word: w,
                    value: val,
                });
            }
            e.put(&mut b, val as u32 as u64, ws);
        }
    }
    Ok(b)
}
