//! The records of a run: the input sections ([`Case`]), what each implementation did with one
//! ([`ImplResult`], its [`Status`] and [`Discrepancy`]s) and everything about one section
//! ([`CaseResult`]). Their JSON is the `--json` output's `cases`.

use super::answer::Answer;
use crate::ledger::FindingKind;
use crate::signature::{Class, Op, Signature};
use serde::Serialize;

/// One input section.
#[derive(Debug, Clone)]
pub struct Case {
    /// Where it comes from (file path, or `generated:<seed>:<n>`).
    pub name: String,
    pub data: Vec<u8>,
}

/// One observed discrepancy: its [`Signature`] (what disagreed, in which implementation and
/// operation), where, what the reference and the implementation said, and what explains it.
/// The parts the signature names are read from it ([`Discrepancy::kind`],
/// [`Discrepancy::implementation`], [`Discrepancy::op`], [`Discrepancy::detail`]); its JSON
/// spells them out beside it, for people and scripts.
#[derive(Debug, Clone)]
pub struct Discrepancy {
    pub signature: Signature,
    pub function: Option<usize>,
    pub fre: Option<usize>,
    pub pc: Option<i64>,
    /// What the reference says.
    pub expected: Answer,
    /// What the implementation says.
    pub found: Answer,
    /// The findings whose quirks reproduce the implementation's answer here (see
    /// [`explain`]); empty when none does, or for classes that are not value answers.
    pub explained_by: Vec<String>,
    /// For a crash or hang: what the ledger's triggers say of its input
    /// ([`super::triggers`]); `None` when they cannot say.
    pub trigger: Option<TriggerCheck>,
}

impl Discrepancy {
    /// A discrepancy named `signature`: no place, no answers, nothing that explains it yet.
    pub fn new(signature: Signature) -> Discrepancy {
        Discrepancy {
            signature,
            function: None,
            fre: None,
            pc: None,
            expected: Answer::Nothing,
            found: Answer::Nothing,
            explained_by: Vec::new(),
            trigger: None,
        }
    }

    /// What kind of finding it would be, from its signature's class.
    pub fn kind(&self) -> FindingKind {
        match self.signature.class() {
            Class::Diff | Class::Unwind => FindingKind::Disagreement,
            Class::RejectedValid => FindingKind::RejectedValid,
            Class::AcceptedInvalid => FindingKind::AcceptedInvalid,
            Class::Crash => FindingKind::Crash,
            Class::Hang => FindingKind::Hang,
            Class::Producer | Class::Violation => FindingKind::ProducerViolation,
            Class::Oracle | Class::Crosscheck => FindingKind::OracleMismatch,
        }
    }

    /// Whether it is a crash or a hang.
    pub fn is_failure(&self) -> bool {
        matches!(self.signature.class(), Class::Crash | Class::Hang)
    }

    /// The implementation that answered so, as its signature names it.
    pub fn implementation(&self) -> String {
        if let Some(imp) = self.signature.imp() {
            return imp.to_string();
        }
        match &self.signature {
            Signature::Oracle { producer, .. } | Signature::Crosscheck { producer, .. } => {
                producer.to_string()
            }
            _ => String::new(),
        }
    }

    /// The operation asked: the signature's, else `decode` for a section accepted though
    /// invalid and `encode` for a producer's broken rule.
    pub fn op(&self) -> Op {
        match &self.signature {
            Signature::Producer { .. } => Op::Encode,
            s => s.op().unwrap_or(Op::Decode),
        }
    }

    /// The signature's last part, for people: the field that differs (diff), the rule
    /// broken (accepted-invalid, producer), the error class (rejected-valid), the signal
    /// (crash), `timeout` (hang).
    pub fn detail(&self) -> String {
        match &self.signature {
            Signature::Diff { field, .. } => field.to_string(),
            Signature::RejectedValid { error, .. } => error.to_string(),
            Signature::AcceptedInvalid { rule, .. } | Signature::Producer { rule, .. } => {
                rule.id().to_string()
            }
            Signature::Crash { signal, .. } => signal.to_string(),
            Signature::Hang { .. } => "timeout".into(),
            s => s.to_string(),
        }
    }
}

/// The record as JSON: the signature, then its parts spelled out (`kind`, `implementation`,
/// `op`, `detail`), then the rest.
impl Serialize for Discrepancy {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Record<'a> {
            signature: &'a Signature,
            kind: FindingKind,
            implementation: String,
            op: Op,
            detail: String,
            function: Option<usize>,
            fre: Option<usize>,
            pc: Option<i64>,
            expected: &'a Answer,
            found: &'a Answer,
            #[serde(skip_serializing_if = "Vec::is_empty")]
            explained_by: Vec<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            trigger: Option<&'a TriggerCheck>,
        }
        Record {
            signature: &self.signature,
            kind: self.kind(),
            implementation: self.implementation(),
            op: self.op(),
            detail: self.detail(),
            function: self.function,
            fre: self.fre,
            pc: self.pc,
            expected: &self.expected,
            found: &self.found,
            explained_by: self.explained_by.iter().map(String::as_str).collect(),
            trigger: self.trigger.as_ref(),
        }
        .serialize(s)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The JSON of a discrepancy spells out what its signature names, as the `--json`
    /// output always did: the parts read from the signature's own text.
    #[test]
    fn the_json_spells_out_the_signature_parts() {
        let mut d = Discrepancy::new(
            "crash:libsframe-2.47:v2:find_fre:SIGSEGV:sframe_decode"
                .parse()
                .expect("a signature"),
        );
        d.pc = Some(16);
        let v = serde_json::to_value(&d).expect("JSON");
        assert_eq!(
            v["signature"],
            "crash:libsframe-2.47:v2:find_fre:SIGSEGV:sframe_decode"
        );
        assert_eq!(v["kind"], "crash");
        assert_eq!(v["implementation"], "libsframe-2.47");
        assert_eq!(v["op"], "find_fre");
        assert_eq!(v["detail"], "SIGSEGV");
        assert_eq!(v["pc"], 16);
        assert!(v.get("explained_by").is_none() && v.get("trigger").is_none());
        let d = Discrepancy::new(
            "accepted-invalid:simple-frame-rs:v3:invalid:FDE-FRE-TYPE"
                .parse()
                .expect("a signature"),
        );
        let v = serde_json::to_value(&d).expect("JSON");
        assert_eq!(
            (&v["kind"], &v["op"], &v["detail"]),
            (
                &serde_json::json!("accepted-invalid"),
                &serde_json::json!("decode"),
                &serde_json::json!("FDE-FRE-TYPE")
            )
        );
    }
}
