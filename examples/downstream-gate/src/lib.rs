//! `tiny-sframe`: a small reader of SFrame v2 and v3 sections (header, function descriptors,
//! FRE start addresses; the look-up of the row for a PC), written from the SFrame manual, as
//! a downstream crate would have one.
//!
//! Its one known deviation, deliberate and recorded in its own findings ledger
//! (`tests/sframe-findings/`): it reads little-endian sections only and refuses big-endian
//! ones (AArch64 big endian, s390x) with [`Error::BigEndian`].

/// Why a section was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Error {
    /// Not the SFrame magic in either byte order.
    BadMagic,
    /// Big-endian section: not supported (the known deviation).
    BigEndian,
    /// A version other than 2 or 3.
    UnsupportedVersion(u8),
    /// A field lies beyond the end of the section.
    Truncated,
}

impl Error {
    /// A short stable name (the class the gate compares).
    pub fn class(self) -> &'static str {
        match self {
            Error::BadMagic => "bad-magic",
            Error::BigEndian => "big-endian",
            Error::UnsupportedVersion(_) => "unsupported-version",
            Error::Truncated => "truncated",
        }
    }
}

/// The header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub version: u8,
    pub flags: u8,
    pub abi: u8,
    pub cfa_fixed_fp_offset: i8,
    pub cfa_fixed_ra_offset: i8,
    pub auxhdr_len: u8,
    pub num_fdes: u32,
    pub num_fres: u32,
    pub fre_len: u32,
    pub fdeoff: u32,
    pub freoff: u32,
}

/// `SFRAME_F_FDE_FUNC_START_PCREL`: function starts are relative to their own field.
pub const F_FDE_FUNC_START_PCREL: u8 = 0x4;
/// `SFRAME_F_FDE_SORTED`.
pub const F_FDE_SORTED: u8 = 0x1;
const HEADER_SIZE: usize = 28;

/// One function descriptor and the start addresses of its FREs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function {
    /// Start, as an offset from the start of the section.
    pub start: i64,
    pub size: u32,
    /// 0, 1, 2: FRE start addresses of 1, 2, 4 bytes.
    pub fre_type: u8,
    /// 0: PC-increment, 1: PC-mask.
    pub pc_type: u8,
    pub rep_size: u8,
    /// FRE start addresses (offsets from the function start, or within the repeated block).
    pub fre_starts: Vec<u32>,
}

/// A parsed section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sframe {
    pub header: Header,
    pub functions: Vec<Function>,
}

/// The row a look-up selects: the function and the index of the FRE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    pub function: usize,
    pub fre: usize,
}

fn bytes<const N: usize>(d: &[u8], at: usize) -> Result<[u8; N], Error> {
    d.get(at..at.checked_add(N).ok_or(Error::Truncated)?)
        .and_then(|b| b.try_into().ok())
        .ok_or(Error::Truncated)
}
fn u8_at(d: &[u8], at: usize) -> Result<u8, Error> {
    d.get(at).copied().ok_or(Error::Truncated)
}
fn u16_at(d: &[u8], at: usize) -> Result<u16, Error> {
    Ok(u16::from_le_bytes(bytes(d, at)?))
}
fn u32_at(d: &[u8], at: usize) -> Result<u32, Error> {
    Ok(u32::from_le_bytes(bytes(d, at)?))
}
fn i32_at(d: &[u8], at: usize) -> Result<i32, Error> {
    Ok(i32::from_le_bytes(bytes(d, at)?))
}
fn i64_at(d: &[u8], at: usize) -> Result<i64, Error> {
    Ok(i64::from_le_bytes(bytes(d, at)?))
}

/// Parse a section.
pub fn parse(d: &[u8]) -> Result<Sframe, Error> {
    match bytes::<2>(d, 0)? {
        [0xe2, 0xde] => {}
        [0xde, 0xe2] => return Err(Error::BigEndian),
        _ => return Err(Error::BadMagic),
    }
    let version = u8_at(d, 2)?;
    if version != 2 && version != 3 {
        return Err(Error::UnsupportedVersion(version));
    }
    let header = Header {
        version,
        flags: u8_at(d, 3)?,
        abi: u8_at(d, 4)?,
        cfa_fixed_fp_offset: u8_at(d, 5)? as i8,
        cfa_fixed_ra_offset: u8_at(d, 6)? as i8,
        auxhdr_len: u8_at(d, 7)?,
        num_fdes: u32_at(d, 8)?,
        num_fres: u32_at(d, 12)?,
        fre_len: u32_at(d, 16)?,
        fdeoff: u32_at(d, 20)?,
        freoff: u32_at(d, 24)?,
    };
    // Sub-section offsets count from the end of the header and its auxiliary header.
    let base = HEADER_SIZE + usize::from(header.auxhdr_len);
    let fdes = base + header.fdeoff as usize;
    let fres = base + header.freoff as usize;
    let mut functions = Vec::new();
    for i in 0..header.num_fdes as usize {
        let pcrel = header.flags & F_FDE_FUNC_START_PCREL != 0;
        // v2: a 20-byte FDE (start i32, size, FRE offset, FRE count, info, rep size, padding);
        // v3: a 16-byte index entry (start i64, size, offset of the attribute in the FRE
        // sub-section), the attribute (FRE count u16, info, info2, rep size), then the FREs.
        let (field, raw, size, fre_off, num_fres, info, rep_size, first_fre) = if version == 2 {
            let at = fdes + i * 20;
            let fre_off = u32_at(d, at + 8)?;
            (
                at,
                i64::from(i32_at(d, at)?),
                u32_at(d, at + 4)?,
                fre_off,
                u32_at(d, at + 12)?,
                u8_at(d, at + 16)?,
                u8_at(d, at + 17)?,
                fres + fre_off as usize,
            )
        } else {
            let at = fdes + i * 16;
            let fre_off = u32_at(d, at + 12)?;
            let attr = fres + fre_off as usize;
            (
                at,
                i64_at(d, at)?,
                u32_at(d, at + 8)?,
                fre_off,
                u32::from(u16_at(d, attr)?),
                u8_at(d, attr + 2)?,
                u8_at(d, attr + 4)?,
                attr + 5,
            )
        };
        let _ = fre_off;
        let start = if pcrel {
            raw.wrapping_add(field as i64)
        } else {
            raw
        };
        let fre_type = info & 0xf;
        let addr_size = match fre_type {
            0 => 1,
            1 => 2,
            2 => 4,
            _ => return Err(Error::Truncated),
        };
        // Each FRE: its start address, an info byte (bits 1-4: number of data words, bits
        // 5-6: their size, 1 << n bytes), the data words.
        let mut at = first_fre;
        let mut fre_starts = Vec::new();
        for _ in 0..num_fres {
            let mut b = [0u8; 4];
            b[..addr_size].copy_from_slice(d.get(at..at + addr_size).ok_or(Error::Truncated)?);
            fre_starts.push(u32::from_le_bytes(b));
            let fre_info = u8_at(d, at + addr_size)?;
            let words = usize::from((fre_info >> 1) & 0xf);
            let word_size = 1usize << ((fre_info >> 5) & 3);
            at += addr_size + 1 + words * word_size;
        }
        functions.push(Function {
            start,
            size,
            fre_type,
            pc_type: (info >> 4) & 1,
            rep_size,
            fre_starts,
        });
    }
    Ok(Sframe { header, functions })
}

impl Sframe {
    /// The row for `pc` (an offset from the start of the section): the function containing
    /// it, found as a consumer does (with `SFRAME_F_FDE_SORTED`, trusting it: a binary
    /// search for the last function starting at or before the PC; without it, the first
    /// function in FDE order that contains it), then its last FRE starting at or before the
    /// PC's offset in the function, or in the repeated block for a PC-mask function.
    pub fn find(&self, pc: i64) -> Option<Hit> {
        let contains = |f: &Function| {
            pc.checked_sub(f.start)
                .is_some_and(|off| off >= 0 && off < i64::from(f.size))
        };
        let function = if self.header.flags & F_FDE_SORTED != 0 {
            let i = self
                .functions
                .partition_point(|f| f.start <= pc)
                .checked_sub(1)?;
            Some(i).filter(|&i| contains(&self.functions[i]))?
        } else {
            self.functions.iter().position(contains)?
        };
        let f = &self.functions[function];
        let mut off = pc - f.start;
        if f.pc_type == 1 {
            if f.rep_size == 0 {
                return None;
            }
            off %= i64::from(f.rep_size);
        }
        let fre = f.fre_starts.iter().rposition(|&s| i64::from(s) <= off)?;
        Some(Hit { function, fre })
    }
}
