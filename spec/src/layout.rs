//! The layout of the format, per version: where each field of the header, of an FDE (v1,
//! v2), of an FDE index entry and FDE attribute (v3) and of an FRE lies, and the bit fields of
//! the info bytes (v3 manual §2 tables; `sframe.h` of each release for v1 and v2).
//!
//! Every crate of the workspace that reads, writes or mutates the bytes of a section on its
//! own (the generator's offsets, the harness's havoc, the libsframe bindings, signature
//! tags) takes offsets and bits from here, never from numbers of its own.

use crate::constants::{
    BaseReg, DataWordSize, FdeType, FreType, PauthKey, PcType, Version, FDE_ATTR_V3_SIZE,
    HEADER_SIZE,
};
use crate::model::{Fre, Function};
use crate::Endian;

/// Field offsets of `sframe_header` (v3 manual §2.2 table).
pub mod header {
    pub const MAGIC: usize = 0x00;
    pub const VERSION: usize = 0x02;
    pub const FLAGS: usize = 0x03;
    pub const ABI_ARCH: usize = 0x04;
    pub const CFA_FIXED_FP_OFFSET: usize = 0x05;
    pub const CFA_FIXED_RA_OFFSET: usize = 0x06;
    pub const AUXHDR_LEN: usize = 0x07;
    pub const NUM_FDES: usize = 0x08;
    pub const NUM_FRES: usize = 0x0c;
    pub const FRE_LEN: usize = 0x10;
    pub const FDEOFF: usize = 0x14;
    pub const FREOFF: usize = 0x18;
}

/// One field of a record: its offset from the record's start and its width in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    pub offset: usize,
    pub width: usize,
}

const fn field(offset: usize, width: usize) -> Field {
    Field { offset, width }
}

/// The one-byte fields of the header after the preamble, in order: flags, ABI, fixed FP
/// offset, fixed RA offset, auxiliary header length.
pub const HEADER_BYTE_FIELDS: [usize; 5] = [
    header::FLAGS,
    header::ABI_ARCH,
    header::CFA_FIXED_FP_OFFSET,
    header::CFA_FIXED_RA_OFFSET,
    header::AUXHDR_LEN,
];

/// The width of a `uint32_t` field: each of [`HEADER_WORD_FIELDS`], and the FDE words.
pub const WORD_SIZE: usize = 4;

/// The four-byte fields of the header, in order: `sfh_num_fdes`, `sfh_num_fres`,
/// `sfh_fre_len`, `sfh_fdeoff`, `sfh_freoff`.
pub const HEADER_WORD_FIELDS: [usize; 5] = [
    header::NUM_FDES,
    header::NUM_FRES,
    header::FRE_LEN,
    header::FDEOFF,
    header::FREOFF,
];

/// The fields of one function descriptor: a v1/v2 `sframe_func_desc_entry`, or a v3
/// `sframe_func_desc_idx` (whose other fields are in the [`FdeAttrLayout`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FdeLayout {
    /// The size of one entry.
    pub size_of: usize,
    /// `sfde_func_start_address` (4 bytes) / `sfdi_func_start_offset` (8 bytes).
    pub start: Field,
    /// `sfde_func_size` / `sfdi_func_size`.
    pub size: Field,
    /// `sfde_func_start_fre_off` / `sfdi_func_start_fre_off`.
    pub fre_off: Field,
    /// `sfde_func_num_fres` (v1, v2; v3: in the attribute).
    pub num_fres: Option<Field>,
    /// `sfde_func_info` (v1, v2; v3: in the attribute).
    pub info: Option<Field>,
    /// `sfde_func_rep_size` (v2).
    pub rep_size: Option<Field>,
    /// `sfde_func_padding2` (v2).
    pub padding: Option<Field>,
}

impl FdeLayout {
    pub const fn of(version: Version) -> FdeLayout {
        match version {
            Version::V1 | Version::V2 => {
                let v2 = matches!(version, Version::V2);
                FdeLayout {
                    size_of: if v2 { 20 } else { 17 },
                    start: field(0, 4),
                    size: field(4, 4),
                    fre_off: field(8, 4),
                    num_fres: Some(field(12, 4)),
                    info: Some(field(16, 1)),
                    rep_size: if v2 { Some(field(17, 1)) } else { None },
                    padding: if v2 { Some(field(18, 2)) } else { None },
                }
            }
            Version::V3 => FdeLayout {
                size_of: 16,
                start: field(0, 8),
                size: field(8, 4),
                fre_off: field(12, 4),
                num_fres: None,
                info: None,
                rep_size: None,
                padding: None,
            },
        }
    }
}

/// The fields of a v3 `sframe_func_desc_attr`, which precedes a function's FREs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FdeAttrLayout;

impl FdeAttrLayout {
    /// The size of the attribute.
    pub const SIZE: usize = FDE_ATTR_V3_SIZE;
    /// `sfda_func_num_fres`.
    pub const NUM_FRES: Field = field(0, 2);
    /// `sfda_func_info`.
    pub const INFO: Field = field(2, 1);
    /// `sfda_func_info2`.
    pub const INFO2: Field = field(3, 1);
    /// `sfda_func_rep_size`.
    pub const REP_SIZE: Field = field(4, 1);
}

/// Where a function's info byte lies, and its number of FREs: absolute offsets in a section
/// of `version` whose FDE is at `fde` and whose FRE data (v3: attribute) starts at `block`.
pub fn info_offset(version: Version, fde: usize, block: usize) -> usize {
    match FdeLayout::of(version).info {
        Some(f) => fde + f.offset,
        None => block + FdeAttrLayout::INFO.offset,
    }
}

/// The fields of a frame row entry: the start address (its width is the FDE's FRE type),
/// the info byte, then the data words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FreLayout;

impl FreLayout {
    /// `sfre_start_address`.
    pub fn start(fre_type: FreType) -> Field {
        field(0, fre_type.addr_size())
    }
    /// `sfre_info`.
    pub fn info(fre_type: FreType) -> Field {
        field(fre_type.addr_size(), 1)
    }
    /// Where the data words begin.
    pub fn datawords(fre_type: FreType) -> usize {
        fre_type.addr_size() + 1
    }
    /// The size of an FRE with `count` data words of `size`.
    pub fn size_of(fre_type: FreType, count: usize, size: DataWordSize) -> usize {
        Self::datawords(fre_type) + count * size.bytes()
    }
}

/// Bit fields of the FDE info byte (`sfde_func_info` / `sfda_func_info`).
pub mod fde_info {
    /// Bits 0-3: the FRE type.
    pub const FRE_TYPE_MASK: u8 = 0x0f;
    /// Bit 4: the PC type (v3 name; "FDE type" before v3).
    pub const PC_TYPE_SHIFT: u32 = 4;
    /// Bit 5: the AArch64 PAuth key.
    pub const PAUTH_KEY_SHIFT: u32 = 5;
    /// Bit 7 (v3): `signal_p`.
    pub const SIGNAL: u8 = 0x80;

    /// The FRE type field, as stored.
    pub const fn fre_type(info: u8) -> u8 {
        info & FRE_TYPE_MASK
    }
    /// The PC type bit.
    pub const fn pc_type(info: u8) -> u8 {
        (info >> PC_TYPE_SHIFT) & 1
    }
    /// The PAuth key bit.
    pub const fn pauth_key(info: u8) -> u8 {
        (info >> PAUTH_KEY_SHIFT) & 1
    }
    /// The v3 `signal_p` bit (unused before v3).
    pub const fn signal(info: u8) -> bool {
        info & SIGNAL != 0
    }
    /// The unused bits of the info byte in `version`: 7-6 in v1 and v2, 6 in v3. v1's bit 5
    /// is the PAuth key in `sframe-v1.h` but "unused" in the v1 manual; the header is
    /// followed (see the discrepancy list).
    pub const fn unused_mask(version: crate::constants::Version) -> u8 {
        match version {
            crate::constants::Version::V1 | crate::constants::Version::V2 => 0xc0,
            crate::constants::Version::V3 => 0x40,
        }
    }
}

/// Bit fields of the v3 FDE `sfda_func_info2` byte.
pub mod fde_info2 {
    /// Bits 0-4: the FDE type.
    pub const FDE_TYPE_MASK: u8 = 0x1f;
    /// Bits 5-7: unused.
    pub const UNUSED_MASK: u8 = 0xe0;

    /// The FDE type field, as stored.
    pub const fn fde_type(info2: u8) -> u8 {
        info2 & FDE_TYPE_MASK
    }
}

/// Bit fields of the FRE info byte (`sfre_info`).
pub mod fre_info {
    /// Bit 0: the CFA base register (0 FP, 1 SP).
    pub const BASE_REG_MASK: u8 = 0x01;
    /// Bits 1-4: the number of data words.
    pub const DATAWORD_COUNT_SHIFT: u32 = 1;
    pub const DATAWORD_COUNT_MASK: u8 = 0x0f;
    /// Bits 5-6: the size of each data word.
    pub const DATAWORD_SIZE_SHIFT: u32 = 5;
    pub const DATAWORD_SIZE_MASK: u8 = 0x03;
    /// Bit 7: the RA is mangled.
    pub const MANGLED_RA: u8 = 0x80;

    /// The CFA base register bit (0 FP, 1 SP).
    pub const fn base_reg(info: u8) -> u8 {
        info & BASE_REG_MASK
    }
    /// The mangled-RA bit.
    pub const fn mangled_ra(info: u8) -> bool {
        info & MANGLED_RA != 0
    }
    /// The number of data words.
    pub const fn dataword_count(info: u8) -> u8 {
        (info >> DATAWORD_COUNT_SHIFT) & DATAWORD_COUNT_MASK
    }
    /// The data-word size field, as stored.
    pub const fn dataword_size(info: u8) -> u8 {
        (info >> DATAWORD_SIZE_SHIFT) & DATAWORD_SIZE_MASK
    }
}

/// The FDE info byte of a function with these fields in a section of `version` (the signal
/// bit only in v3), with the `reserved` unused bits in place.
pub fn encode_fde_info(
    version: Version,
    fre_type: FreType,
    pc_type: PcType,
    pauth_key: PauthKey,
    signal: bool,
    reserved: u8,
) -> u8 {
    let signal = if version == Version::V3 && signal {
        fde_info::SIGNAL
    } else {
        0
    };
    signal
        | reserved
        | ((pauth_key as u8) << fde_info::PAUTH_KEY_SHIFT)
        | ((pc_type as u8) << fde_info::PC_TYPE_SHIFT)
        | (fre_type as u8)
}

/// The v3 FDE info2 byte.
pub fn encode_fde_info2(fde_type: FdeType, reserved: u8) -> u8 {
    reserved | fde_type as u8
}

/// The FRE info byte. `count` is the number of data words (at most 15 fit).
pub fn encode_fre_info(
    base_reg: BaseReg,
    count: usize,
    size: DataWordSize,
    mangled_ra: bool,
) -> u8 {
    (if mangled_ra { fre_info::MANGLED_RA } else { 0 })
        | ((size as u8) << fre_info::DATAWORD_SIZE_SHIFT)
        | ((count as u8) << fre_info::DATAWORD_COUNT_SHIFT)
        | (base_reg as u8)
}

impl Function {
    /// Its FDE info byte in a section of `version`.
    pub fn info_byte(&self, version: Version) -> u8 {
        encode_fde_info(
            version,
            self.fre_type,
            self.pc_type,
            self.pauth_key,
            self.signal,
            self.reserved.info,
        )
    }
    /// Its v3 info2 byte.
    pub fn info2_byte(&self) -> u8 {
        encode_fde_info2(self.fde_type, self.reserved.info2)
    }
}

impl Fre {
    /// Its info byte.
    pub fn info_byte(&self) -> u8 {
        encode_fre_info(
            self.base_reg,
            self.datawords.len(),
            self.dataword_size,
            self.mangled_ra,
        )
    }
}

/// A lenient view of the header fields of bytes that may be no valid section (havoc,
/// signature tags): each field as stored where its bytes are there, in the byte order the
/// first byte of the magic names (0xe2 little-endian, anything else big-endian).
#[derive(Debug, Clone, Copy)]
pub struct RawHeader<'a> {
    data: &'a [u8],
    endian: Endian,
}

impl<'a> RawHeader<'a> {
    pub fn of(data: &'a [u8]) -> RawHeader<'a> {
        let endian = if data.first() == Some(&0xe2) {
            Endian::Little
        } else {
            Endian::Big
        };
        RawHeader { data, endian }
    }
    /// The byte order of the first magic byte.
    pub fn endian(&self) -> Endian {
        self.endian
    }
    /// The byte at `offset`.
    pub fn byte(&self, offset: usize) -> Option<u8> {
        self.data.get(offset).copied()
    }
    /// The four-byte word at `offset`.
    pub fn word(&self, offset: usize) -> Option<u32> {
        self.endian.read_u32(self.data, offset)
    }
    /// The version byte.
    pub fn version_byte(&self) -> Option<u8> {
        self.byte(header::VERSION)
    }
    /// The version, when the byte names one.
    pub fn version(&self) -> Option<Version> {
        self.version_byte().and_then(Version::from_u8)
    }
    pub fn flags(&self) -> Option<u8> {
        self.byte(header::FLAGS)
    }
    pub fn abi_byte(&self) -> Option<u8> {
        self.byte(header::ABI_ARCH)
    }
    pub fn auxhdr_len(&self) -> Option<u8> {
        self.byte(header::AUXHDR_LEN)
    }
    pub fn num_fdes(&self) -> Option<u32> {
        self.word(header::NUM_FDES)
    }
    pub fn fdeoff(&self) -> Option<u32> {
        self.word(header::FDEOFF)
    }
    pub fn freoff(&self) -> Option<u32> {
        self.word(header::FREOFF)
    }
    /// Where the FDE sub-section would start with `sfh_fdeoff` 0: after the header and the
    /// auxiliary header (taken as empty where its length byte is missing).
    pub fn header_size(&self) -> usize {
        HEADER_SIZE + usize::from(self.auxhdr_len().unwrap_or(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fde_sizes_are_the_constants() {
        for v in Version::ALL {
            assert_eq!(FdeLayout::of(v).size_of, v.fde_entry_size());
        }
    }

    #[test]
    fn info_bytes_round_trip_through_the_fields() {
        let info = encode_fde_info(
            Version::V3,
            FreType::Addr2,
            PcType::Mask,
            PauthKey::B,
            true,
            0,
        );
        assert_eq!(fde_info::fre_type(info), FreType::Addr2 as u8);
        assert_eq!(fde_info::pc_type(info), 1);
        assert_eq!(fde_info::pauth_key(info), 1);
        assert_eq!(info & fde_info::SIGNAL, fde_info::SIGNAL);
        let fre = encode_fre_info(BaseReg::Sp, 3, DataWordSize::B2, true);
        assert_eq!(fre_info::dataword_count(fre), 3);
        assert_eq!(fre_info::dataword_size(fre), DataWordSize::B2 as u8);
        assert_eq!(fre & fre_info::BASE_REG_MASK, 1);
        assert_eq!(fre & fre_info::MANGLED_RA, fre_info::MANGLED_RA);
    }

    #[test]
    fn raw_header_reads_what_is_there() {
        let h = RawHeader::of(&[0xe2, 0xde, 2, 5]);
        assert_eq!(h.version(), Some(Version::V2));
        assert_eq!(h.flags(), Some(5));
        assert_eq!(h.abi_byte(), None);
        assert_eq!(h.num_fdes(), None);
        assert_eq!(h.header_size(), HEADER_SIZE);
    }
}
