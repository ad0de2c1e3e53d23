//! Builders for the answer types, so that an adapter says what its parser reports and
//! nothing else: every field left out is `None` and not compared.
//!
//! ```
//! use sframe_harness::prelude::*;
//!
//! let header = HeaderFacts::new(2, 3).flags(0x1).counts(1, 2);
//! let f = FunctionFacts::new(0x40, 16).fre_type(0u8).pc_type(0u8).fre_starts([0, 4]);
//! let decoded = Decoded::new(header, [f]);
//! assert_eq!(decoded.functions[0].num_fres, Some(2));
//! let found = Found::at(0x40, 4);
//! assert_eq!(found.fre_start, Some(4));
//! ```

use super::{Decoded, Found, FreFacts, FunctionFacts, HeaderFacts, Row};
use sframe_spec::{FreType, PcType, Stored};

impl HeaderFacts {
    /// A header of format version `version` and ABI identifier `abi`.
    pub fn new(version: u8, abi: u8) -> HeaderFacts {
        HeaderFacts {
            version: Some(version),
            abi: Some(abi),
            ..HeaderFacts::default()
        }
    }
    /// `sfp_flags`.
    pub fn flags(mut self, flags: u8) -> HeaderFacts {
        self.flags = Some(flags);
        self
    }
    /// `sfh_cfa_fixed_fp_offset` and `sfh_cfa_fixed_ra_offset`.
    pub fn fixed_offsets(mut self, fp: i8, ra: i8) -> HeaderFacts {
        self.cfa_fixed_fp_offset = Some(fp);
        self.cfa_fixed_ra_offset = Some(ra);
        self
    }
    /// `sfh_num_fdes` and `sfh_num_fres`.
    pub fn counts(mut self, fdes: u32, fres: u32) -> HeaderFacts {
        self.num_fdes = Some(fdes);
        self.num_fres = Some(fres);
        self
    }
}

impl FunctionFacts {
    /// A function starting at `start` (an offset from the section's start) of `size` bytes.
    pub fn new(start: i64, size: u32) -> FunctionFacts {
        FunctionFacts {
            start: Some(start),
            size: Some(size),
            ..FunctionFacts::default()
        }
    }
    /// The FRE type, typed or as its number.
    pub fn fre_type(mut self, t: impl Into<Stored<FreType>>) -> FunctionFacts {
        self.fre_type = Some(t.into());
        self
    }
    /// The PC type, typed or as its number.
    pub fn pc_type(mut self, t: impl Into<Stored<PcType>>) -> FunctionFacts {
        self.pc_type = Some(t.into());
        self
    }
    /// The repetition block size.
    pub fn rep_size(mut self, n: u8) -> FunctionFacts {
        self.rep_size = Some(n);
        self
    }
    /// Its rows, and their number.
    pub fn fres(mut self, fres: impl IntoIterator<Item = FreFacts>) -> FunctionFacts {
        self.fres = fres.into_iter().collect();
        self.num_fres = Some(self.fres.len() as u32);
        self
    }
    /// Its rows given by their start offsets only (their rules not reported).
    pub fn fre_starts(self, starts: impl IntoIterator<Item = u32>) -> FunctionFacts {
        self.fres(starts.into_iter().map(FreFacts::at))
    }
}

impl FreFacts {
    /// A row starting `start` bytes into its function (or repetition block).
    pub fn at(start: u32) -> FreFacts {
        FreFacts {
            start: Some(start),
            row: Row::default(),
        }
    }
    /// Its recovery rules.
    pub fn row(mut self, row: Row) -> FreFacts {
        self.row = row;
        self
    }
}

impl Decoded {
    /// A decoded section.
    pub fn new(header: HeaderFacts, functions: impl IntoIterator<Item = FunctionFacts>) -> Decoded {
        Decoded {
            header,
            functions: functions.into_iter().collect(),
        }
    }
}

impl Found {
    /// The row starting `fre_start` bytes into the function at `function_start`.
    pub fn at(function_start: i64, fre_start: u32) -> Found {
        Found {
            function_start: Some(function_start),
            fre_start: Some(fre_start),
            row: Row::default(),
        }
    }
    /// Its recovery rules.
    pub fn row(mut self, row: Row) -> Found {
        self.row = row;
        self
    }
}
