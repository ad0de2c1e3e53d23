//! The conformance gate for downstream parsers: put an [`Implementation`] beside the
//! reference on a corpus, in your own `cargo test`.
//!
//! ```no_run
//! use sframe_harness::prelude::*;
//!
//! struct MyParser;
//! impl Implementation for MyParser {
//!     fn name(&self) -> String { "my-parser".into() }
//!     fn version(&self) -> String { env!("CARGO_PKG_VERSION").into() }
//!     fn supports(&self, v: Version) -> bool { v != Version::V1 }
//!     fn decode(&self, data: &[u8]) -> Outcome<Decoded> { todo!("normalize my parser's view") }
//!     fn find_fre(&self, data: &[u8], pc: i64) -> Outcome<Option<Found>> { todo!() }
//! }
//!
//! // The standard corpus: real sections, generated ones of every version, ABI and layout
//! // tag, and their mutations. Panics listing every unexplained discrepancy.
//! Gate::new(&MyParser).assert();
//! ```
//!
//! [`Gate`] ([`run`], [`run_explained`] underneath) compares decode and look-ups of every
//! section with the reference and classifies differences exactly as `sframe-conform diff`
//! does (signatures, accepted-invalid, rejected-valid, crashes as panics caught); a findings
//! ledger of your own explains known deviations by quirks of the reference, and
//! [`Gate::accept`] accepts one by exact signature when no quirk reproduces it.

use crate::diff::{CaseResult, Discrepancy, Engine};
use crate::impls::{Decoded, Found, Hosting, Implementation, Outcome};
use crate::ledger::Ledger;
use sframe_spec::Version;

mod builder;
mod corpus;
pub use builder::{Acceptance, Gate};
pub use corpus::Corpus;

/// The outcome of a gate run.
#[derive(Debug, Clone)]
pub struct Report {
    pub implementation: String,
    pub results: Vec<CaseResult>,
}

impl Report {
    /// Every discrepancy, with the case it was seen on.
    pub fn discrepancies(&self) -> impl Iterator<Item = (&str, &Discrepancy)> {
        self.results
            .iter()
            .flat_map(|r| r.discrepancies().map(move |d| (r.case.as_str(), d)))
    }
    /// Sections the implementation agreed on (unsupported ones are not agreement).
    pub fn agreed(&self) -> usize {
        self.results
            .iter()
            .filter(|r| {
                r.results
                    .iter()
                    .all(|i| i.status == crate::diff::Status::Agree)
            })
            .count()
    }
    /// Sections it declared unsupported.
    pub fn unsupported(&self) -> usize {
        self.results
            .iter()
            .filter(|r| {
                r.results
                    .iter()
                    .any(|i| i.status == crate::diff::Status::Unsupported)
            })
            .count()
    }
    /// Discrepancies no finding of `ledger` covers.
    pub fn unexplained<'a>(&'a self, ledger: &'a Ledger) -> Vec<(&'a str, &'a Discrepancy)> {
        self.discrepancies()
            .filter(|(_, d)| ledger.account(d).is_new())
            .collect()
    }
    /// A readable listing of the discrepancies (first of each signature, with counts).
    pub fn summary(&self) -> String {
        let mut by_sig: std::collections::BTreeMap<String, (usize, &str, &Discrepancy)> =
            Default::default();
        for (case, d) in self.discrepancies() {
            by_sig
                .entry(d.signature.to_string())
                .or_insert((0, case, d))
                .0 += 1;
        }
        let mut out = format!(
            "{}: {} sections, {} agree, {} unsupported, {} distinct discrepancies\n",
            self.implementation,
            self.results.len(),
            self.agreed(),
            self.unsupported(),
            by_sig.len()
        );
        for (sig, (n, case, d)) in by_sig {
            out.push_str(&format!(
                "  {sig} ({n}x), first in {case}: reference {} / found {}\n",
                d.expected, d.found
            ));
        }
        out
    }
    /// Panic listing every discrepancy, if there is one.
    pub fn assert_clean(&self) {
        if self.discrepancies().next().is_some() {
            panic!("{}", self.summary());
        }
    }
    /// Panic listing the discrepancies `ledger` does not cover, if there is one.
    pub fn assert_explained(&self, ledger: &Ledger) {
        let u = self.unexplained(ledger);
        if !u.is_empty() {
            let mut s = format!("{} unexplained discrepancies:\n", u.len());
            for (case, d) in u.iter().take(50) {
                s.push_str(&format!(
                    "  {} in {case}: reference {} / found {}\n",
                    d.signature, d.expected, d.found
                ));
            }
            panic!("{s}");
        }
    }
}

/// An in-process implementation behind `catch_unwind`: a panic is a crash, not a failed test.
struct Guarded<'a>(&'a dyn Implementation);

impl Implementation for Guarded<'_> {
    fn name(&self) -> String {
        self.0.name()
    }
    fn version(&self) -> String {
        self.0.version()
    }
    fn supports(&self, v: Version) -> bool {
        self.0.supports(v)
    }
    fn hosting(&self) -> Hosting {
        self.0.hosting()
    }
    fn decode(&self, data: &[u8]) -> Outcome<Decoded> {
        crate::impls::guard::guarded(|| self.0.decode(data))
    }
    fn find_fre(&self, data: &[u8], pc: i64) -> Outcome<Option<Found>> {
        crate::impls::guard::guarded(|| self.0.find_fre(data, pc))
    }
    fn find_fres(&self, data: &[u8], pcs: &[i64]) -> Vec<Outcome<Option<Found>>> {
        pcs.iter().map(|&pc| self.find_fre(data, pc)).collect()
    }
}

/// Compare `imp` with the reference on every section of `corpus`.
pub fn run(imp: &dyn Implementation, corpus: &Corpus) -> Report {
    run_explained(imp, corpus, &Ledger::default())
}

/// [`run`], explaining value discrepancies with the quirks of `ledger`'s findings: a
/// disagreement is explained only when the reference with the quirks a finding names for
/// this implementation gives exactly its answer (see [`crate::diff::explain`]). Follow with
/// [`Report::assert_explained`] on the same ledger.
pub fn run_explained(imp: &dyn Implementation, corpus: &Corpus, ledger: &Ledger) -> Report {
    let guarded = Guarded(imp);
    let max_pcs = crate::diff::Settings::default().max_pcs;
    let quirks = crate::diff::explain::QuirkTable::from_ledger(ledger);
    let results = corpus
        .cases
        .iter()
        .map(|c| Engine::run_case_explained(&guarded, c, max_pcs, &quirks))
        .collect();
    Report {
        implementation: imp.name(),
        results,
    }
}
