//! Aggregating case results: counts per implementation and version, every distinct
//! signature with its first example and its ledger status, as a table or JSON.

use super::{CaseResult, Discrepancy};
use crate::ledger::{Account, Ledger};
use crate::signature::{Signature, VersionTag};
use serde::Serialize;
use sframe_spec::Version;
use std::collections::BTreeMap;

/// Counts for one implementation.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Counts {
    pub agree: usize,
    pub unsupported: usize,
    pub discrepant: usize,
}

/// One distinct signature.
#[derive(Debug, Clone, Serialize)]
pub struct SignatureSummary {
    pub signature: Signature,
    pub count: usize,
    /// What the ledger says of it (the least accounted-for occurrence's).
    pub finding: Account,
    pub first_case: String,
    pub example: Discrepancy,
    /// The first input showing it (kept for new and untriaged signatures only, to minimize,
    /// record or save).
    #[serde(skip)]
    pub input: Option<Vec<u8>>,
    /// A finding that explained other occurrences, when this one (`first_case`, `example`)
    /// is new or untriaged: an occurrence no finding explains is never hidden behind one
    /// that a finding does explain.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explained_elsewhere: Option<String>,
}

/// The whole run.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    pub sections: usize,
    /// Sections per format version, and how many are valid.
    pub by_version: BTreeMap<VersionTag, usize>,
    pub valid: usize,
    /// Per implementation, per version: agree / unsupported / discrepant sections.
    pub implementations: BTreeMap<String, BTreeMap<VersionTag, Counts>>,
    pub signatures: BTreeMap<String, SignatureSummary>,
}

impl Summary {
    /// Account for one case.
    pub fn add(&mut self, r: &CaseResult, data: &[u8], ledger: &Ledger) {
        self.sections += 1;
        let ver = VersionTag(r.version.and_then(Version::from_u8));
        *self.by_version.entry(ver).or_default() += 1;
        if r.valid {
            self.valid += 1;
        }
        for ir in &r.results {
            let c = self
                .implementations
                .entry(ir.implementation.clone())
                .or_default()
                .entry(ver)
                .or_default();
            match ir.status {
                super::Status::Agree => c.agree += 1,
                super::Status::Unsupported => c.unsupported += 1,
                super::Status::Discrepant => c.discrepant += 1,
            }
            for d in &ir.discrepancies {
                let finding = ledger.account(d);
                let keep_input = finding.finding().is_none();
                let e = self
                    .signatures
                    .entry(d.signature.to_string())
                    .or_insert_with(|| SignatureSummary {
                        signature: d.signature.clone(),
                        count: 0,
                        input: keep_input.then(|| data.to_vec()),
                        finding: finding.clone(),
                        first_case: r.case.clone(),
                        example: d.clone(),
                        explained_elsewhere: None,
                    });
                e.count += 1;
                if finding.rank() < e.finding.rank() {
                    // This occurrence is less accounted for than the ones before: it is the
                    // one the signature stands for now.
                    let before = std::mem::replace(&mut e.finding, finding);
                    if let Account::Finding(id) = before {
                        e.explained_elsewhere = Some(id);
                    }
                    e.first_case = r.case.clone();
                    e.example = d.clone();
                    e.input = Some(data.to_vec());
                }
            }
        }
    }

    /// Signatures no finding covers.
    pub fn new_signatures(&self) -> impl Iterator<Item = &SignatureSummary> {
        self.signatures.values().filter(|s| s.finding.is_new())
    }

    pub fn has_new(&self) -> bool {
        self.new_signatures().next().is_some()
    }

    /// The summary table.
    pub fn render_text(&self) -> String {
        let mut out = String::new();
        let versions: Vec<String> = self
            .by_version
            .iter()
            .map(|(v, n)| format!("{v}: {n}"))
            .collect();
        out.push_str(&format!(
            "{} sections ({}), {} valid\n\n",
            self.sections,
            versions.join(", "),
            self.valid
        ));
        out.push_str(&format!(
            "{:<20} {:>8} {:>12} {:>11}   per version (agree/unsupported/discrepant)\n",
            "implementation", "agree", "unsupported", "discrepant"
        ));
        for (imp, per) in &self.implementations {
            let total = per.values().fold(Counts::default(), |mut a, c| {
                a.agree += c.agree;
                a.unsupported += c.unsupported;
                a.discrepant += c.discrepant;
                a
            });
            let detail: Vec<String> = per
                .iter()
                .map(|(v, c)| format!("{v} {}/{}/{}", c.agree, c.unsupported, c.discrepant))
                .collect();
            out.push_str(&format!(
                "{imp:<20} {:>8} {:>12} {:>11}   {}\n",
                total.agree,
                total.unsupported,
                total.discrepant,
                detail.join("  ")
            ));
        }
        if !self.signatures.is_empty() {
            out.push_str(&format!("\n{:<64} {:>6}  finding\n", "signature", "count"));
            for s in self.signatures.values() {
                out.push_str(&format!(
                    "{:<64} {:>6}  {}\n",
                    s.signature,
                    s.count,
                    match (s.finding.label(), s.explained_elsewhere.as_deref()) {
                        (None, Some(f)) => format!("NEW (other occurrences: {f})"),
                        (Some(u), Some(f)) => format!("{u} (other occurrences: {f})"),
                        (f, None) => f.unwrap_or("NEW").to_string(),
                    }
                ));
            }
        }
        let new: Vec<&SignatureSummary> = self.new_signatures().collect();
        if !new.is_empty() {
            out.push_str(&format!(
                "\n{} new signature(s); first examples:\n",
                new.len()
            ));
            for s in new {
                let d = &s.example;
                out.push_str(&format!("  {} in {}\n", s.signature, s.first_case));
                let at = [
                    d.function.map(|f| format!("function {f}")),
                    d.fre.map(|k| format!("FRE {k}")),
                    d.pc.map(|p| format!("pc {p:#x}")),
                ];
                let at: Vec<String> = at.into_iter().flatten().collect();
                if !at.is_empty() {
                    out.push_str(&format!("    at {}\n", at.join(", ")));
                }
                out.push_str(&format!(
                    "    reference: {}\n    {}: {}\n",
                    d.expected,
                    d.implementation(),
                    d.found
                ));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::{Answer, ImplResult, Status};
    use crate::ledger::{Finding, FindingKind, Verdict};

    fn disc(explained_by: &[&str]) -> Discrepancy {
        let sig: crate::signature::Signature = "diff:libsframe-2.47:v2:find_fre:row.cfa"
            .parse()
            .expect("a signature");
        Discrepancy {
            pc: Some(0),
            expected: Answer::Value(crate::diff::Value::Rule(sframe_spec::Loc::SameValue)),
            found: Answer::Value(crate::diff::Value::Rule(sframe_spec::Loc::Undefined)),
            explained_by: explained_by.iter().map(|s| s.to_string()).collect(),
            ..Discrepancy::new(sig)
        }
    }

    fn case(name: &str, d: Discrepancy) -> CaseResult {
        CaseResult {
            case: name.into(),
            bytes: 0,
            version: Some(2),
            valid: true,
            first_error: None,
            pcs: 1,
            results: vec![ImplResult {
                implementation: "libsframe-2.47".into(),
                status: Status::Discrepant,
                discrepancies: vec![d],
            }],
        }
    }

    #[test]
    fn an_unexplained_occurrence_is_not_hidden_behind_an_explained_one() {
        let ledger = Ledger {
            findings: vec![Finding {
                id: "F9999-x".into(),
                title: String::new(),
                kind: FindingKind::Disagreement,
                verdict: Verdict::ImplementationBug,
                tools: vec![],
                rules: vec![],
                signatures: vec![],
                reproducers: vec![],
                reproduce: String::new(),
                fixed_in: vec![],
                notes: String::new(),
                quirks: Default::default(),
                triggers: Default::default(),
                upstream: vec![],
                upstream_status: vec![],
                claim: vec![],
                first_bad_access: vec![],
            }],
            ..Ledger::default()
        };
        let mut s = Summary::default();
        s.add(&case("explained", disc(&["F9999-x"])), &[1], &ledger);
        assert!(!s.has_new());
        s.add(&case("unexplained", disc(&[])), &[2], &ledger);
        assert!(s.has_new(), "the second occurrence is explained by nothing");
        let e = s.signatures.values().next().expect("one signature");
        assert_eq!(e.count, 2);
        assert_eq!(e.first_case, "unexplained");
        assert_eq!(e.input.as_deref(), Some(&[2u8][..]));
        assert_eq!(e.explained_elsewhere.as_deref(), Some("F9999-x"));
    }
}
