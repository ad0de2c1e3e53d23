//! What one side of a [`super::Discrepancy`] said: the reference's answer (`expected`) or the
//! implementation's (`found`), as a value the engine builds where it observes it and readers
//! match on. Its text ([`Answer`]'s `Display`, which is also its JSON) is the one people and
//! the `--json` output have always read: `valid`, `breaks RULE`, `decoded`, `SIGSEGV: …`,
//! `no answer in N ms`, a field's value.

use super::Value;
use crate::impls::Found;
use crate::signature::{ErrorClass, Signal};
use serde::{Serialize, Serializer};
use sframe_spec::{Rule, Violation};
use std::fmt;

/// One side's answer in a discrepancy.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Answer {
    /// Nothing recorded for this side (a discrepancy not yet filled in).
    #[default]
    Nothing,
    /// A field's value ([`super::compare::FieldDiff`]).
    Value(Value),
    /// The reference's row for a PC, or its "no row" (`None`).
    Row(Option<Found>),
    /// The section breaks no error-severity rule.
    Valid,
    /// The section breaks this error-severity rule.
    Breaks(Rule),
    /// The implementation decoded the section.
    Decoded,
    /// An encoder was to write a section from a valid model.
    ASection,
    /// An encoder's output was to break no error-severity rule.
    NoViolation,
    /// An encoder's output breaks a rule: the reference's violation.
    Violation(Violation),
    /// The implementation refused: its error class and what it said.
    Refused {
        class: ErrorClass,
        detail: Option<String>,
    },
    /// An encoder refused a model: what it said, if anything.
    RefusedModel { detail: Option<String> },
    /// The implementation died on `signal`, saying `detail` last.
    Died {
        signal: Signal,
        detail: Option<String>,
    },
    /// No answer within the time limit.
    NoAnswerIn { timeout_ms: u64 },
}

/// `head`, then `: detail` when there is one.
fn with_detail(
    f: &mut fmt::Formatter<'_>,
    head: &impl fmt::Display,
    detail: &Option<String>,
) -> fmt::Result {
    match detail {
        Some(d) => write!(f, "{head}: {d}"),
        None => write!(f, "{head}"),
    }
}

impl fmt::Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Answer::Nothing => Ok(()),
            Answer::Value(v) => write!(f, "{v}"),
            Answer::Row(row) => write!(f, "{row:?}"),
            Answer::Valid => f.write_str("valid"),
            Answer::Breaks(rule) => write!(f, "breaks {}", rule.id()),
            Answer::Decoded => f.write_str("decoded"),
            Answer::ASection => f.write_str("a section"),
            Answer::NoViolation => f.write_str("no violation"),
            Answer::Violation(v) => write!(f, "{v}"),
            Answer::Refused { class, detail } => with_detail(f, class, detail),
            Answer::RefusedModel { detail } => f.write_str(detail.as_deref().unwrap_or_default()),
            Answer::Died { signal, detail } => with_detail(f, signal, detail),
            Answer::NoAnswerIn { timeout_ms } => write!(f, "no answer in {timeout_ms} ms"),
        }
    }
}

/// The JSON of an answer is its text.
impl Serialize for Answer {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The texts the `--json` output and the reports have always carried, one per answer.
    #[test]
    fn each_answer_reads_as_before() {
        let cases: Vec<(Answer, &str)> = vec![
            (Answer::Nothing, ""),
            (Answer::Value(Value::Number(3)), "3"),
            (Answer::Row(None), "None"),
            (Answer::Valid, "valid"),
            (Answer::Breaks(Rule::FdeFreType), "breaks FDE-FRE-TYPE"),
            (Answer::Decoded, "decoded"),
            (Answer::ASection, "a section"),
            (Answer::NoViolation, "no violation"),
            (
                Answer::Refused {
                    class: ErrorClass::named("SFRAME_ERR_BUF_INVAL"),
                    detail: None,
                },
                "SFRAME_ERR_BUF_INVAL",
            ),
            (
                Answer::Refused {
                    class: ErrorClass::named("SFRAME_ERR_BUF_INVAL"),
                    detail: Some("short".into()),
                },
                "SFRAME_ERR_BUF_INVAL: short",
            ),
            (Answer::RefusedModel { detail: None }, ""),
            (
                Answer::Died {
                    signal: Signal::named("SIGSEGV"),
                    detail: Some("at sframe_decode".into()),
                },
                "SIGSEGV: at sframe_decode",
            ),
            (
                Answer::NoAnswerIn { timeout_ms: 500 },
                "no answer in 500 ms",
            ),
        ];
        for (a, text) in cases {
            assert_eq!(a.to_string(), text, "{a:?}");
            assert_eq!(
                serde_json::to_value(&a).expect("JSON"),
                serde_json::json!(text)
            );
        }
    }
}
