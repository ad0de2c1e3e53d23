//! The field part of a `diff` signature: a compared field, with the look-up context.

use super::{named, ParseError};
use std::fmt;
use std::str::FromStr;

named! {
    /// The fields the comparison reports (`sframe_harness::diff::compare`): decoded sections
    /// (`header.*`, `function.*`, `fre.*`) and look-ups (`missing`, `extra`,
    /// `function_start`, `fre_start`, `row.*`).
    pub enum FieldPath {
        HeaderVersion = "header.version",
        HeaderFlags = "header.flags",
        HeaderAbi = "header.abi",
        HeaderCfaFixedFpOffset = "header.cfa_fixed_fp_offset",
        HeaderCfaFixedRaOffset = "header.cfa_fixed_ra_offset",
        HeaderNumFdes = "header.num_fdes",
        HeaderNumFres = "header.num_fres",
        FunctionCount = "function.count",
        FunctionStart = "function.start",
        FunctionSize = "function.size",
        FunctionFreType = "function.fre_type",
        FunctionPcType = "function.pc_type",
        FunctionFdeType = "function.fde_type",
        FunctionRepSize = "function.rep_size",
        FunctionNumFres = "function.num_fres",
        FunctionError = "function.error",
        FreCount = "fre.count",
        FreStart = "fre.start",
        FreCfa = "fre.cfa",
        FreRa = "fre.ra",
        FreFp = "fre.fp",
        FreRaMangled = "fre.ra_mangled",
        /// A look-up finds no row where the reference finds one.
        Missing = "missing",
        /// A look-up finds a row where the reference finds none.
        Extra = "extra",
        FoundFunctionStart = "function_start",
        FoundFreStart = "fre_start",
        RowCfa = "row.cfa",
        RowRa = "row.ra",
        RowFp = "row.fp",
        RowRaMangled = "row.ra_mangled",
    }
}

/// Which row a [`FieldPath`] of a row belongs to: a decoded FRE's or a look-up's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowOf {
    Fre,
    Found,
}

/// A row's fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowField {
    Cfa,
    Ra,
    Fp,
    RaMangled,
}

impl FieldPath {
    /// The path of one field of a row.
    pub fn row(of: RowOf, field: RowField) -> FieldPath {
        use FieldPath::*;
        match (of, field) {
            (RowOf::Fre, RowField::Cfa) => FreCfa,
            (RowOf::Fre, RowField::Ra) => FreRa,
            (RowOf::Fre, RowField::Fp) => FreFp,
            (RowOf::Fre, RowField::RaMangled) => FreRaMangled,
            (RowOf::Found, RowField::Cfa) => RowCfa,
            (RowOf::Found, RowField::Ra) => RowRa,
            (RowOf::Found, RowField::Fp) => RowFp,
            (RowOf::Found, RowField::RaMangled) => RowRaMangled,
        }
    }
}

/// A compared field with the look-up context it was seen in, printed as
/// `[overlap.][far.][wide.][mask.]<path>[.unsorted]`:
/// - `overlap.`: the PC is inside overlapping functions (which FDE is "the" FDE is open);
/// - `far.`: the PC does not fit 32 bits, or a 32-bit distance would put it inside a
///   function it is not in;
/// - `wide.`: the function has AArch64 FREs of more than three data words;
/// - `mask.`: the function is a PC-mask one;
/// - `.unsorted` (on `missing` only): the header lacks `SFRAME_F_FDE_SORTED`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Field {
    pub overlap: bool,
    pub far: bool,
    pub wide: bool,
    pub mask: bool,
    pub path: FieldPath,
    pub unsorted: bool,
}

impl Field {
    /// A field without look-up context (every decode field).
    pub fn plain(path: FieldPath) -> Field {
        Field {
            overlap: false,
            far: false,
            wide: false,
            mask: false,
            path,
            unsorted: false,
        }
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (on, prefix) in [
            (self.overlap, "overlap."),
            (self.far, "far."),
            (self.wide, "wide."),
            (self.mask, "mask."),
        ] {
            if on {
                f.write_str(prefix)?;
            }
        }
        f.write_str(self.path.name())?;
        if self.unsorted {
            f.write_str(".unsorted")?;
        }
        Ok(())
    }
}

impl FromStr for Field {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Field, ParseError> {
        let bad = || ParseError::UnknownField(s.to_string());
        let mut rest = s;
        let mut take = |prefix: &str| match rest.strip_prefix(prefix) {
            Some(r) => {
                rest = r;
                true
            }
            None => false,
        };
        let overlap = take("overlap.");
        let far = take("far.");
        let wide = take("wide.");
        let mask = take("mask.");
        let (path, unsorted) = match rest.strip_suffix(".unsorted") {
            Some("missing") => (FieldPath::Missing, true),
            Some(_) => return Err(bad()),
            None => (FieldPath::from_name(rest).ok_or_else(bad)?, false),
        };
        Ok(Field {
            overlap,
            far,
            wide,
            mask,
            path,
            unsorted,
        })
    }
}
