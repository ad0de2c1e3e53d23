//! `sframe-worker`: hosts one SFrame implementation in its own process and answers the
//! harness's JSON-lines protocol (`sframe_harness::impls::protocol`) on stdin/stdout.
//!
//! ```text
//! sframe-worker --libsframe PATH --release 2.44 [--version 2.44-3]   GNU libsframe via dlopen
//! sframe-worker --impl reference|simple-frame-rs                       an in-library adapter
//! ```
//!
//! Each libsframe request runs in a forked child (`forking`): a crash of the hosted library
//! (segfault, abort) kills only that child, and the worker answers `crashed` with the child's
//! last words. Should the worker itself die, the harness reports it and starts a new one.

mod ffi;
mod forking;
mod libsframe;

use sframe_harness::impls::protocol::serve;
use sframe_harness::impls::reference::Reference;
use sframe_harness::impls::simple_frame::SimpleFrame;
use sframe_harness::impls::Implementation;
use std::path::PathBuf;
use std::process::ExitCode;

fn usage(msg: &str) -> ExitCode {
    eprintln!("sframe-worker: {msg}\nusage: sframe-worker --libsframe PATH --release REL [--version VER] | --impl reference|simple-frame-rs");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (mut lib, mut release, mut version, mut name) = (
        None::<PathBuf>,
        None::<String>,
        None::<String>,
        None::<String>,
    );
    while let Some(a) = args.next() {
        match a.as_str() {
            "--libsframe" => lib = args.next().map(PathBuf::from),
            "--release" => release = args.next(),
            "--version" => version = args.next(),
            "--impl" => name = args.next(),
            other => return usage(&format!("unknown argument {other:?}")),
        }
    }
    // GNU libsframe is served one forked child per request (see `forking`); the Rust
    // adapters, which cannot crash the process, in the worker itself.
    let fork = lib.is_some();
    let imp: Box<dyn Implementation> = match (lib, name.as_deref()) {
        (Some(path), None) => {
            let Some(release) = release else {
                return usage("--libsframe needs --release");
            };
            ffi::install_crash_reporter();
            let version = version.unwrap_or_else(|| release.clone());
            match libsframe::Libsframe::open(&path, &release, &version) {
                Ok(l) => Box::new(l),
                Err(e) => {
                    eprintln!("sframe-worker: {e}");
                    return ExitCode::from(1);
                }
            }
        }
        (None, Some("reference")) => Box::new(Reference),
        (None, Some("simple-frame-rs")) => Box::new(SimpleFrame),
        _ => return usage("say which implementation to host"),
    };
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let served = if fork {
        forking::serve(imp.as_ref(), stdin.lock(), stdout.lock())
    } else {
        serve(imp.as_ref(), stdin.lock(), stdout.lock())
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sframe-worker: {e}");
            ExitCode::from(1)
        }
    }
}
