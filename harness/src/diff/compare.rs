//! Field-by-field comparison of two implementations' normalized answers.
//!
//! Only fields both sides report are compared (`None` = not reported). Each difference names
//! its field with a stable dotted path (`header.flags`, `function.start`, `fre.ra`, ...), the
//! function and FRE index where it was seen, and both values ([`Value`]).

use super::value::Value;
use crate::impls::{Decoded, Found, Row};
use crate::signature::field::{RowField, RowOf};
use crate::signature::FieldPath;
use serde::Serialize;
use sframe_spec::Stored;
use std::collections::BTreeSet;

/// One differing field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldDiff {
    /// Stable field path, part of the signature.
    pub field: FieldPath,
    pub function: Option<usize>,
    pub fre: Option<usize>,
    /// The reference's value.
    pub expected: Value,
    /// The implementation's value.
    pub found: Value,
}

struct Acc {
    out: Vec<FieldDiff>,
    /// Only which fields differ ([`decoded_fields`]): nothing is formatted or kept per
    /// difference, so a section whose millions of rows all differ costs no allocation each.
    fields_only: Option<BTreeSet<FieldPath>>,
}

impl Acc {
    fn new() -> Acc {
        Acc {
            out: Vec::new(),
            fields_only: None,
        }
    }
    fn opt<T: PartialEq + Clone + Into<Value>>(
        &mut self,
        field: FieldPath,
        f: Option<usize>,
        k: Option<usize>,
        a: &Option<T>,
        b: &Option<T>,
    ) {
        if let (Some(a), Some(b)) = (a, b) {
            if a != b {
                if let Some(set) = &mut self.fields_only {
                    set.insert(field);
                    return;
                }
                self.push(field, f, k, a.clone().into(), b.clone().into());
            }
        }
    }
    fn push(
        &mut self,
        field: FieldPath,
        function: Option<usize>,
        fre: Option<usize>,
        expected: Value,
        found: Value,
    ) {
        if let Some(set) = &mut self.fields_only {
            set.insert(field);
            return;
        }
        self.out.push(FieldDiff {
            field,
            function,
            fre,
            expected,
            found,
        });
    }
    fn row(&mut self, of: RowOf, f: Option<usize>, k: Option<usize>, a: &Row, b: &Row) {
        let at = |field| FieldPath::row(of, field);
        self.opt(at(RowField::Cfa), f, k, &a.cfa, &b.cfa);
        self.opt(at(RowField::Ra), f, k, &a.ra, &b.ra);
        self.opt(at(RowField::Fp), f, k, &a.fp, &b.fp);
        self.opt(at(RowField::RaMangled), f, k, &a.ra_mangled, &b.ra_mangled);
    }
}

/// Differences between the reference's decode `a` and an implementation's `b`.
pub fn decoded(a: &Decoded, b: &Decoded) -> Vec<FieldDiff> {
    let mut acc = Acc::new();
    compare_decoded(&mut acc, a, b);
    acc.out
}

/// The fields in which [`decoded`] finds differences, without describing each one.
pub fn decoded_fields(a: &Decoded, b: &Decoded) -> BTreeSet<FieldPath> {
    let mut acc = Acc {
        fields_only: Some(BTreeSet::new()),
        ..Acc::new()
    };
    compare_decoded(&mut acc, a, b);
    acc.fields_only.unwrap_or_default()
}

fn compare_decoded(acc: &mut Acc, a: &Decoded, b: &Decoded) {
    let (ha, hb) = (&a.header, &b.header);
    acc.opt(
        FieldPath::HeaderVersion,
        None,
        None,
        &ha.version,
        &hb.version,
    );
    acc.opt(FieldPath::HeaderFlags, None, None, &ha.flags, &hb.flags);
    acc.opt(FieldPath::HeaderAbi, None, None, &ha.abi, &hb.abi);
    acc.opt(
        FieldPath::HeaderCfaFixedFpOffset,
        None,
        None,
        &ha.cfa_fixed_fp_offset,
        &hb.cfa_fixed_fp_offset,
    );
    acc.opt(
        FieldPath::HeaderCfaFixedRaOffset,
        None,
        None,
        &ha.cfa_fixed_ra_offset,
        &hb.cfa_fixed_ra_offset,
    );
    acc.opt(
        FieldPath::HeaderNumFdes,
        None,
        None,
        &ha.num_fdes,
        &hb.num_fdes,
    );
    acc.opt(
        FieldPath::HeaderNumFres,
        None,
        None,
        &ha.num_fres,
        &hb.num_fres,
    );
    if a.functions.len() != b.functions.len() {
        acc.push(
            FieldPath::FunctionCount,
            None,
            None,
            a.functions.len().into(),
            b.functions.len().into(),
        );
    }
    for (i, (fa, fb)) in a.functions.iter().zip(&b.functions).enumerate() {
        let f = Some(i);
        acc.opt(FieldPath::FunctionStart, f, None, &fa.start, &fb.start);
        acc.opt(FieldPath::FunctionSize, f, None, &fa.size, &fb.size);
        // Type fields are compared and shown as their stored numbers.
        acc.opt(
            FieldPath::FunctionFreType,
            f,
            None,
            &fa.fre_type.map(Stored::code),
            &fb.fre_type.map(Stored::code),
        );
        acc.opt(
            FieldPath::FunctionPcType,
            f,
            None,
            &fa.pc_type.map(Stored::code),
            &fb.pc_type.map(Stored::code),
        );
        acc.opt(
            FieldPath::FunctionFdeType,
            f,
            None,
            &fa.fde_type.map(Stored::code),
            &fb.fde_type.map(Stored::code),
        );
        acc.opt(
            FieldPath::FunctionRepSize,
            f,
            None,
            &fa.rep_size,
            &fb.rep_size,
        );
        acc.opt(
            FieldPath::FunctionNumFres,
            f,
            None,
            &fa.num_fres,
            &fb.num_fres,
        );
        if fa.error.is_none() {
            if let Some(e) = &fb.error {
                acc.push(
                    FieldPath::FunctionError,
                    f,
                    None,
                    Value::None,
                    Value::Error(e.clone()),
                );
            }
        }
        // Row lists are compared where both are complete; an implementation that stopped
        // with an error is reported above, not once more per missing row.
        if fb.error.is_none() && fa.error.is_none() && fa.fres.len() != fb.fres.len() {
            acc.push(
                FieldPath::FreCount,
                f,
                None,
                fa.fres.len().into(),
                fb.fres.len().into(),
            );
        }
        for (k, (ra, rb)) in fa.fres.iter().zip(&fb.fres).enumerate() {
            acc.opt(FieldPath::FreStart, f, Some(k), &ra.start, &rb.start);
            acc.row(RowOf::Fre, f, Some(k), &ra.row, &rb.row);
        }
    }
}

/// Differences between the reference's row for a PC and an implementation's.
pub fn found(a: &Option<Found>, b: &Option<Found>) -> Vec<FieldDiff> {
    let mut acc = Acc::new();
    match (a, b) {
        (None, None) => {}
        (Some(x), None) => acc.push(
            FieldPath::Missing,
            None,
            None,
            Value::Found(x.clone()),
            Value::None,
        ),
        (None, Some(y)) => acc.push(
            FieldPath::Extra,
            None,
            None,
            Value::None,
            Value::Found(y.clone()),
        ),
        (Some(x), Some(y)) => {
            acc.opt(
                FieldPath::FoundFunctionStart,
                None,
                None,
                &x.function_start,
                &y.function_start,
            );
            acc.opt(
                FieldPath::FoundFreStart,
                None,
                None,
                &x.fre_start,
                &y.fre_start,
            );
            acc.row(RowOf::Found, None, None, &x.row, &y.row);
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
        assert_eq!(d[0].field, FieldPath::FunctionStart);
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
        assert_eq!(decoded(&a, &b)[0].field, FieldPath::FreRa);
        assert_eq!(
            decoded_fields(&a, &b).into_iter().collect::<Vec<_>>(),
            vec![FieldPath::FreRa]
        );
        assert!(decoded_fields(&a, &a).is_empty());
        assert_eq!(
            found(&Some(Found::default()), &None)[0].field,
            FieldPath::Missing
        );
    }

    #[test]
    fn type_fields_differ_as_their_numbers() {
        use sframe_spec::{FreType, PcType, Stored};
        let mut a = Decoded::default();
        a.functions.push(FunctionFacts {
            fre_type: Some(FreType::Addr4.into()),
            pc_type: Some(PcType::Mask.into()),
            ..Default::default()
        });
        let mut b = a.clone();
        b.functions[0].fre_type = Some(Stored::Undefined(3));
        let d = decoded(&a, &b);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].field, FieldPath::FunctionFreType);
        assert_eq!(
            (&d[0].expected, &d[0].found),
            (&Value::Number(2), &Value::Number(3))
        );
        b.functions[0].fre_type = a.functions[0].fre_type;
        b.functions[0].pc_type = Some(PcType::Inc.into());
        let d = decoded(&a, &b);
        assert_eq!(d[0].field, FieldPath::FunctionPcType);
        assert_eq!(
            (&d[0].expected, &d[0].found),
            (&Value::Number(1), &Value::Number(0))
        );
    }
}
