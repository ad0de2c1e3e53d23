//! # sframe-conform
//!
//! The `sframe-conform` command and what it needs beyond the permissive
//! [`sframe_harness`] and [`sframe_impls`] (the registry of provisioned implementations and
//! their adapters): the `diff` and `impls` commands ([`diff_cmd`]), `check`, `dump`, `rules`,
//! `bench`, `crosscheck` ([`crosscheck_cmd`]: SFrame against `.eh_frame` in any file), and
//! the emulator oracle ([`oracle_cmd`], [`stackwalk`], and `produce --patterns` in
//! [`produce_cmd`]), which links Unicorn (GPL-2.0): this crate is GPL-2.0-or-later. Those three
//! need the default feature `oracle`;
//! without it the crate builds the `sframe-worker` binary alone, without the emulator.

#![forbid(unsafe_code)]

/// The runs of reproducers on instrumented builds (their home: [`sframe_impls::asan_triage`]).
pub use sframe_impls::asan_triage;
pub mod bench;
pub mod bench_summary;
pub mod check;
#[cfg(feature = "oracle")]
pub mod crosscheck_cmd;
pub mod diff_cmd;
pub mod dump;
pub mod matrix_cmd;
#[cfg(feature = "oracle")]
pub mod oracle_blame;
#[cfg(feature = "oracle")]
pub mod oracle_cmd;
pub mod out;
#[cfg(feature = "oracle")]
pub mod produce_cmd;
pub mod report_cmd;
pub mod rules_cmd;
#[cfg(feature = "oracle")]
pub mod stackwalk;
pub mod suite_cmd;
pub use sframe_impls::trigger_agreement;
pub mod walking;
