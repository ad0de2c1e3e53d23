//! `sframe-worker`: the process that hosts GNU libsframe (see the `sframe-worker` crate), with
//! the in-process adapters of this crate available to `--impl`.

use sframe_impls::simple_frame::SimpleFrame;
use std::process::ExitCode;

// The hosted library's heap blocks on guard pages (see `sframe_worker::guarded_heap`).
sframe_worker::export_guarded_heap!();
// The SanitizerCoverage hooks of an instrumented library (see `sframe_worker::coverage`).
sframe_worker::export_coverage_hooks!();
// Failed assertions of the hosted library, recovered from (see `sframe_worker::recover`).
sframe_worker::export_assert_fail!();

fn main() -> ExitCode {
    sframe_worker::main(&[("simple-frame-rs", || Box::new(SimpleFrame))])
}
