//! [`Gate`]: the gate in a few lines. One implementation beside the reference on a corpus
//! (by default [`Corpus::standard`]); its known deviations explained by a findings ledger of
//! its own (quirks of the reference that reproduce its answers) or, where no quirk of the
//! reference reproduces one, accepted by exact signature with a reason.
//!
//! ```no_run
//! # use sframe_harness::prelude::*;
//! # struct MyParser;
//! # impl Implementation for MyParser {
//! #     fn name(&self) -> String { "my-parser".into() }
//! #     fn version(&self) -> String { "0.1.0".into() }
//! #     fn supports(&self, v: Version) -> bool { true }
//! #     fn decode(&self, data: &[u8]) -> Outcome<Decoded> { todo!() }
//! #     fn find_fre(&self, data: &[u8], pc: i64) -> Outcome<Option<Found>> { todo!() }
//! # }
//! Gate::new(&MyParser)
//!     .ledger(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/sframe-findings"))
//!     .accept("rejected-valid:my-parser:v2:decode:big-endian", "big endian is not read, on purpose")
//!     .assert();
//! ```

use super::{run_explained, Corpus, Report};
use crate::diff::Discrepancy;
use crate::impls::Implementation;
use crate::ledger::Ledger;
use crate::signature::Signature;
use std::path::Path;

/// A deviation accepted by its exact signature, with the reason (for people reading the test).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Acceptance {
    pub signature: Signature,
    pub reason: String,
}

/// A conformance gate for one implementation.
pub struct Gate<'a> {
    imp: &'a dyn Implementation,
    corpus: Option<Corpus>,
    scale: usize,
    ledger: Ledger,
    accepted: Vec<Acceptance>,
}

impl<'a> Gate<'a> {
    /// A gate for `imp` on the standard corpus at scale 1 (`$SFRAME_GATE_SCALE` when set),
    /// with no ledger and nothing accepted.
    pub fn new(imp: &'a dyn Implementation) -> Gate<'a> {
        let scale = std::env::var("SFRAME_GATE_SCALE")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(1);
        Gate {
            imp,
            corpus: None,
            scale,
            ledger: Ledger::default(),
            accepted: Vec::new(),
        }
    }

    /// Run on `corpus` instead of the standard one.
    pub fn corpus(mut self, corpus: Corpus) -> Gate<'a> {
        self.corpus = Some(corpus);
        self
    }

    /// The standard corpus at `scale` (more generated sections and mutations).
    pub fn scale(mut self, scale: usize) -> Gate<'a> {
        self.scale = scale;
        self
    }

    /// Explain deviations with the findings ledger in `dir` (the layout of `corpus/findings`).
    ///
    /// # Panics
    /// When `dir` is not a directory, or the ledger cannot be read, naming the file and what
    /// is wrong: a gate never runs without the ledger it was given.
    pub fn ledger(mut self, dir: impl AsRef<Path>) -> Gate<'a> {
        let dir = dir.as_ref();
        assert!(
            dir.is_dir(),
            "the ledger {} is not a directory",
            dir.display()
        );
        self.ledger = Ledger::load(dir)
            .unwrap_or_else(|e| panic!("the ledger {} cannot be read: {e}", dir.display()));
        self
    }

    /// Accept the deviation with exactly this signature (as the gate's listing prints it),
    /// for `reason`. An acceptance that matches nothing fails [`Gate::assert`]: it is stale.
    ///
    /// # Panics
    /// When `signature` is not a signature.
    pub fn accept(mut self, signature: &str, reason: &str) -> Gate<'a> {
        let parsed = signature
            .parse()
            .unwrap_or_else(|e| panic!("accept({signature:?}): not a signature: {e}"));
        self.accepted.push(Acceptance {
            signature: parsed,
            reason: reason.to_string(),
        });
        self
    }

    /// Run the gate.
    pub fn run(&self) -> Report {
        let standard;
        let corpus = match &self.corpus {
            Some(c) => c,
            None => {
                standard = Corpus::standard(self.scale);
                &standard
            }
        };
        run_explained(self.imp, corpus, &self.ledger)
    }

    /// The discrepancies of `report` that neither the ledger nor an acceptance covers.
    pub fn unexplained<'r>(&'r self, report: &'r Report) -> Vec<(&'r str, &'r Discrepancy)> {
        report
            .unexplained(&self.ledger)
            .into_iter()
            .filter(|(_, d)| !self.accepted.iter().any(|a| a.signature == d.signature))
            .collect()
    }

    /// Check one input (a fuzz target's): `Err` lists its discrepancies that neither the
    /// ledger nor an acceptance covers.
    pub fn check_input(&self, name: &str, data: &[u8]) -> Result<(), String> {
        let mut corpus = Corpus::default();
        corpus.push(name, data.to_vec());
        let report = run_explained(self.imp, &corpus, &self.ledger);
        let unexplained = self.unexplained(&report);
        if unexplained.is_empty() {
            return Ok(());
        }
        Err(listing(&report, &unexplained, &[]))
    }

    /// Run the gate and panic, listing them, when a discrepancy is unexplained or an
    /// acceptance matched nothing.
    pub fn assert(self) {
        let report = self.run();
        let unexplained = self.unexplained(&report);
        let stale: Vec<&Acceptance> = self
            .accepted
            .iter()
            .filter(|a| {
                !report
                    .discrepancies()
                    .any(|(_, d)| d.signature == a.signature)
            })
            .collect();
        if !unexplained.is_empty() || !stale.is_empty() {
            panic!("{}", listing(&report, &unexplained, &stale));
        }
    }
}

/// The failure message: one line per unexplained signature (its count and its first case),
/// one per stale acceptance.
fn listing(report: &Report, unexplained: &[(&str, &Discrepancy)], stale: &[&Acceptance]) -> String {
    let mut s = format!(
        "{}: {} unexplained discrepancies, {} stale acceptances\n",
        report.implementation,
        unexplained.len(),
        stale.len()
    );
    let mut by_sig: std::collections::BTreeMap<String, (usize, &str, &Discrepancy)> =
        Default::default();
    for &(case, d) in unexplained {
        by_sig
            .entry(d.signature.to_string())
            .or_insert((0, case, d))
            .0 += 1;
    }
    for (sig, (n, case, d)) in by_sig {
        s.push_str(&format!(
            "  {sig} ({n}x), first in {case}: reference {} / found {}\n",
            d.expected, d.found
        ));
    }
    for a in stale {
        s.push_str(&format!(
            "  accepted but not seen: {} ({})\n",
            a.signature, a.reason
        ));
    }
    s
}
