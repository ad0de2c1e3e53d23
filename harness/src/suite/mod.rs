//! A conformance suite for SFrame readers in any language, written as plain files (raw
//! `.sframe` sections beside JSON expectations), and the scoring of an implementation
//! against such a suite.
//!
//! [`export()`] takes the bundled corpus (`corpus/elf`), the built-in seeds and N mutations of
//! them, classifies each distinct section with the reference and the rule catalogue
//! ([`classify()`]: valid, malformed, invalid), and writes
//! `DIR/{valid,malformed,invalid}/NAME.sframe` with `NAME.json` ([`CaseFile`]: source,
//! version, expected decode, expected rows at a set of PCs, rules broken), `DIR/index.json`
//! and `DIR/README.md`. [`score()`] runs an implementation on every case of such a directory
//! and tallies per class and version ([`Report`]); an answer is judged as the differential
//! engine judges one ([`crate::diff::judge`], [`crate::diff::compare`]).
//!
//! The parts: `format` (the files: [`Class`], [`CaseFile`], case names, [`read_suite`]),
//! `classify` (a section's class and expectations), `export` (the sources and the writing),
//! `score` (the tallies and their table).

mod classify;
mod export;
mod format;
mod score;

pub use classify::classify;
pub use export::{export, sources, ExportSettings, ExportSummary};
pub use format::{case_name, fnv1a, read_suite, Broken, CaseFile, Class, Lookup, MAX_PCS};
pub use score::{score, Failure, OutcomeKind, Report, Tally, Why};
