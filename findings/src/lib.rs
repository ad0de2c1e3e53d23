//! The vocabulary of findings, below every crate that produces or judges discrepancies.
//!
//! A [`signature::Signature`] names what disagreed (a reader's field, a refusal, a crash and
//! its site, an oracle's or a crosscheck's mismatch, a producer's broken rule), in which
//! implementation and release, on what layout; [`signature::SignaturePattern`] is how a
//! findings ledger entry matches them. The readers' harness, the emulator oracle and the
//! producers' crosscheck all build these types, and only this crate prints and parses their
//! text. The [`ledger`] is the findings themselves (`corpus/findings/*/finding.json`, with
//! their verdicts, claims and upstream statuses) and the one question a tool asks it of a
//! discrepancy: [`ledger::Ledger::account`].

pub mod ledger;
pub mod signature;
