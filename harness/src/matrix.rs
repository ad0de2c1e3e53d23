//! The conformance matrix: for every implementation, which rules it enforces, which it
//! accepts broken, which crash it, and which quirks its reading follows.
//!
//! Built from a run (every section breaking an error-severity rule says, per
//! implementation, whether it was refused, accepted or crashed on; the rule is the section's
//! first error, as in accepted-invalid signatures) and from the ledger (the quirks each
//! finding names, and the findings that explain each acceptance or crash).

use crate::diff::{Case, CaseResult, Discrepancy, Engine};
use crate::ledger::{FindingKind, Ledger};
use serde::Serialize;
use sframe_spec::Quirk;
use std::collections::BTreeMap;

/// What one implementation did with sections whose first broken rule is one rule.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Cell {
    /// Sections it refused.
    pub enforced: usize,
    /// Sections it decoded anyway.
    pub accepted: usize,
    /// Sections it crashed or hung on.
    pub crashed: usize,
    /// The findings explaining the acceptances and crashes (empty when new or none).
    pub findings: Vec<String>,
}

impl Cell {
    /// One letter for the table: `E` enforced, `A` accepted, `C` crashed, `a`/`c` for
    /// acceptance/crash on only some sections, `-` not seen.
    pub fn letter(&self) -> char {
        match (self.enforced, self.accepted, self.crashed) {
            (0, 0, 0) => '-',
            (_, _, c) if c > 0 && self.enforced + self.accepted == 0 => 'C',
            (_, _, c) if c > 0 => 'c',
            (0, _, _) => 'A',
            (_, a, _) if a > 0 => 'a',
            _ => 'E',
        }
    }
}

/// The matrix.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Matrix {
    /// Rule ID, then implementation.
    pub rules: BTreeMap<String, BTreeMap<String, Cell>>,
    /// Per implementation, the quirks its reading follows and the finding naming each.
    pub quirks: BTreeMap<String, Vec<(Quirk, String)>>,
    /// Per implementation, the crash and hang signatures seen, with their findings.
    pub crashes: BTreeMap<String, BTreeMap<String, Option<String>>>,
    /// Implementations seen in the run.
    pub implementations: Vec<String>,
    /// Sections in the run, and how many break an error-severity rule.
    pub sections: usize,
    pub invalid: usize,
}

impl Matrix {
    /// The quirks of `ledger`'s findings, with nothing run yet.
    pub fn from_ledger(ledger: &Ledger) -> Matrix {
        let mut m = Matrix::default();
        for f in &ledger.findings {
            for (imp, qs) in &f.quirks {
                let e = m.quirks.entry(imp.clone()).or_default();
                e.extend(qs.iter().map(|&q| (q, f.id.clone())));
            }
        }
        m
    }

    /// The matrix of `engine`'s run on `cases`, with the quirks and findings of `ledger`.
    pub fn of_run<'a>(
        engine: &Engine,
        ledger: &Ledger,
        cases: impl IntoIterator<Item = &'a Case>,
    ) -> Matrix {
        let mut m = Matrix::from_ledger(ledger);
        for c in cases {
            m.add(&engine.run_case(c), ledger);
        }
        m
    }

    /// Account for one section's results.
    pub fn add(&mut self, r: &CaseResult, ledger: &Ledger) {
        self.sections += 1;
        if !r.valid {
            self.invalid += 1;
        }
        for ir in &r.results {
            if !self.implementations.contains(&ir.implementation) {
                self.implementations.push(ir.implementation.clone());
            }
            let failure = |d: &&Discrepancy| d.is_failure();
            for d in ir.discrepancies.iter().filter(failure) {
                self.crashes
                    .entry(ir.implementation.clone())
                    .or_default()
                    .insert(
                        d.signature.to_string(),
                        ledger.account(d).label().map(str::to_string),
                    );
            }
            let (Some(rule), crate::diff::Status::Discrepant | crate::diff::Status::Agree) =
                (&r.first_error, ir.status)
            else {
                continue;
            };
            let decode_failed = ir
                .discrepancies
                .iter()
                .filter(|d| d.op() == crate::diff::Op::Decode)
                .find(failure);
            let accepted = ir
                .discrepancies
                .iter()
                .find(|d| d.kind() == FindingKind::AcceptedInvalid);
            let cell = self
                .rules
                .entry(rule.clone())
                .or_default()
                .entry(ir.implementation.clone())
                .or_default();
            let explained = match (decode_failed, accepted) {
                (Some(d), _) => {
                    cell.crashed += 1;
                    ledger.account(d).label().map(str::to_string)
                }
                (None, Some(d)) => {
                    cell.accepted += 1;
                    ledger.account(d).label().map(str::to_string)
                }
                (None, None) => {
                    cell.enforced += 1;
                    None
                }
            };
            if let Some(id) = explained {
                if !cell.findings.contains(&id) {
                    cell.findings.push(id);
                }
            }
        }
    }

    /// The table for people.
    pub fn render_text(&self) -> String {
        let mut imps = self.implementations.clone();
        imps.sort();
        let mut out = format!(
            "{} sections, {} breaking an error-severity rule\n\nRules (E enforced: refused; A accepted broken; C crashed; a/c on some sections; - not met)\n\n",
            self.sections, self.invalid
        );
        let short: Vec<String> = imps.iter().map(|i| abbreviate(i)).collect();
        out.push_str(&format!("{:<24}", "rule"));
        for s in &short {
            out.push_str(&format!(" {s:>9}"));
        }
        out.push('\n');
        for (rule, per) in &self.rules {
            out.push_str(&format!("{rule:<24}"));
            for imp in &imps {
                let c = per.get(imp).map_or('-', Cell::letter);
                out.push_str(&format!(" {c:>9}"));
            }
            out.push('\n');
        }
        out.push_str("\nColumns: ");
        let legend: Vec<String> = imps
            .iter()
            .zip(&short)
            .map(|(i, s)| format!("{s} = {i}"))
            .collect();
        out.push_str(&legend.join(", "));
        out.push_str(
            "\n\nQuirks each implementation's reading follows (reproduced by the reference)\n\n",
        );
        for (imp, qs) in &self.quirks {
            for (q, f) in qs {
                out.push_str(&format!("  {imp:<18} {:<36} {f}\n", q.name()));
            }
        }
        out.push_str("\nCrashes and hangs seen\n\n");
        for (imp, sigs) in &self.crashes {
            for (sig, f) in sigs {
                out.push_str(&format!(
                    "  {imp:<18} {sig}  {}\n",
                    f.as_deref().unwrap_or("NEW")
                ));
            }
        }
        out
    }
}

/// A column title of at most 9 characters: `libsframe-2.47` -> `lib2.47`.
fn abbreviate(name: &str) -> String {
    let s = name
        .replace("libsframe-", "lib")
        .replace("objdump-", "objd")
        .replace("llvm-readobj-", "llvm")
        .replace("simple-frame-rs", "sfrs");
    s.chars().take(9).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_says_what_happened_on_most_sections() {
        let c = |e, a, k| Cell {
            enforced: e,
            accepted: a,
            crashed: k,
            findings: vec![],
        };
        assert_eq!(c(0, 0, 0).letter(), '-');
        assert_eq!(c(3, 0, 0).letter(), 'E');
        assert_eq!(c(0, 2, 0).letter(), 'A');
        assert_eq!(c(2, 2, 0).letter(), 'a');
        assert_eq!(c(0, 0, 1).letter(), 'C');
        assert_eq!(c(1, 0, 1).letter(), 'c');
        assert_eq!(abbreviate("libsframe-2.47"), "lib2.47");
        assert_eq!(abbreviate("llvm-readobj-23"), "llvm23");
    }
}
