//! The implementations of [`sframe_harness::impls`] (re-exported here: the trait, the row
//! model, the reference and external programs) and the adapters that need more than the
//! permissive crates: `simple-frame-rs` in process, the text of `objdump --sframe` and of
//! `llvm-readobj --sframe`, GNU libsframe in `sframe-worker` processes, and the registry
//! that builds them by name from what is provisioned here.

pub use sframe_harness::impls::*;

pub mod llvm_readobj;
pub mod objdump;
pub mod registry;
pub mod simple_frame;
pub mod text_tool;
pub mod toolchains;
