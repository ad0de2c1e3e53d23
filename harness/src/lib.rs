//! # sframe-harness
//!
//! The machinery behind `sframe-conform`: reading inputs (ELF files or raw sections),
//! reporting rule violations, dumping sections, and putting SFrame implementations side by
//! side: [`impls`] (the implementations behind one trait), [`diff`] (the differential
//! engine, minimization and the ledger records), [`gate`] (the same as a library call for
//! downstream tests) and [`bench`].

#![forbid(unsafe_code)]

pub mod bench;
pub mod check;
pub mod diff;
pub mod dump;
pub mod gate;
pub mod hexdump;
pub mod impls;
pub mod input;
pub mod ledger;
pub mod matrix;
pub mod oracle_cmd;
pub mod rules_cmd;
pub mod stackwalk;
