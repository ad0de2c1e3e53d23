//! The owned, normalized model of a section: what the reader produces, what the writer
//! encodes and what the generator builds.
//!
//! Function start addresses are held *resolved*, as an offset from the start of the section
//! (add the section's load address to get a virtual address), whatever the version and the
//! `SFRAME_F_FDE_FUNC_START_PCREL` flag say about the field's own encoding. Every bit that
//! the bytes carry is kept (reserved bits, v2 padding, FRE data layout), so that
//! `encode(decode(b)) == b` for every section without violations.

use crate::constants::*;
use crate::Endian;

/// A whole SFrame section.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Section {
    pub version: Version,
    pub endian: Endian,
    /// Raw `sfp_flags`.
    pub flags: u8,
    pub abi: Abi,
    pub cfa_fixed_fp_offset: i8,
    pub cfa_fixed_ra_offset: i8,
    /// The auxiliary header's bytes (`sfh_auxhdr_len` of them).
    pub aux_header: Vec<u8>,
    /// Functions in FDE order.
    pub functions: Vec<Function>,
}

/// One function: its FDE (v1/v2), or FDE index entry plus FDE attribute (v3), and its FREs.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Function {
    /// Start address as an offset from the start of the section (resolved).
    pub start: i64,
    pub size: u32,
    pub fre_type: FreType,
    pub pc_type: PcType,
    /// Always `Default` in v1 and v2.
    pub fde_type: FdeType,
    pub pauth_key: PauthKey,
    /// v3 `signal_p` (bit 7 of `sfda_func_info`); always false in v1 and v2.
    pub signal: bool,
    /// `sfde_func_rep_size` / `sfda_func_rep_size`; always 0 in v1.
    pub rep_size: u8,
    /// Bits of the FDE info byte(s) that the version leaves unused, in place.
    pub reserved: ReservedBits,
    /// Offset of this function's data from the start of the FRE sub-section
    /// (`sfde_func_start_fre_off`). `None` lets the writer lay functions out in order.
    pub fre_offset: Option<u32>,
    pub fres: Vec<Fre>,
}

/// Bits that the format leaves unused, kept so that re-encoding is exact.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ReservedBits {
    /// Unused bits of `sfde_func_info` / `sfda_func_info`, in their positions.
    pub info: u8,
    /// Unused bits (7-5) of v3 `sfda_func_info2`, in their positions.
    pub info2: u8,
    /// v2 `sfde_func_padding2`.
    pub padding: u16,
}

/// One frame row entry.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Fre {
    /// `sfre_start_address`: offset from the function's start (or within the repeated block).
    pub start: u32,
    pub base_reg: BaseReg,
    pub mangled_ra: bool,
    pub dataword_size: DataWordSize,
    /// Data words, sign-extended from `dataword_size` bytes. Flex control words are the same
    /// bits read unsigned: see [`Fre::control_word`].
    pub datawords: Vec<i32>,
}

impl Fre {
    /// Data word `i` read as an unsigned control word of this FRE's data-word size.
    pub fn control_word(&self, i: usize) -> Option<u32> {
        let v = *self.datawords.get(i)? as u32;
        Some(match self.dataword_size {
            DataWordSize::B1 => v & 0xff,
            DataWordSize::B2 => v & 0xffff,
            DataWordSize::B4 => v,
        })
    }
}

impl Section {
    /// An empty section with the conventional header values a GNU producer writes for `abi`
    /// (AMD64: RA at CFA-8, v3 manual §2.2; others track RA per FRE).
    pub fn new(version: Version, abi: Abi) -> Section {
        Section {
            version,
            endian: abi.endian(),
            flags: 0,
            abi,
            cfa_fixed_fp_offset: CFA_FIXED_OFFSET_INVALID,
            cfa_fixed_ra_offset: if abi == Abi::Amd64 {
                -8
            } else {
                CFA_FIXED_OFFSET_INVALID
            },
            aux_header: Vec::new(),
            functions: Vec::new(),
        }
    }

    pub fn num_fres(&self) -> usize {
        self.functions.iter().map(|f| f.fres.len()).sum()
    }

    pub fn is_sorted_flag(&self) -> bool {
        self.flags & flags::FDE_SORTED != 0
    }

    pub fn is_pcrel(&self) -> bool {
        self.flags & flags::FDE_FUNC_START_PCREL != 0
    }

    /// Forget the FRE layout, so that the writer lays functions out densely in FDE order.
    pub fn clear_layout(&mut self) {
        for f in &mut self.functions {
            f.fre_offset = None;
        }
    }
}

impl Function {
    /// A function of the default FDE type, PC-increment type, with the narrowest FRE type
    /// for `size`.
    pub fn new(start: i64, size: u32) -> Function {
        Function {
            start,
            size,
            fre_type: FreType::for_start(size.saturating_sub(1)),
            pc_type: PcType::Inc,
            fde_type: FdeType::Default,
            pauth_key: PauthKey::A,
            signal: false,
            rep_size: 0,
            reserved: ReservedBits::default(),
            fre_offset: None,
            fres: Vec::new(),
        }
    }
}

impl Section {
    /// Section-wide facts for interpreting rows.
    pub fn row_context(&self) -> crate::recovery::RowContext {
        crate::recovery::RowContext {
            version: self.version,
            abi: self.abi,
            cfa_fixed_fp_offset: self.cfa_fixed_fp_offset,
            cfa_fixed_ra_offset: self.cfa_fixed_ra_offset,
            quirks: crate::Quirks::NONE,
        }
    }

    /// The recovery rules of `fre`, an FRE of `function`, or the rule its data words break.
    pub fn recovery(&self, function: &Function, fre: &Fre) -> Result<crate::Recovery, crate::Rule> {
        self.recovery_with(function, fre, crate::Quirks::NONE)
    }

    /// [`Section::recovery`] as an implementation with `quirks` reads it.
    pub fn recovery_with(
        &self,
        function: &Function,
        fre: &Fre,
        quirks: crate::Quirks,
    ) -> Result<crate::Recovery, crate::Rule> {
        let mut words = [0i64; MAX_DATAWORD_COUNT as usize];
        let n = fre.datawords.len().min(words.len());
        for (w, &v) in words.iter_mut().zip(&fre.datawords) {
            *w = i64::from(v);
        }
        let row = crate::recovery::Row {
            fde_type: function.fde_type,
            base_reg: fre.base_reg,
            mangled_ra: fre.mangled_ra,
            dataword_size: fre.dataword_size,
            words: &words[..n],
        };
        let ctx = crate::recovery::RowContext {
            quirks,
            ..self.row_context()
        };
        crate::recovery::recovery_rules(&ctx, &row)
    }
}
