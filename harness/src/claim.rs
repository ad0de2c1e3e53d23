//! Checking a finding's reader claims ([`Claim`], at home in `sframe-findings`) against what
//! the differential engine saw on the reproducer ([`CaseResult`]).

use crate::diff::{Answer, CaseResult, Discrepancy, Value, ValueError};
use crate::ledger::{Finding, FindingKind};
use crate::signature::{ErrorClass, Field, Op, RuleClass, Signature, Tool};
pub use sframe_findings::ledger::claim::*;
use sframe_spec::Rule;
use std::fmt;

/// A reader claim checked on the engine's answers.
pub trait CheckCase {
    /// Check a reader claim of `finding` against what the engine saw on its input (an
    /// encoder's output, [`Op::Encode`], against what the reference reads of it). `Err` says
    /// what was seen instead.
    fn check_case(&self, finding: &Finding, r: &CaseResult) -> Result<(), String>;
}

impl CheckCase for Claim {
    fn check_case(&self, finding: &Finding, r: &CaseResult) -> Result<(), String> {
        let Some(imp) = self.implementation() else {
            return Err("a producer claim is not checked on a reader's answers".into());
        };
        let Some(res) = r.results.iter().find(|x| x.implementation == imp) else {
            return Err(format!("{imp} did not run on {}", r.case));
        };
        let ds = &res.discrepancies;
        let tool = Tool::named(imp);
        let hit = match self {
            Claim::Agrees { .. } => {
                return match ds.first() {
                    None => Ok(()),
                    Some(d) => Err(format!(
                        "{imp} does not agree: {} (found {}, reference {})",
                        d.signature, d.found, d.expected
                    )),
                }
            }
            Claim::Value {
                op,
                field,
                pc,
                found,
                ..
            } => {
                let found = found
                    .as_deref()
                    .map(|text| claimed_answer(field, text))
                    .transpose()
                    .map_err(|e| {
                        format!(
                            "the claim file {}/finding.json: the value claim on {imp}, field {field}: {e}",
                            finding.id
                        )
                    })?;
                ds.iter().any(|d| {
                d.op() == *op
                    && d.detail() == *field
                    && matches!(
                        d.kind(),
                        FindingKind::Disagreement | FindingKind::RejectedValid
                    )
                    && pc.is_none_or(|p| d.pc == Some(p))
                    && found.as_ref().is_none_or(|f| d.found == *f)
                    && (d.explained_by.contains(&finding.id)
                        || (d.op() == Op::Encode && finding.covers(&d.signature)))
                })
            }
            Claim::Crash {
                op, signal, site, ..
            } => ds.iter().any(|d| {
                matches!(&d.signature, Signature::Crash { imp: i, op: o, signal: s, site: Some(c), .. }
                    if *i == tool && o == op && s == signal && c == site)
            }),
            Claim::Hang { op, .. } => ds.iter().any(|d| {
                matches!(&d.signature, Signature::Hang { imp: i, op: o, .. } if *i == tool && o == op)
            }),
            Claim::AcceptedInvalid { rule, .. } => {
                let rule = Rule::from_id(rule)
                    .ok_or_else(|| format!("the claim names no rule of the catalogue: {rule:?}"))?;
                ds.iter().any(|d| {
                    matches!(&d.signature, Signature::AcceptedInvalid { imp: i, class: RuleClass::Invalid, rule: r, .. }
                        if *i == tool && *r == rule)
                })
            }
            Claim::Walk { .. } => {
                return Err("a stack-walk claim is checked on a walk, not on answers".into())
            }
            Claim::ProducerRow { .. }
            | Claim::ProducerViolation { .. }
            | Claim::ProducerFails { .. }
            | Claim::ProducerOmits { .. }
            | Claim::ReferenceRow { .. } => unreachable!(),
        };
        if hit {
            Ok(())
        } else {
            Err(format!("{imp} shows instead: {}", seen(ds)))
        }
    }
}

/// What a value claim's `found` text does not say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClaimedAnswerError {
    /// Not a value of the compared field.
    Value(ValueError),
    /// The field names an error class (a refusal's), and the text is neither that class nor
    /// `CLASS: what the implementation said`.
    NotTheRefusal { text: String },
}

impl fmt::Display for ClaimedAnswerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClaimedAnswerError::Value(e) => write!(f, "found: {e}"),
            ClaimedAnswerError::NotTheRefusal { text } => write!(
                f,
                "found: {text:?} is neither the refusal's error class nor that class, `: ` and what was said"
            ),
        }
    }
}

/// The answer a value claim says the implementation gives, read once from the claim's
/// `found` text: for a compared field (`fre.ra`, `mask.missing`), that field's [`Value`];
/// otherwise the field is a refusal's error class and the text that class, with what the
/// implementation said after `: `.
pub fn claimed_answer(field: &str, text: &str) -> Result<Answer, ClaimedAnswerError> {
    if let Ok(f) = field.parse::<Field>() {
        return Value::read(f.path, text)
            .map(Answer::Value)
            .map_err(ClaimedAnswerError::Value);
    }
    let detail = match text.strip_prefix(field) {
        Some("") => None,
        Some(said) => match said.strip_prefix(": ") {
            Some(said) => Some(said.to_string()),
            None => {
                return Err(ClaimedAnswerError::NotTheRefusal {
                    text: text.to_string(),
                })
            }
        },
        None => {
            return Err(ClaimedAnswerError::NotTheRefusal {
                text: text.to_string(),
            })
        }
    };
    Ok(Answer::Refused {
        class: ErrorClass::named(field),
        detail,
    })
}

/// The discrepancies, shortly, for a failure message.
fn seen(ds: &[Discrepancy]) -> String {
    if ds.is_empty() {
        return "agreement with the reference".into();
    }
    let mut s = String::new();
    for d in ds.iter().take(6) {
        s.push_str(&format!(
            "\n  {} pc {:?} found {:?} reference {:?} explained by {:?}",
            d.signature, d.pc, d.found, d.expected, d.explained_by
        ));
    }
    if ds.len() > 6 {
        s.push_str(&format!("\n  ... {} more", ds.len() - 6));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::{ImplResult, Status};
    use crate::impls::Found;

    /// `libsframe-2.40` finds `found` at PC 508 where the reference finds a row.
    fn disagreement(found: Value, explained_by: &[&str]) -> Discrepancy {
        Discrepancy {
            pc: Some(508),
            expected: Answer::Value(Value::Found(Found::default())),
            found: Answer::Value(found),
            explained_by: explained_by.iter().map(|s| s.to_string()).collect(),
            ..Discrepancy::new(
                "diff:libsframe-2.40:v1:find_fre:mask.missing"
                    .parse()
                    .unwrap(),
            )
        }
    }

    fn case(ds: Vec<Discrepancy>) -> CaseResult {
        CaseResult {
            case: "t".into(),
            bytes: 0,
            version: Some(1),
            valid: true,
            first_error: None,
            pcs: 1,
            results: vec![ImplResult {
                implementation: "libsframe-2.40".into(),
                status: if ds.is_empty() {
                    Status::Agree
                } else {
                    Status::Discrepant
                },
                discrepancies: ds,
            }],
        }
    }

    fn f(id: &str) -> Finding {
        serde_json::from_str(&format!(
            r#"{{"id":"{id}","title":"t","kind":"disagreement","verdict":"open","tools":[],"signatures":[]}}"#
        ))
        .unwrap()
    }

    fn value(found: &str) -> Claim {
        serde_json::from_str(&format!(
            r#"{{"shows":"value","implementation":"libsframe-2.40","input":"i.sframe","op":"find_fre","field":"mask.missing","pc":508,"found":"{found}"}}"#
        ))
        .unwrap()
    }

    #[test]
    fn a_value_claim_needs_that_answer_explained_by_that_finding() {
        let c = value("none");
        assert_eq!(
            c.check_case(&f("F1"), &case(vec![disagreement(Value::None, &["F1"])])),
            Ok(())
        );
        assert!(c
            .check_case(&f("F1"), &case(vec![disagreement(Value::None, &["F2"])]))
            .is_err());
        assert!(c
            .check_case(
                &f("F1"),
                &case(vec![disagreement(Value::Found(Found::default()), &["F1"])])
            )
            .is_err());
        assert!(c.check_case(&f("F1"), &case(vec![])).is_err());
        let agrees = Claim::Agrees {
            implementation: "libsframe-2.40".into(),
            input: "i".into(),
        };
        assert_eq!(agrees.check_case(&f("F1"), &case(vec![])), Ok(()));
        assert!(agrees
            .check_case(&f("F1"), &case(vec![disagreement(Value::None, &["F1"])]))
            .is_err());
    }

    /// A claim's text is read for its field once; one that does not read as the field's
    /// value fails the check naming the claim file and the field.
    #[test]
    fn a_value_claim_reads_its_text_for_its_field() {
        let c = value("Undefined");
        let err = c
            .check_case(&f("F1"), &case(vec![disagreement(Value::None, &["F1"])]))
            .expect_err("Undefined is no look-up's row");
        assert!(
            err.contains("F1/finding.json") && err.contains("field mask.missing"),
            "{err}"
        );
        assert_eq!(
            claimed_answer("fre.ra", "SameValue"),
            Ok(Answer::Value(Value::Rule(sframe_spec::Loc::SameValue)))
        );
        assert_eq!(
            claimed_answer("SFRAME_ERR_NOMEM", "SFRAME_ERR_NOMEM: Out of Memory."),
            Ok(Answer::Refused {
                class: ErrorClass::named("SFRAME_ERR_NOMEM"),
                detail: Some("Out of Memory.".into()),
            })
        );
        assert_eq!(
            claimed_answer("get_fre: -1", "get_fre: -1"),
            Ok(Answer::Refused {
                class: ErrorClass::call("get_fre", -1),
                detail: None,
            })
        );
        assert!(claimed_answer("SFRAME_ERR_NOMEM", "SFRAME_ERR_NOMEMORY").is_err());
        assert!(claimed_answer("SFRAME_ERR_NOMEM", "SFRAME_ERR_BUF_INVAL").is_err());
    }

    #[test]
    fn a_crash_claim_needs_the_signal_and_the_site() {
        let mut d = disagreement(Value::None, &[]);
        d.signature = "crash:libsframe-2.40:v1:find_fre:SIGSEGV:sframe_decode"
            .parse()
            .unwrap();
        let claim = |signal: &str, site: &str| Claim::Crash {
            implementation: "libsframe-2.40".into(),
            input: "i".into(),
            op: Op::FindFre,
            signal: signal.parse().unwrap(),
            site: site.parse().unwrap(),
        };
        let r = case(vec![d]);
        assert_eq!(
            claim("SIGSEGV", "sframe_decode").check_case(&f("F"), &r),
            Ok(())
        );
        assert!(claim("SIGABRT", "sframe_decode")
            .check_case(&f("F"), &r)
            .is_err());
        assert!(claim("SIGSEGV", "sframe_find_fre")
            .check_case(&f("F"), &r)
            .is_err());
    }

    #[test]
    fn a_walk_claim_is_not_checked_on_answers() {
        let c = Claim::Walk {
            implementation: "glibc-2.43".into(),
            elf: "corpus/elf/x".into(),
            frame: 0,
            function: "ext_use".into(),
            what: crate::signature::Unwind::IncompleteRow,
        };
        assert!(c.check_case(&f("F"), &case(vec![])).is_err());
    }
}
