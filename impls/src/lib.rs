//! # sframe-impls
//!
//! The implementations this suite provisions beside the reference, found where `ci/`
//! provisions them, and built by name: the [`registry`]; toolchain discovery
//! ([`toolchains`]: libsframe of each release, objdump, glibc's SFrame reader, the
//! `sframe-worker` binary) and the instrumented builds of those libraries
//! ([`instrumented`]), and the runs of a finding's reproducers on them ([`asan_triage`]); and
//! the adapters that need more than [`sframe_harness::impls`]:
//! `simple-frame-rs` in process ([`simple_frame`]), the text of `objdump --sframe`
//! ([`objdump`]) and of `llvm-readobj --sframe` ([`llvm_readobj`]), with what the two share
//! ([`text_tool`]).
//!
//! GNU libsframe and glibc's reader are GPL code: they are hosted by the `sframe-worker`
//! process and spoken to over pipes, never linked here, so this crate stays Apache-2.0 OR MIT.

#![forbid(unsafe_code)]

pub mod asan_triage;
pub mod instrumented;
pub mod llvm_readobj;
pub mod objdump;
pub mod registry;
pub mod text_tool;
pub mod toolchains;
pub mod trigger_agreement;

/// Declares the in-process adapters: each `module => Type` is the file `src/<module>.rs`
/// (made `pub mod module`) and the adapter it defines, a `Default` type implementing
/// [`sframe_harness::impls::Implementation`]; [`registry::Registry::discover`] lists them
/// after the reference, in this order.
macro_rules! in_process {
    ($($module:ident => $adapter:ident,)*) => {
        $(pub mod $module;)*

        /// A fresh instance of every in-process adapter ([`in_process!`]).
        pub fn in_process() -> Vec<std::sync::Arc<dyn sframe_harness::impls::Implementation>> {
            vec![$(std::sync::Arc::new(<$module::$adapter>::default()),)*]
        }
    };
}

// The in-process adapters, one line each (`impls/ADDING.md`).
in_process! {
    simple_frame => SimpleFrame,
}

/// The guide for adding an implementation (`impls/ADDING.md`); its example is a doctest.
#[doc = include_str!("../ADDING.md")]
pub mod guide {}
