//! The records of a run: the input sections ([`Case`]), what each implementation did with one
//! ([`ImplResult`], its [`Status`] and [`Discrepancy`]s) and everything about one section
//! ([`CaseResult`]). Their JSON is the `--json` output's `cases`.

use crate::ledger::FindingKind;
use crate::signature::{Op, Signature};
use serde::Serialize;

/// One input section.
#[derive(Debug, Clone)]
pub struct Case {
    /// Where it comes from (file path, or `generated:<seed>:<n>`).
    pub name: String,
    pub data: Vec<u8>,
}

/// One observed discrepancy.
#[derive(Debug, Clone, Serialize)]
pub struct Discrepancy {
    pub signature: Signature,
    pub kind: FindingKind,
    pub implementation: String,
    pub op: Op,
    /// The field that differs (diff), the rule broken (accepted-invalid), the error class
    /// (rejected-valid) or the signal (crash).
    pub detail: String,
    pub function: Option<usize>,
    pub fre: Option<usize>,
    pub pc: Option<i64>,
    /// What the reference says.
    pub expected: String,
    /// What the implementation says.
    pub found: String,
    /// The findings whose quirks reproduce the implementation's answer here (see
    /// [`explain`]); empty when none does, or for classes that are not value answers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub explained_by: Vec<String>,
    /// For a crash or hang: what the ledger's triggers say of its input
    /// ([`super::triggers`]); `None` when they cannot say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<TriggerCheck>,
}

impl Discrepancy {
    /// A discrepancy of `kind` by `implementation` in `op`, named `signature`, with its
    /// `detail` (see the field): no place, no answers, nothing that explains it yet.
    pub fn new(
        kind: FindingKind,
        implementation: &str,
        op: Op,
        detail: &str,
        signature: Signature,
    ) -> Discrepancy {
        Discrepancy {
            signature,
            kind,
            implementation: implementation.to_string(),
            op,
            detail: detail.to_string(),
            function: None,
            fre: None,
            pc: None,
            expected: String::new(),
            found: String::new(),
            explained_by: Vec::new(),
            trigger: None,
        }
    }
}

/// What the ledger's triggers say of a crash or hang's input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "check")]
pub enum TriggerCheck {
    /// A ledgered trigger holds: its finding explains the crash, wherever it lands.
    Holds {
        trigger: sframe_spec::Trigger,
        finding: String,
    },
    /// A known bug of the model holds that no finding of the ledger names for this
    /// implementation: new.
    Unledgered { trigger: sframe_spec::Trigger },
    /// The input triggers no known bug: new, whatever its crash site.
    NoneHolds,
}

/// What an implementation made of a section, in short.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// No discrepancy.
    Agree,
    /// It does not handle the section's version, or answered "unsupported" to everything.
    Unsupported,
    /// At least one discrepancy.
    Discrepant,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Agree => "agree",
            Status::Unsupported => "unsupported",
            Status::Discrepant => "discrepant",
        }
    }
}

/// What one implementation did with one section.
#[derive(Debug, Clone, Serialize)]
pub struct ImplResult {
    pub implementation: String,
    pub status: Status,
    pub discrepancies: Vec<Discrepancy>,
}

/// Everything about one section.
#[derive(Debug, Clone, Serialize)]
pub struct CaseResult {
    pub case: String,
    pub bytes: usize,
    pub version: Option<u8>,
    /// No error-severity rule broken.
    pub valid: bool,
    /// The first error-severity rule broken, if any.
    pub first_error: Option<String>,
    pub pcs: usize,
    pub results: Vec<ImplResult>,
}

impl CaseResult {
    pub fn discrepancies(&self) -> impl Iterator<Item = &Discrepancy> {
        self.results.iter().flat_map(|r| r.discrepancies.iter())
    }
}
