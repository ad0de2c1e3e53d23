//! Foreign encoders as producers: the implementation writes a section from a model, the
//! reference checks it.
//!
//! The output must break no error-severity rule (else `producer:<impl>:<ver>:<RULE-ID>`, a
//! producer violation) and must say what the model says: the reference's decode of it is
//! compared with the model's facts, functions matched by start address since an encoder may
//! sort them (`diff:<impl>:<ver>:encode:<field>`). A refused model is
//! `rejected-valid:<impl>:<ver>:encode:…` (every model given is valid), a crash
//! `crash:<impl>:<ver>:encode`.

use super::{compare, failure, Answer, CaseResult, Discrepancy, ImplResult, Op, Status};
use crate::impls::reference::facts_of;
use crate::impls::{Decoded, Implementation, Outcome};
use crate::signature::{Field, LayoutTag, Signature};
use sframe_spec::rules::Severity;
use sframe_spec::{decode, validate, Section};

fn sorted(mut d: Decoded) -> Decoded {
    d.functions.sort_by_key(|f| (f.start, f.size));
    d
}

/// The case of one model given to an encoder: named `case`, the encoder's result under the
/// name `implementation`, agreeing when `discrepancies` ([`check`]) is empty.
pub fn case_result(
    case: String,
    implementation: String,
    model: &Section,
    discrepancies: Vec<Discrepancy>,
) -> CaseResult {
    CaseResult {
        case,
        bytes: 0,
        version: Some(model.version.number()),
        valid: true,
        first_error: None,
        pcs: 0,
        results: vec![ImplResult {
            implementation,
            status: if discrepancies.is_empty() {
                Status::Agree
            } else {
                Status::Discrepant
            },
            discrepancies,
        }],
    }
}

/// Check `imp`'s encoding of `model`; empty when it agrees (or has no encoder for it).
pub fn check(imp: &dyn Implementation, model: &Section) -> Vec<Discrepancy> {
    let out = imp.encode(model);
    let tag = sframe_spec::encode(model)
        .map(|b| LayoutTag::of(&b))
        .unwrap_or_else(|_| LayoutTag::version(model.version));
    let tool = imp.tool();
    let imp = || tool.clone();
    if let Some(d) = failure(&tool, tag, Op::Encode, &out) {
        return vec![d];
    }
    let mk = |sig: Signature, expected: Answer, found: Answer| Discrepancy {
        expected,
        found,
        ..Discrepancy::new(sig)
    };
    let bytes = match out {
        Outcome::Ok { value } => value,
        Outcome::Rejected { class, detail } => {
            return vec![mk(
                Signature::RejectedValid {
                    imp: imp(),
                    tag,
                    op: Op::Encode,
                    error: class,
                },
                Answer::ASection,
                Answer::RefusedModel { detail },
            )]
        }
        _ => return Vec::new(),
    };
    let errors: Vec<_> = validate(&bytes)
        .into_iter()
        .filter(|v| v.rule.info().severity == Severity::Error)
        .collect();
    if let Some(v) = errors.first() {
        return vec![mk(
            Signature::Producer {
                imp: imp(),
                tag,
                rule: v.rule,
            },
            Answer::NoViolation,
            Answer::Violation(*v),
        )];
    }
    let Ok(written) = decode(&bytes) else {
        return Vec::new();
    };
    let mut seen = std::collections::BTreeSet::new();
    compare::decoded(&sorted(facts_of(model)), &sorted(facts_of(&written)))
        .into_iter()
        .filter(|fd| seen.insert(fd.field))
        .map(|fd| {
            let mut d = mk(
                Signature::Diff {
                    imp: imp(),
                    tag,
                    op: Op::Encode,
                    field: Field::plain(fd.field),
                },
                Answer::Value(fd.expected),
                Answer::Value(fd.found),
            );
            d.function = fd.function;
            d.fre = fd.fre;
            d
        })
        .collect()
}
