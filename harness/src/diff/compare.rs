//! Field-by-field comparison of two implementations' normalized answers.
//!
//! Only fields both sides report are compared (`None` = not reported). Each difference names
//! its field with a stable dotted path (`header.flags`, `function.start`, `fre.ra`, ...), the
//! function and FRE index where it was seen, and both values.

use crate::impls::{Decoded, Found, Row};
use serde::Serialize;
use std::fmt::Debug;

/// One differing field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldDiff {
    /// Stable field path, part of the signature.
    pub field: String,
    pub function: Option<usize>,
    pub fre: Option<usize>,
    /// The reference's value.
    pub expected: String,
    /// The implementation's value.
    pub found: String,
}

fn show<T: Debug>(v: &T) -> String {
    format!("{v:?}")
}

struct Acc {
    out: Vec<FieldDiff>,
}

impl Acc {
    fn opt<T: PartialEq + Debug>(
        &mut self,
        field: &str,
        f: Option<usize>,
        k: Option<usize>,
        a: &Option<T>,
        b: &Option<T>,
    ) {
        if let (Some(a), Some(b)) = (a, b) {
            if a != b {
                self.push(field, f, k, show(a), show(b));
            }
        }
    }
    fn push(
        &mut self,
        field: &str,
        function: Option<usize>,
        fre: Option<usize>,
        expected: String,
        found: String,
    ) {
        self.out.push(FieldDiff {
            field: field.to_string(),
            function,
            fre,
            expected,
            found,
        });
    }
    fn row(&mut self, prefix: &str, f: Option<usize>, k: Option<usize>, a: &Row, b: &Row) {
        self.opt(&format!("{prefix}.cfa"), f, k, &a.cfa, &b.cfa);
        self.opt(&format!("{prefix}.ra"), f, k, &a.ra, &b.ra);
        self.opt(&format!("{prefix}.fp"), f, k, &a.fp, &b.fp);
        self.opt(
            &format!("{prefix}.ra_mangled"),
            f,
            k,
            &a.ra_mangled,
            &b.ra_mangled,
        );
    }
}

/// Differences between the reference's decode `a` and an implementation's `b`.
pub fn decoded(a: &Decoded, b: &Decoded) -> Vec<FieldDiff> {
    let mut acc = Acc { out: Vec::new() };
    let (ha, hb) = (&a.header, &b.header);
    acc.opt("header.version", None, None, &ha.version, &hb.version);
    acc.opt("header.flags", None, None, &ha.flags, &hb.flags);
    acc.opt("header.abi", None, None, &ha.abi, &hb.abi);
    acc.opt(
        "header.cfa_fixed_fp_offset",
        None,
        None,
        &ha.cfa_fixed_fp_offset,
        &hb.cfa_fixed_fp_offset,
    );
    acc.opt(
        "header.cfa_fixed_ra_offset",
        None,
        None,
        &ha.cfa_fixed_ra_offset,
        &hb.cfa_fixed_ra_offset,
    );
    acc.opt("header.num_fdes", None, None, &ha.num_fdes, &hb.num_fdes);
    acc.opt("header.num_fres", None, None, &ha.num_fres, &hb.num_fres);
    if a.functions.len() != b.functions.len() {
        acc.push(
            "function.count",
            None,
            None,
            a.functions.len().to_string(),
            b.functions.len().to_string(),
        );
    }
    for (i, (fa, fb)) in a.functions.iter().zip(&b.functions).enumerate() {
        let f = Some(i);
        acc.opt("function.start", f, None, &fa.start, &fb.start);
        acc.opt("function.size", f, None, &fa.size, &fb.size);
        acc.opt("function.fre_type", f, None, &fa.fre_type, &fb.fre_type);
        acc.opt("function.pc_type", f, None, &fa.pc_type, &fb.pc_type);
        acc.opt("function.fde_type", f, None, &fa.fde_type, &fb.fde_type);
        acc.opt("function.rep_size", f, None, &fa.rep_size, &fb.rep_size);
        acc.opt("function.num_fres", f, None, &fa.num_fres, &fb.num_fres);
        if fa.error.is_none() {
            if let Some(e) = &fb.error {
                acc.push("function.error", f, None, "none".into(), e.clone());
            }
        }
        // Row lists are compared where both are complete; an implementation that stopped
        // with an error is reported above, not once more per missing row.
        if fb.error.is_none() && fa.error.is_none() && fa.fres.len() != fb.fres.len() {
            acc.push(
                "fre.count",
                f,
                None,
                fa.fres.len().to_string(),
                fb.fres.len().to_string(),
            );
        }
        for (k, (ra, rb)) in fa.fres.iter().zip(&fb.fres).enumerate() {
            acc.opt("fre.start", f, Some(k), &ra.start, &rb.start);
            acc.row("fre", f, Some(k), &ra.row, &rb.row);
        }
    }
    acc.out
}

/// Differences between the reference's row for a PC and an implementation's.
pub fn found(a: &Option<Found>, b: &Option<Found>) -> Vec<FieldDiff> {
    let mut acc = Acc { out: Vec::new() };
    match (a, b) {
        (None, None) => {}
        (Some(x), None) => acc.push("missing", None, None, show(x), "none".into()),
        (None, Some(y)) => acc.push("extra", None, None, "none".into(), show(y)),
        (Some(x), Some(y)) => {
            acc.opt(
                "function_start",
                None,
                None,
                &x.function_start,
                &y.function_start,
            );
            acc.opt("fre_start", None, None, &x.fre_start, &y.fre_start);
            acc.row("row", None, None, &x.row, &y.row);
        }
    }
    acc.out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::impls::{FreFacts, FunctionFacts};
    use sframe_spec::Loc;

    #[test]
    fn unreported_fields_are_not_compared() {
        let mut a = Decoded::default();
        a.header.flags = Some(1);
        a.functions.push(FunctionFacts {
            start: Some(0),
            size: Some(4),
            ..Default::default()
        });
        let mut b = a.clone();
        b.header.flags = None;
        b.functions[0].size = None;
        assert!(decoded(&a, &b).is_empty());
        b.functions[0].start = Some(4);
        let d = decoded(&a, &b);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].field, "function.start");
    }

    #[test]
    fn rows_compare_by_rule() {
        let mut a = Decoded::default();
        a.functions.push(FunctionFacts {
            fres: vec![FreFacts {
                start: Some(0),
                row: Row {
                    ra: Some(Loc::SameValue),
                    ..Row::default()
                },
            }],
            ..Default::default()
        });
        let mut b = a.clone();
        b.functions[0].fres[0].row.ra = Some(Loc::Undefined);
        assert_eq!(decoded(&a, &b)[0].field, "fre.ra");
        assert_eq!(found(&Some(Found::default()), &None)[0].field, "missing");
    }
}
