//! `sframe-worker`: hosts one SFrame implementation in its own process and answers the
//! harness's JSON-lines protocol (`sframe_harness::impls::protocol`) on stdin/stdout.
//!
//! ```text
//! sframe-worker --libsframe PATH --release 2.44 [--version 2.44-3]   GNU libsframe via dlopen
//! sframe-worker --glibc PATH --release 2.43 [--version 2.43-6]       glibc's SFrame reader
//! sframe-worker --impl reference|simple-frame-rs                       an in-library adapter
//! ```
//!
//! libsframe requests run in a forked child (`forking`): a crash of the hosted library
//! (segfault, abort) kills only that child, and the worker answers `crashed` with the last
//! words of a second try. A clean crash (a fault on a guard page, a failed assertion) is
//! recovered from in the child instead, which goes on serving (`recover`;
//! `SFRAME_WORKER_RECOVER=0` turns that off). Should the worker itself die, the harness reports it and starts a new one.
//!
//! This crate is the worker's code, with the bindings to GNU libsframe (`ffi`, one type per
//! release), the guard-page input buffer (`guard`) and the children's crash reporter
//! (`crash`): the only `unsafe` code of the suite. The `sframe-worker` binary is built by
//! the `sframe-conform` crate (`cli/src/bin/sframe-worker.rs`, which calls [`main`] and adds
//! the in-process adapters it has), so that it lands beside `sframe-conform`, where the
//! registry looks for it.

mod asan_input;
pub mod coverage;
mod crash;
mod ffi;
mod forking;
mod glibc;
mod guard;
pub mod guarded_heap;
mod hop;
mod libsframe;
pub mod recover;
mod stage;
mod symbols;

use sframe_harness::impls::protocol::serve;
use sframe_harness::impls::reference::Reference;
use sframe_harness::impls::Implementation;
use std::path::PathBuf;
use std::process::ExitCode;

fn usage(msg: &str, names: &str) -> ExitCode {
    eprintln!("sframe-worker: {msg}\nusage: sframe-worker (--libsframe PATH | --glibc PATH) --release REL [--version VER] | --impl {names}");
    ExitCode::from(2)
}

/// An in-process implementation the worker can host with `--impl NAME`, besides `reference`.
pub type Hosted = (&'static str, fn() -> Box<dyn Implementation>);

/// The worker's `main`: parse the command line, host the implementation, serve requests.
/// `hosted` names the in-process adapters `--impl` accepts besides `reference`.
pub fn main(hosted: &[Hosted]) -> ExitCode {
    let names = std::iter::once("reference")
        .chain(hosted.iter().map(|(n, _)| *n))
        .collect::<Vec<_>>()
        .join("|");
    let usage = |msg: &str| usage(msg, &names);
    let mut args = std::env::args().skip(1);
    let (mut lib, mut glibc, mut release, mut version, mut name) = (
        None::<PathBuf>,
        None::<PathBuf>,
        None::<String>,
        None::<String>,
        None::<String>,
    );
    while let Some(a) = args.next() {
        match a.as_str() {
            "--libsframe" => lib = args.next().map(PathBuf::from),
            "--glibc" => glibc = args.next().map(PathBuf::from),
            "--release" => release = args.next(),
            "--version" => version = args.next(),
            "--impl" => name = args.next(),
            other => return usage(&format!("unknown argument {other:?}")),
        }
    }
    // GNU libsframe is served one forked child per request (see `forking`); the Rust
    // adapters, which cannot crash the process, in the worker itself.
    let fork = lib.is_some() || glibc.is_some();
    if let Some(path) = glibc {
        if lib.is_some() || name.is_some() {
            return usage("--glibc hosts one implementation: no --libsframe or --impl with it");
        }
        let Some(release) = release else {
            return usage("--glibc needs --release");
        };
        crash::install_crash_reporter();
        symbols::load(&path);
        let version = version.unwrap_or_else(|| release.clone());
        let imp = match glibc::Glibc::open(&path, &release, &version) {
            Ok(g) => g,
            Err(e) => {
                eprintln!("sframe-worker: {e}");
                return ExitCode::from(1);
            }
        };
        let served = match coverage::Covered::wrap(imp) {
            Ok(Ok(c)) => forking::serve(&c, std::io::stdin().lock(), std::io::stdout().lock()),
            Ok(Err(imp)) => forking::serve(&imp, std::io::stdin().lock(), std::io::stdout().lock()),
            Err(e) => {
                eprintln!("sframe-worker: {e}");
                return ExitCode::from(1);
            }
        };
        return match served {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("sframe-worker: {e}");
                ExitCode::from(1)
            }
        };
    }
    let imp: Box<dyn Implementation> = match (lib, name.as_deref()) {
        (Some(path), None) => {
            let Some(release) = release else {
                return usage("--libsframe needs --release");
            };
            crash::install_crash_reporter();
            symbols::load(&path);
            let version = version.unwrap_or_else(|| release.clone());
            match libsframe::Libsframe::open(&path, &release, &version) {
                Ok(l) => match coverage::Covered::wrap(l) {
                    Ok(Ok(c)) => Box::new(c),
                    Ok(Err(l)) => Box::new(l),
                    Err(e) => {
                        eprintln!("sframe-worker: {e}");
                        return ExitCode::from(1);
                    }
                },
                Err(e) => {
                    eprintln!("sframe-worker: {e}");
                    return ExitCode::from(1);
                }
            }
        }
        (None, Some("reference")) => Box::new(Reference),
        (None, Some(n)) => match hosted.iter().find(|(h, _)| *h == n) {
            Some((_, make)) => make(),
            None => return usage(&format!("no implementation {n:?} to host")),
        },
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
