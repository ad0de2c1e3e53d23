//! Every constant of the format, with the versions it belongs to.
//!
//! Values come from the manuals' tables (file and section named on each item) and, where
//! the manuals only name a macro, from `sframe.h`. The v2/v3 s390x helper values are the
//! `sframe.h` macros listed in the v3 manual §1.3 ("Changes from Version 1 to Version 2",
//! Errata 1); the constants cross-check against each release's header is in the corpus tests.

use crate::stored::TypeCode;
use core::fmt;

/// `SFRAME_MAGIC` (v3 manual §2.1).
pub const MAGIC: u16 = 0xdee2;

/// Size of `sframe_preamble` (v3 manual §2.1: "a 32-bit packed structure").
pub const PREAMBLE_SIZE: usize = 4;
/// Size of `sframe_header` without the auxiliary header (v3 manual §2.2 table: last field at 0x18, 4 bytes).
pub const HEADER_SIZE: usize = 28;
/// `sframe_func_desc_entry` in v1: 4+4+4+4+1, packed (v1 texi "SFrame FDE"; sframe-v1.h).
pub const FDE_V1_SIZE: usize = 17;
/// `sframe_func_desc_entry` in v2: 20 bytes (v2 info §1.2 "fixed size of 20 bytes").
pub const FDE_V2_SIZE: usize = 20;
/// `sframe_func_desc_idx` in v3: int64 + uint32 + uint32 (v3 manual §2.3.1).
pub const FDE_INDEX_V3_SIZE: usize = 16;
/// `sframe_func_desc_attr` in v3: uint16 + 3 x uint8, packed (v3 manual §2.3.2).
pub const FDE_ATTR_V3_SIZE: usize = 5;
/// Largest data-word count the 4-bit field holds (v3 manual §2.4.1).
pub const MAX_DATAWORD_COUNT: u8 = 15;

/// `SFRAME_CFA_FIXED_FP_INVALID` and `SFRAME_CFA_FIXED_RA_INVALID` (sframe-v1.h): the header's
/// fixed offset is not used and FREs track the value instead.
pub const CFA_FIXED_OFFSET_INVALID: i8 = 0;

/// `SFRAME_FRE_RA_OFFSET_INVALID` (v3 manual §1.3, Errata 1; §3.1.3): on s390x a padding RA
/// offset meaning "RA not saved"; in v3 flex FDEs the padding control word (§3.2, Appendix A).
pub const FRE_RA_OFFSET_INVALID: i64 = 0;

/// `SFRAME_S390X_SP_VAL_OFFSET`: SP = CFA + (-160) on s390x (v3 manual §3.1.3).
pub const S390X_SP_VAL_OFFSET: i64 = -160;
/// `SFRAME_S390X_CFA_OFFSET_ADJUSTMENT` (= `SFRAME_S390X_SP_VAL_OFFSET` in sframe.h):
/// "CFA = BASE_REG + offset1 - SFRAME_S390X_CFA_OFFSET_ADJUSTMENT" (v3 manual §3.1.3).
pub const S390X_CFA_OFFSET_ADJUSTMENT: i64 = -160;
/// `SFRAME_S390X_CFA_OFFSET_ALIGNMENT_FACTOR` (v3 manual §1.3, §3.1.3).
pub const S390X_CFA_OFFSET_ALIGNMENT_FACTOR: i64 = 8;

/// `SFRAME_V2_S390X_CFA_OFFSET_DECODE`: scale up, then revert the adjustment (v3 manual §1.3).
pub fn s390x_cfa_offset_decode(stored: i64) -> i64 {
    stored
        .saturating_mul(S390X_CFA_OFFSET_ALIGNMENT_FACTOR)
        .saturating_sub(S390X_CFA_OFFSET_ADJUSTMENT)
}

/// `SFRAME_V2_S390X_CFA_OFFSET_ENCODE`: apply the adjustment, then scale down; `None` when the
/// offset is not a multiple of the alignment factor after adjustment.
pub fn s390x_cfa_offset_encode(cfa_offset: i64) -> Option<i64> {
    let adjusted = cfa_offset.checked_add(S390X_CFA_OFFSET_ADJUSTMENT)?;
    (adjusted % S390X_CFA_OFFSET_ALIGNMENT_FACTOR == 0)
        .then_some(adjusted / S390X_CFA_OFFSET_ALIGNMENT_FACTOR)
}

/// `SFRAME_V2_S390X_OFFSET_IS_REGNUM`: an FP/RA offset with its low bit set encodes a DWARF
/// register number (v2 with Errata 1, s390x only; replaced by flex FDEs in v3, §1.2).
pub fn s390x_v2_offset_is_regnum(offset: i64) -> bool {
    offset & 1 == 1
}
/// `SFRAME_V2_S390X_OFFSET_DECODE_REGNUM`.
pub fn s390x_v2_offset_decode_regnum(offset: i64) -> i64 {
    offset >> 1
}
/// `SFRAME_V2_S390X_OFFSET_ENCODE_REGNUM`.
pub fn s390x_v2_offset_encode_regnum(regnum: i64) -> i64 {
    (regnum << 1) | 1
}

/// An SFrame format version (`sfp_version`, v3 manual §2.1.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Version {
    V1 = 1,
    V2 = 2,
    V3 = 3,
}

impl Version {
    pub const ALL: [Version; 3] = [Version::V1, Version::V2, Version::V3];

    pub fn from_u8(v: u8) -> Option<Version> {
        match v {
            1 => Some(Version::V1),
            2 => Some(Version::V2),
            3 => Some(Version::V3),
            _ => None,
        }
    }

    pub fn number(self) -> u8 {
        self as u8
    }

    /// Size of one entry of the FDE sub-section.
    pub fn fde_entry_size(self) -> usize {
        match self {
            Version::V1 => FDE_V1_SIZE,
            Version::V2 => FDE_V2_SIZE,
            Version::V3 => FDE_INDEX_V3_SIZE,
        }
    }

    /// Flags defined for this version (v3 manual §2.1.3 table "Version" column; v1 texi and
    /// v2 info "SFrame flags" list only 0x1 and 0x2; 0x4 is v2 Errata 1).
    pub fn defined_flags(self) -> u8 {
        match self {
            Version::V1 => flags::FDE_SORTED | flags::FRAME_POINTER,
            Version::V2 => flags::FDE_SORTED | flags::FRAME_POINTER | flags::FDE_FUNC_START_PCREL,
            Version::V3 => flags::FDE_SORTED | flags::FDE_FUNC_START_PCREL,
        }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}", self.number())
    }
}

/// Section-wide flags (`sfp_flags`, v3 manual §2.1.3).
pub mod flags {
    /// `SFRAME_F_FDE_SORTED`: all versions.
    pub const FDE_SORTED: u8 = 0x1;
    /// `SFRAME_F_FRAME_POINTER`: versions 1-2 only.
    pub const FRAME_POINTER: u8 = 0x2;
    /// `SFRAME_F_FDE_FUNC_START_PCREL`: versions 2 (Errata 1) and 3.
    pub const FDE_FUNC_START_PCREL: u8 = 0x4;
}

/// The ABI/arch identifier (`sfh_abi_arch`, v3 manual §2.2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Abi {
    /// `SFRAME_ABI_AARCH64_ENDIAN_BIG` = 1.
    Aarch64Be = 1,
    /// `SFRAME_ABI_AARCH64_ENDIAN_LITTLE` = 2.
    Aarch64Le = 2,
    /// `SFRAME_ABI_AMD64_ENDIAN_LITTLE` = 3.
    Amd64 = 3,
    /// `SFRAME_ABI_S390X_ENDIAN_BIG` = 4 (v2 Errata 1 and v3).
    S390x = 4,
}

impl Abi {
    pub const ALL: [Abi; 4] = [Abi::Aarch64Be, Abi::Aarch64Le, Abi::Amd64, Abi::S390x];

    pub fn from_u8(v: u8) -> Option<Abi> {
        match v {
            1 => Some(Abi::Aarch64Be),
            2 => Some(Abi::Aarch64Le),
            3 => Some(Abi::Amd64),
            4 => Some(Abi::S390x),
            _ => None,
        }
    }

    pub fn id(self) -> u8 {
        self as u8
    }

    /// Whether the identifier is defined in `version`'s text (s390x arrives with v2 Errata 1).
    pub fn defined_in(self, version: Version) -> bool {
        !(self == Abi::S390x && version == Version::V1)
    }

    /// The byte order the identifier names.
    pub fn endian(self) -> crate::Endian {
        match self {
            Abi::Aarch64Le | Abi::Amd64 => crate::Endian::Little,
            Abi::Aarch64Be | Abi::S390x => crate::Endian::Big,
        }
    }

    pub fn is_aarch64(self) -> bool {
        matches!(self, Abi::Aarch64Be | Abi::Aarch64Le)
    }

    /// Short stable name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Abi::Aarch64Be => "aarch64-be",
            Abi::Aarch64Le => "aarch64",
            Abi::Amd64 => "amd64",
            Abi::S390x => "s390x",
        }
    }

    pub fn from_name(s: &str) -> Option<Abi> {
        Abi::ALL.into_iter().find(|a| a.name() == s)
    }

    /// DWARF register numbers of this ABI's stack pointer, frame pointer and return-address
    /// register (psABIs: AMD64 rsp=7 rbp=6 rip=16; AArch64 sp=31 x29=29 x30=30;
    /// s390x r15=15 r11=11 r14=14).
    pub fn regs(self) -> AbiRegs {
        match self {
            Abi::Amd64 => AbiRegs {
                sp: 7,
                fp: 6,
                ra: 16,
            },
            Abi::Aarch64Be | Abi::Aarch64Le => AbiRegs {
                sp: 31,
                fp: 29,
                ra: 30,
            },
            Abi::S390x => AbiRegs {
                sp: 15,
                fp: 11,
                ra: 14,
            },
        }
    }

    /// Value the unwinder adds to the CFA to get the caller's SP
    /// (v3 manual Appendix A: "`+ SFRAME_S390X_SP_VAL_OFFSET` on s390x").
    pub fn sp_from_cfa(self) -> i64 {
        match self {
            Abi::S390x => S390X_SP_VAL_OFFSET,
            _ => 0,
        }
    }
}

impl fmt::Display for Abi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// DWARF numbers of the registers the default FDE type talks about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AbiRegs {
    pub sp: u16,
    pub fp: u16,
    pub ra: u16,
}

/// FRE type: width of `sfre_start_address` (v3 manual §2.3.3.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum FreType {
    /// `SFRAME_FRE_TYPE_ADDR1` = 0: unsigned 8-bit start address.
    Addr1 = 0,
    /// `SFRAME_FRE_TYPE_ADDR2` = 1: unsigned 16-bit start address.
    Addr2 = 1,
    /// `SFRAME_FRE_TYPE_ADDR4` = 2: unsigned 32-bit start address.
    Addr4 = 2,
}

impl TypeCode for FreType {
    fn from_code(v: u8) -> Option<FreType> {
        FreType::from_u8(v)
    }
    fn code(self) -> u8 {
        self as u8
    }
}

impl FreType {
    pub const ALL: [FreType; 3] = [FreType::Addr1, FreType::Addr2, FreType::Addr4];

    pub fn from_u8(v: u8) -> Option<FreType> {
        match v {
            0 => Some(FreType::Addr1),
            1 => Some(FreType::Addr2),
            2 => Some(FreType::Addr4),
            _ => None,
        }
    }
    /// Width in bytes of the start address field.
    pub fn addr_size(self) -> usize {
        match self {
            FreType::Addr1 => 1,
            FreType::Addr2 => 2,
            FreType::Addr4 => 4,
        }
    }
    /// The exclusive upper limit of a start address of this type (0x100, 0x10000, 0x1_0000_0000),
    /// as the comments of `SFRAME_FRE_TYPE_ADDR*_LIMIT` in sframe-v1.h say (the macros' values
    /// do not: see the discrepancy list).
    pub fn limit(self) -> u64 {
        1u64 << (8 * self.addr_size())
    }
    /// The narrowest type that holds `start`.
    pub fn for_start(start: u32) -> FreType {
        if start < 0x100 {
            FreType::Addr1
        } else if start < 0x1_0000 {
            FreType::Addr2
        } else {
            FreType::Addr4
        }
    }
}

/// FDE PC type (v3 manual §2.3.3.1; called "FDE type" PCINC/PCMASK in v1 and v2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum PcType {
    /// `SFRAME_FDE_PCTYPE_INC` / `SFRAME_FDE_TYPE_PCINC` = 0.
    Inc = 0,
    /// `SFRAME_FDE_PCTYPE_MASK` / `SFRAME_FDE_TYPE_PCMASK` = 1.
    Mask = 1,
}

impl TypeCode for PcType {
    fn from_code(v: u8) -> Option<PcType> {
        PcType::from_u8(v)
    }
    fn code(self) -> u8 {
        self as u8
    }
}

impl PcType {
    pub fn from_u8(v: u8) -> Option<PcType> {
        match v {
            0 => Some(PcType::Inc),
            1 => Some(PcType::Mask),
            _ => None,
        }
    }
}

/// FDE type, the low 5 bits of `sfda_func_info2` (v3 manual §2.3.3.2). Versions 1 and 2 have
/// only the default interpretation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum FdeType {
    /// `SFRAME_FDE_TYPE_DEFAULT` = 0.
    Default = 0,
    /// `SFRAME_FDE_TYPE_FLEX` = 1.
    Flex = 1,
}

impl TypeCode for FdeType {
    fn from_code(v: u8) -> Option<FdeType> {
        FdeType::from_u8(v)
    }
    fn code(self) -> u8 {
        self as u8
    }
}

impl FdeType {
    pub fn from_u8(v: u8) -> Option<FdeType> {
        match v {
            0 => Some(FdeType::Default),
            1 => Some(FdeType::Flex),
            _ => None,
        }
    }
}

/// Data-word size, `fre_dataword_size` (`fre_offset_size` in v1/v2), v3 manual §2.4.1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum DataWordSize {
    /// `SFRAME_FRE_DATAWORD_1B` / `SFRAME_FRE_OFFSET_1B` = 0.
    B1 = 0,
    /// `SFRAME_FRE_DATAWORD_2B` / `SFRAME_FRE_OFFSET_2B` = 1.
    B2 = 1,
    /// `SFRAME_FRE_DATAWORD_4B` / `SFRAME_FRE_OFFSET_4B` = 2.
    B4 = 2,
}

impl DataWordSize {
    pub const ALL: [DataWordSize; 3] = [DataWordSize::B1, DataWordSize::B2, DataWordSize::B4];

    pub fn from_u8(v: u8) -> Option<DataWordSize> {
        match v {
            0 => Some(DataWordSize::B1),
            1 => Some(DataWordSize::B2),
            2 => Some(DataWordSize::B4),
            _ => None,
        }
    }
    pub fn bytes(self) -> usize {
        match self {
            DataWordSize::B1 => 1,
            DataWordSize::B2 => 2,
            DataWordSize::B4 => 4,
        }
    }
    /// Whether the signed value fits a data word of this size.
    pub fn fits_signed(self, v: i64) -> bool {
        match self {
            DataWordSize::B1 => i8::try_from(v).is_ok(),
            DataWordSize::B2 => i16::try_from(v).is_ok(),
            DataWordSize::B4 => i32::try_from(v).is_ok(),
        }
    }
    /// The narrowest size whose signed range holds every value.
    pub fn for_values(vals: &[i32]) -> DataWordSize {
        DataWordSize::ALL
            .into_iter()
            .find(|s| vals.iter().all(|&v| s.fits_signed(i64::from(v))))
            .unwrap_or(DataWordSize::B4)
    }
}

/// CFA base register, `fre_cfa_base_reg_id` (v3 manual §2.4.1; `SFRAME_BASE_REG_FP` = 0,
/// `SFRAME_BASE_REG_SP` = 1 in sframe-v1.h).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum BaseReg {
    Fp = 0,
    Sp = 1,
}

/// AArch64 pointer-authentication key (`SFRAME_AARCH64_PAUTH_KEY_A` = 0, `_B` = 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum PauthKey {
    A = 0,
    B = 1,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s390x_cfa_offset_helpers_follow_the_manual() {
        // v3 manual §3.1.3: CFA = BASE_REG + (offset1 * 8) - (-160).
        assert_eq!(s390x_cfa_offset_decode(0), 160);
        assert_eq!(s390x_cfa_offset_decode(20), 320);
        assert_eq!(s390x_cfa_offset_encode(320), Some(20));
        assert_eq!(s390x_cfa_offset_encode(161), None);
    }

    #[test]
    fn s390x_regnum_encoding_round_trips() {
        for r in 0..32 {
            let o = s390x_v2_offset_encode_regnum(r);
            assert!(s390x_v2_offset_is_regnum(o));
            assert_eq!(s390x_v2_offset_decode_regnum(o), r);
        }
        assert!(!s390x_v2_offset_is_regnum(-16));
    }

    #[test]
    fn flags_per_version_follow_the_v3_table() {
        // v3 manual §2.1.3: FRAME_POINTER "1-2", FDE_FUNC_START_PCREL "2-3".
        assert_eq!(Version::V1.defined_flags(), 0x3);
        assert_eq!(Version::V2.defined_flags(), 0x7);
        assert_eq!(Version::V3.defined_flags(), 0x5);
    }

    #[test]
    fn fre_type_limits() {
        assert_eq!(FreType::Addr1.limit(), 0x100);
        assert_eq!(FreType::Addr2.limit(), 0x1_0000);
        assert_eq!(FreType::Addr4.limit(), 0x1_0000_0000);
        assert_eq!(FreType::for_start(255), FreType::Addr1);
        assert_eq!(FreType::for_start(256), FreType::Addr2);
        assert_eq!(FreType::for_start(65536), FreType::Addr4);
    }
}

/// Versions serialize as their number, ABIs as their short name.
#[cfg(feature = "serde")]
mod serde_impls {
    use super::{Abi, Version};
    use serde::{de::Error, Deserialize, Deserializer, Serialize, Serializer};

    impl Serialize for Version {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_u8(self.number())
        }
    }
    impl<'de> Deserialize<'de> for Version {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let v = u8::deserialize(d)?;
            Version::from_u8(v)
                .ok_or_else(|| D::Error::custom(format!("unknown SFrame version {v}")))
        }
    }
    impl Serialize for Abi {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_str(self.name())
        }
    }
    impl<'de> Deserialize<'de> for Abi {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let v = String::deserialize(d)?;
            Abi::from_name(&v).ok_or_else(|| D::Error::custom(format!("unknown ABI {v:?}")))
        }
    }
}
