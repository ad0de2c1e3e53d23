//! # sframe-harness
//!
//! The machinery behind `sframe-conform`: reading inputs (ELF files or raw sections),
//! reporting rule violations, dumping sections, and (in later modules) putting SFrame
//! implementations side by side.

#![forbid(unsafe_code)]

pub mod check;
pub mod dump;
pub mod hexdump;
pub mod input;
pub mod ledger;
pub mod rules_cmd;
