//! Where each field of an encoded section lies, computed from the model alone with the
//! field offsets of [`sframe_spec::layout`], so that byte-level mutations do not depend on
//! the reader under test.

use sframe_spec::constants::HEADER_SIZE;
use sframe_spec::layout::{self as spec, FdeAttrLayout, FdeLayout};
use sframe_spec::{Section, Version};

/// Byte offsets of an encoded section whose functions all have `fre_offset` set (as
/// [`Generated::section`](crate::Generated) has).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    pub version: Version,
    /// Header plus auxiliary header: where the FDE sub-section starts.
    pub header_size: usize,
    /// Absolute offset of the FRE sub-section.
    pub fre_start: usize,
    /// `sfh_fre_len`.
    pub fre_len: usize,
    pub functions: Vec<FunctionLayout>,
}

/// Offsets of one function's FDE fields and data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionLayout {
    /// The FDE (v3: FDE index entry).
    pub fde: usize,
    /// `sfde_func_start_fre_off` / `sfdi_func_start_fre_off`.
    pub fre_off_field: usize,
    /// `sfde_func_size` / `sfdi_func_size`.
    pub size_field: usize,
    /// The info byte (v1/v2 in the FDE, v3 in the FDE attribute).
    pub info: usize,
    /// v3 `sfda_func_info2`.
    pub info2: Option<usize>,
    /// `[start, end)` of the function's data: v3 attribute and FREs, v1/v2 FREs.
    pub block: (usize, usize),
    pub fres: Vec<FreLayout>,
}

/// Offsets of one FRE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FreLayout {
    pub start: usize,
    pub info: usize,
    pub end: usize,
}

impl Layout {
    /// The layout of `s` as [`sframe_spec::encode`] writes it. Functions without an
    /// explicit `fre_offset` are laid out densely in FDE order.
    pub fn of(s: &Section) -> Layout {
        let v = s.version;
        let fields = FdeLayout::of(v);
        let header_size = HEADER_SIZE + s.aux_header.len();
        let entry = fields.size_of;
        let fre_start = header_size + entry * s.functions.len();
        let explicit =
            !s.functions.is_empty() && s.functions.iter().all(|f| f.fre_offset.is_some());
        let mut dense = 0usize;
        let mut fre_len = 0usize;
        let mut functions = Vec::with_capacity(s.functions.len());
        for (i, f) in s.functions.iter().enumerate() {
            let fde = header_size + i * entry;
            let rel = if explicit {
                f.fre_offset.unwrap_or_default() as usize
            } else {
                dense
            };
            let block_start = fre_start + rel;
            let mut pos = block_start;
            let info = spec::info_offset(v, fde, block_start);
            let info2 = match v {
                Version::V3 => {
                    pos += FdeAttrLayout::SIZE;
                    Some(block_start + FdeAttrLayout::INFO2.offset)
                }
                _ => None,
            };
            let mut fres = Vec::with_capacity(f.fres.len());
            for r in &f.fres {
                let end =
                    pos + spec::FreLayout::size_of(f.fre_type, r.datawords.len(), r.dataword_size);
                fres.push(FreLayout {
                    start: pos,
                    info: pos + spec::FreLayout::info(f.fre_type).offset,
                    end,
                });
                pos = end;
            }
            let (fre_off_field, size_field) =
                (fde + fields.fre_off.offset, fde + fields.size.offset);
            dense = pos - fre_start;
            fre_len = fre_len.max(pos - fre_start);
            functions.push(FunctionLayout {
                fde,
                fre_off_field,
                size_field,
                info,
                info2,
                block: (block_start, pos),
                fres,
            });
        }
        Layout {
            version: v,
            header_size,
            fre_start,
            fre_len,
            functions,
        }
    }

    /// Dense offsets of each function's data from the start of the FRE sub-section.
    pub fn fre_offsets(&self) -> Vec<u32> {
        self.functions
            .iter()
            .map(|f| (f.block.0 - self.fre_start) as u32)
            .collect()
    }

    /// Total length of the encoded section.
    pub fn len(&self) -> usize {
        self.fre_start + self.fre_len
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `sfde_func_num_fres` (v1/v2, 4 bytes in the FDE) or `sfda_func_num_fres` (v3, 2 bytes
    /// in the attribute): offset and width.
    pub fn num_fres_field(&self, i: usize) -> (usize, usize) {
        let f = &self.functions[i];
        match FdeLayout::of(self.version).num_fres {
            Some(field) => (f.fde + field.offset, field.width),
            None => (
                f.block.0 + FdeAttrLayout::NUM_FRES.offset,
                FdeAttrLayout::NUM_FRES.width,
            ),
        }
    }
}
