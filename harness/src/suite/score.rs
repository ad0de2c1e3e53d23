//! Scoring an implementation on a suite: every case's answers judged as the differential
//! engine judges them ([`judge`], [`compare`]) against the case file's expectations, tallied
//! per class and version, with the table `suite score` prints.

use super::format::{read_suite, CaseFile, Class};
use crate::diff::{compare, judge, Judgement};
use crate::impls::{section_version, Implementation, Outcome};
use crate::signature::VersionTag;
use serde::Serialize;
use std::collections::BTreeMap;
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
    pub result: String,
    pub why: String,
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

fn describe<T>(o: &Outcome<T>) -> String {
    match o {
        Outcome::Ok { .. } => "accepted".into(),
        Outcome::Rejected { class, .. } => format!("refused ({class})"),
        Outcome::Unsupported { reason } => format!("unsupported ({reason})"),
        Outcome::Crashed { signal, .. } => format!("crashed ({signal})"),
        Outcome::Hung { timeout_ms } => format!("hung ({timeout_ms} ms)"),
    }
}

/// The worst result seen in a case so far, and why.
struct Worst {
    res: Res,
    why: String,
}

impl Worst {
    fn note(&mut self, res: Res, why: impl FnOnce() -> String) {
        if res > self.res {
            self.res = res;
            self.why = why();
        }
    }
}

/// Score a valid case: the decode matches and every expected row matches.
fn score_valid(imp: &dyn Implementation, data: &[u8], case: &CaseFile) -> (Res, String) {
    let mut worst = Worst {
        res: Res::Passed,
        why: String::new(),
    };
    let d = imp.decode(data);
    match judge(&d, true) {
        Judgement::Answered(value) => {
            if let Some(exp) = &case.expected_decode {
                let diffs = compare::decoded(exp, value);
                if let Some(f) = diffs.first() {
                    let at = match (f.function, f.fre) {
                        (Some(i), Some(k)) => format!(" (function {i}, row {k})"),
                        (Some(i), None) => format!(" (function {i})"),
                        _ => String::new(),
                    };
                    worst.note(Res::Failed, || {
                        format!(
                            "decode: {}{at}: expected {}, found {} ({} field(s) differ)",
                            f.field,
                            f.expected,
                            f.found,
                            diffs.len()
                        )
                    });
                }
            }
        }
        j => worst.note(Res::of(&j), || format!("decode {}", describe(&d))),
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
                        worst.note(Res::Failed, || {
                            format!(
                                "find_fre at pc {}: {}: expected {}, found {}",
                                l.pc, f.field, f.expected, f.found
                            )
                        });
                    }
                }
                j => worst.note(Res::of(&j), || {
                    format!("find_fre at pc {} {}", l.pc, describe(o))
                }),
            }
        }
        if found.len() < pcs.len() {
            worst.note(Res::Failed, || {
                format!("find_fre: {} answers for {} PCs", found.len(), pcs.len())
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
            (Res::Unsupported, "format version not supported".to_string())
        } else if case.class == Class::Valid {
            score_valid(imp, &data, case)
        } else {
            let o = imp.decode(&data);
            (
                Res::of(&judge(&o, false)),
                format!("decode {}", describe(&o)),
            )
        };
        match res {
            Res::Passed => t.passed += 1,
            Res::Failed => t.failed += 1,
            Res::Unsupported => t.unsupported += 1,
            Res::Crashed => t.crashed += 1,
        }
        if case.class != Class::Invalid && matches!(res, Res::Failed | Res::Crashed) {
            failures.push(Failure {
                case: format!("{}/{}", case.class, case.name),
                class: case.class,
                result: res.name().to_string(),
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
