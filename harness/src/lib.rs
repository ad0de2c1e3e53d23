//! # sframe-harness
//!
//! Putting SFrame implementations side by side, without the command line or anything that
//! links foreign code: [`impls`] (the implementation trait, the row model, the reference
//! adapter and external programs speaking the JSON-lines protocol), [`diff`] (the
//! differential engine, minimization, mutation, seeds and the ledger records), [`ledger`]
//! (the findings ledger), [`gate`] (the same as a library call for a downstream crate's
//! tests), [`suite`] (a conformance suite as plain files for readers in any language, and
//! scoring against it), [`matrix`] (rules by implementations) [`input`] (reading ELF files or raw
//! sections) and [`walk`] (the files and directories of a command line, every file reported).
//!
//! The `sframe-conform` command, the adapters of foreign implementations (GNU libsframe,
//! simple-frame-rs, objdump, llvm-readobj) and the emulator oracle are in the
//! `sframe-conform` crate.

#![forbid(unsafe_code)]

pub mod claim;
pub mod diff;
pub mod findings_index;
pub mod gate;
pub mod hexdump;
pub mod impls;
pub mod input;
pub mod ledger;
pub mod matrix;
pub mod prelude;
pub mod report;
pub mod sanitizer;
pub use sframe_findings::ledger::upstream_status;
pub use sframe_findings::signature;
pub mod suite;
pub mod walk;

/// The cache `ci/toolchains` and `ci/upstream-sources` fill (its home: `sframe-provision`).
pub use sframe_provision::cache_dir;
