//! Scoring an implementation on a suite: every case's answers judged as the differential
//! engine judges them ([`judge`], [`compare`]) against the case file's expectations, tallied
//! per class and version, with the table `suite score` prints.

use super::format::{read_suite, CaseFile, Class};
use crate::diff::compare::{self, FieldDiff};
use crate::diff::{judge, Judgement};
use crate::impls::{section_version, Implementation, Outcome, UnsupportedReason};
use crate::signature::{ErrorClass, Signal, VersionTag};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

/// Counts for one (class, version).
#[derive(Debug, Clone, Serialize)]
pub struct Tally {
    pub class: Class,
    pub version: VersionTag,
    pub cases: usize,
    /// valid/malformed: passed; invalid: refused.
    pub passed: usize,
    /// valid/malformed: failed; invalid: accepted.
    pub failed: usize,
    pub unsupported: usize,
    /// Crashes and hangs.
    pub crashed: usize,
    /// Invalid cases only: refused (= `passed`) and accepted (= `failed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepted: Option<usize>,
}

/// A case that did not pass (valid/malformed), with why.
#[derive(Debug, Clone, Serialize)]
pub struct Failure {
    pub case: String,
    pub class: Class,
    /// `failed` or `crashed`.
    pub result: &'static str,
    /// Written as its text in reports and JSON.
    #[serde(serialize_with = "as_text")]
    pub why: Why,
}

fn as_text<S: serde::Serializer>(why: &Why, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(why)
}

/// How an implementation's [`Outcome`] ended where no value was compared: it accepted the
/// input, or refused it, did not support it, crashed or hung. (The differential engine's answer, the
/// value or refusal a discrepancy shows, is [`crate::diff::Answer`].)
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutcomeKind {
    Accepted,
    Refused(ErrorClass),
    Unsupported(UnsupportedReason),
    Crashed(Signal),
    Hung { timeout_ms: u64 },
}

impl OutcomeKind {
    fn of<T>(o: &Outcome<T>) -> OutcomeKind {
        match o {
            Outcome::Ok { .. } => OutcomeKind::Accepted,
            Outcome::Rejected { class, .. } => OutcomeKind::Refused(class.clone()),
            Outcome::Unsupported { reason } => OutcomeKind::Unsupported(reason.clone()),
            Outcome::Crashed { signal, .. } => OutcomeKind::Crashed(signal.clone()),
            Outcome::Hung { timeout_ms } => OutcomeKind::Hung {
                timeout_ms: *timeout_ms,
            },
        }
    }
}

impl fmt::Display for OutcomeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OutcomeKind::Accepted => f.write_str("accepted"),
            OutcomeKind::Refused(class) => write!(f, "refused ({class})"),
            OutcomeKind::Unsupported(reason) => write!(f, "unsupported ({reason})"),
            OutcomeKind::Crashed(signal) => write!(f, "crashed ({signal})"),
            OutcomeKind::Hung { timeout_ms } => write!(f, "hung ({timeout_ms} ms)"),
        }
    }
}

/// Why a case did not pass: the worst answer the implementation gave on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Why {
    /// The section's format version is not one the implementation reads.
    VersionUnsupported,
    /// `decode` answered so.
    Decode(OutcomeKind),
    /// `decode`'s value differs: the first field that differs, and how many do.
    DecodeValue { first: FieldDiff, differing: usize },
    /// `find_fre` at `pc` answered so.
    FindFre { pc: i64, kind: OutcomeKind },
    /// `find_fre`'s row at `pc` differs: the first field that differs.
    FindFreValue { pc: i64, first: FieldDiff },
    /// Fewer answers than PCs asked.
    TooFewAnswers { answers: usize, pcs: usize },
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Why::VersionUnsupported => f.write_str("format version not supported"),
            Why::Decode(a) => write!(f, "decode {a}"),
            Why::DecodeValue { first, differing } => {
                write!(f, "decode: {}", first.field)?;
                match (first.function, first.fre) {
                    (Some(i), Some(k)) => write!(f, " (function {i}, row {k})")?,
                    (Some(i), None) => write!(f, " (function {i})")?,
                    _ => {}
                }
                write!(
                    f,
                    ": expected {}, found {} ({differing} field(s) differ)",
                    first.expected, first.found
                )
            }
            Why::FindFre { pc, kind } => write!(f, "find_fre at pc {pc} {kind}"),
            Why::FindFreValue { pc, first } => write!(
                f,
                "find_fre at pc {pc}: {}: expected {}, found {}",
                first.field, first.expected, first.found
            ),
            Why::TooFewAnswers { answers, pcs } => {
                write!(f, "find_fre: {answers} answers for {pcs} PCs")
            }
        }
    }
}

/// The score of one implementation on a suite.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub implementation: String,
    pub implementation_version: String,
    pub suite: String,
    pub cases: usize,
    /// Per class and version; for `invalid`, `passed` counts refusals and `failed`
    /// acceptances (neither is a failure).
    pub tallies: Vec<Tally>,
    /// Valid and malformed cases that failed, crashed or hung.
    pub failures: Vec<Failure>,
}

/// The result of one case, worst last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Res {
    Passed,
    Unsupported,
    Failed,
    Crashed,
}

impl Res {
    fn name(self) -> &'static str {
        match self {
            Res::Passed => "passed",
            Res::Unsupported => "unsupported",
            Res::Failed => "failed",
            Res::Crashed => "crashed",
        }
    }

    /// The result of an answer as judged; one on a valid section passes when its value
    /// compares equal, which the caller sees to.
    fn of<T>(j: &Judgement<'_, T>) -> Res {
        match j {
            Judgement::Answered(_) | Judgement::RefusedInvalid => Res::Passed,
            Judgement::Unsupported => Res::Unsupported,
            Judgement::AcceptedInvalid | Judgement::RejectedValid { .. } => Res::Failed,
            Judgement::Failed => Res::Crashed,
        }
    }
}

/// The worst result seen in a case so far, and why.
struct Worst {
    res: Res,
    why: Option<Why>,
}

impl Worst {
    fn note(&mut self, res: Res, why: impl FnOnce() -> Why) {
        if res > self.res {
            self.res = res;
            self.why = Some(why());
        }
    }
}

/// Score a valid case: the decode matches and every expected row matches.
fn score_valid(imp: &dyn Implementation, data: &[u8], case: &CaseFile) -> (Res, Option<Why>) {
    let mut worst = Worst {
        res: Res::Passed,
        why: None,
    };
    let d = imp.decode(data);
    match judge(&d, true) {
        Judgement::Answered(value) => {
            if let Some(exp) = &case.expected_decode {
                let diffs = compare::decoded(exp, value);
                if let Some(f) = diffs.first() {
                    worst.note(Res::Failed, || Why::DecodeValue {
                        first: f.clone(),
                        differing: diffs.len(),
                    });
                }
            }
        }
        j => worst.note(Res::of(&j), || Why::Decode(OutcomeKind::of(&d))),
    }
    if worst.res == Res::Crashed {
        return (worst.res, worst.why);
    }
    let rows = case.expected_rows.as_deref().unwrap_or(&[]);
    let pcs: Vec<i64> = rows.iter().map(|l| l.pc).collect();
    if !pcs.is_empty() {
        let found = imp.find_fres(data, &pcs);
        for (l, o) in rows.iter().zip(&found) {
            match judge(o, true) {
                Judgement::Answered(value) => {
                    if let Some(f) = compare::found(&l.row, value).first() {
                        worst.note(Res::Failed, || Why::FindFreValue {
                            pc: l.pc,
                            first: f.clone(),
                        });
                    }
                }
                j => worst.note(Res::of(&j), || Why::FindFre {
                    pc: l.pc,
                    kind: OutcomeKind::of(o),
                }),
            }
        }
        if found.len() < pcs.len() {
            worst.note(Res::Failed, || Why::TooFewAnswers {
                answers: found.len(),
                pcs: pcs.len(),
            });
        }
    }
    (worst.res, worst.why)
}

/// Score `imp` on the suite in `dir`.
pub fn score(dir: &Path, imp: &dyn Implementation) -> Result<Report, String> {
    let cases = read_suite(dir)?;
    let mut tallies: BTreeMap<(usize, VersionTag), Tally> = BTreeMap::new();
    let mut failures = Vec::new();
    for (case, path) in &cases {
        let data = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let t = tallies
            .entry((case.class.rank(), case.version))
            .or_insert_with(|| Tally {
                class: case.class,
                version: case.version,
                cases: 0,
                passed: 0,
                failed: 0,
                unsupported: 0,
                crashed: 0,
                refused: None,
                accepted: None,
            });
        t.cases += 1;
        let supported = section_version(&data).is_none_or(|v| imp.supports(v));
        let (res, why) = if !supported {
            (Res::Unsupported, Some(Why::VersionUnsupported))
        } else if case.class == Class::Valid {
            score_valid(imp, &data, case)
        } else {
            let o = imp.decode(&data);
            (
                Res::of(&judge(&o, false)),
                Some(Why::Decode(OutcomeKind::of(&o))),
            )
        };
        match res {
            Res::Passed => t.passed += 1,
            Res::Failed => t.failed += 1,
            Res::Unsupported => t.unsupported += 1,
            Res::Crashed => t.crashed += 1,
        }
        if let (true, Res::Failed | Res::Crashed, Some(why)) =
            (case.class != Class::Invalid, res, why)
        {
            failures.push(Failure {
                case: format!("{}/{}", case.class, case.name),
                class: case.class,
                result: res.name(),
                why,
            });
        }
    }
    for t in tallies.values_mut().filter(|t| t.class == Class::Invalid) {
        t.refused = Some(t.passed);
        t.accepted = Some(t.failed);
    }
    Ok(Report {
        implementation: imp.name(),
        implementation_version: imp.version(),
        suite: dir.display().to_string(),
        cases: cases.len(),
        tallies: tallies.into_values().collect(),
        failures,
    })
}

impl Report {
    /// Failed cases of the valid and malformed classes.
    pub fn failed(&self) -> usize {
        self.tallies
            .iter()
            .filter(|t| t.class != Class::Invalid)
            .map(|t| t.failed)
            .sum()
    }

    /// The tables, and the first failures.
    pub fn render_text(&self) -> String {
        let mut s = format!(
            "{} {} on the suite {} ({} cases)\n\n",
            self.implementation, self.implementation_version, self.suite, self.cases
        );
        s.push_str(&format!(
            "{:<10} {:<7} {:>6} {:>7} {:>7} {:>12} {:>8}\n",
            "class", "version", "cases", "passed", "failed", "unsupported", "crashed"
        ));
        // cases, passed, failed, unsupported, crashed
        let mut totals = [0usize; 5];
        for t in self.tallies.iter().filter(|t| t.class != Class::Invalid) {
            s.push_str(&format!(
                "{:<10} {:<7} {:>6} {:>7} {:>7} {:>12} {:>8}\n",
                t.class, t.version, t.cases, t.passed, t.failed, t.unsupported, t.crashed
            ));
            for (sum, n) in
                totals
                    .iter_mut()
                    .zip([t.cases, t.passed, t.failed, t.unsupported, t.crashed])
            {
                *sum += n;
            }
        }
        let [cases, passed, failed, unsupported, crashed] = totals;
        s.push_str(&format!(
            "{:<10} {:<7} {:>6} {:>7} {:>7} {:>12} {:>8}\n",
            "total", "", cases, passed, failed, unsupported, crashed
        ));
        s.push_str(
            "\ninvalid cases (decode but break a rule: refusing or accepting is not a failure)\n",
        );
        s.push_str(&format!(
            "{:<10} {:<7} {:>6} {:>7} {:>9} {:>12} {:>8}\n",
            "class", "version", "cases", "refused", "accepted", "unsupported", "crashed"
        ));
        for t in self.tallies.iter().filter(|t| t.class == Class::Invalid) {
            s.push_str(&format!(
                "{:<10} {:<7} {:>6} {:>7} {:>9} {:>12} {:>8}\n",
                t.class, t.version, t.cases, t.passed, t.failed, t.unsupported, t.crashed
            ));
        }
        if !self.failures.is_empty() {
            const SHOWN: usize = 20;
            s.push_str(&format!(
                "\n{} valid/malformed case(s) failed or crashed:\n",
                self.failures.len()
            ));
            for f in self.failures.iter().take(SHOWN) {
                s.push_str(&format!("  {} {}: {}\n", f.result, f.case, f.why));
            }
            if self.failures.len() > SHOWN {
                s.push_str(&format!(
                    "  ... and {} more (--json lists them all)\n",
                    self.failures.len() - SHOWN
                ));
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A failure's `why` is one string in JSON, in the words `suite score` has always used.
    #[test]
    fn a_failure_is_written_as_its_reason() {
        let refused = Failure {
            case: "valid/x".into(),
            class: Class::Valid,
            result: "failed",
            why: Why::Decode(OutcomeKind::Refused(ErrorClass::Named(
                "SFRAME_ERR_BUF_INVAL".into(),
            ))),
        };
        let json = serde_json::to_value(&refused).unwrap();
        assert_eq!(json["why"], "decode refused (SFRAME_ERR_BUF_INVAL)");
        let crashed = Why::FindFre {
            pc: 16,
            kind: OutcomeKind::Crashed(Signal::from_number(11)),
        };
        assert_eq!(crashed.to_string(), "find_fre at pc 16 crashed (SIGSEGV)");
        let few = Why::TooFewAnswers { answers: 1, pcs: 3 };
        assert_eq!(few.to_string(), "find_fre: 1 answers for 3 PCs");
    }
}
