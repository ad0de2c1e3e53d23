//! The input-reading functions the `diff` command of `sframe-conform` used to keep here; they
//! are in [`crate::input`] now (the command itself is in the `sframe-conform` crate). Kept so
//! that `sframe_harness::diff::cmd::{corpus_cases, read_cases, corpus_dir}` still resolve.

pub use crate::input::{corpus_cases, corpus_dir, read_cases};
