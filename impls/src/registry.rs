//! Building implementations by name from what is provisioned here.
//!
//! Names: `reference`, `simple-frame-rs`, `libsframe-<release>` (one per provisioned
//! release, run in `sframe-worker`), `glibc-<release>` (glibc's SFrame reader built by
//! `ci/glibc-reader`, run in `sframe-worker`), `objdump-<release>` (the text of `objdump --sframe`),
//! `llvm-readobj-<N>` (the text of `llvm-readobj --sframe`), and external programs added with
//! [`Registry::add_external`]. The registry builds each adapter; no adapter knows the registry.

use crate::llvm_readobj::{self, LlvmReadobj};
use crate::objdump::ObjdumpImpl;
use crate::toolchains::{
    glibc_readers, libsframe_releases, objdumps, worker_path, GLIBC_HINT, PROVISION_HINT,
};
use sframe_harness::impls::process::{Launch, ProcessImpl, DEFAULT_TIMEOUT};
use sframe_harness::impls::reference::Reference;
use sframe_harness::impls::{Hosting, Implementation};
use sframe_harness::signature::{Tool, ToolKind, ToolName};
use std::sync::Arc;
use std::time::Duration;

/// An implementation that could not be made available, and why.
#[derive(Debug, Clone)]
pub struct Unavailable {
    pub name: String,
    pub reason: String,
}

/// Options for building implementations.
#[derive(Debug, Clone)]
pub struct Options {
    /// Time limit per request to a worker or external program.
    pub timeout: Duration,
    /// Include the objdump text adapters.
    pub objdump: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            timeout: DEFAULT_TIMEOUT,
            objdump: true,
        }
    }
}

/// The implementations available here.
pub struct Registry {
    pub available: Vec<Arc<dyn Implementation>>,
    pub unavailable: Vec<Unavailable>,
}

/// The launch line of a worker hosting libsframe from `path`.
pub fn libsframe_launch(
    release: &str,
    path: &std::path::Path,
    version: &str,
    timeout: Duration,
) -> Result<Launch, String> {
    worker_launch("--libsframe", release, path, version, timeout)
}

/// The launch line of a worker hosting glibc's reader from `path`.
pub fn glibc_launch(
    release: &str,
    path: &std::path::Path,
    version: &str,
    timeout: Duration,
) -> Result<Launch, String> {
    worker_launch("--glibc", release, path, version, timeout)
}

/// `sframe-worker <library flag> PATH --release R --version V`.
fn worker_launch(
    library: &str,
    release: &str,
    path: &std::path::Path,
    version: &str,
    timeout: Duration,
) -> Result<Launch, String> {
    let worker = worker_path().ok_or_else(|| {
        "sframe-worker not found: build it (`cargo build -p sframe-conform --bin sframe-worker`) or set SFRAME_WORKER".to_string()
    })?;
    Ok(Launch::new(worker)
        .arg(library)
        .arg(path.as_os_str())
        .arg("--release")
        .arg(release)
        .arg("--version")
        .arg(version)
        .timeout(timeout))
}

impl Registry {
    /// Everything that can be built here: the reference, the in-process adapters
    /// (simple-frame-rs, and any other listed in `in_process!` in `lib.rs`), every provisioned
    /// libsframe (through `sframe-worker`) and, with `opts.objdump`, every provisioned objdump.
    pub fn discover(opts: &Options) -> Registry {
        let mut available: Vec<Arc<dyn Implementation>> = vec![Arc::new(Reference)];
        available.extend(crate::in_process());
        let mut r = Registry {
            available,
            unavailable: Vec::new(),
        };
        let libs = libsframe_releases();
        if libs.is_empty() {
            r.unavailable.push(Unavailable {
                name: "libsframe-*".into(),
                reason: format!("no libsframe provisioned: {PROVISION_HINT}"),
            });
        }
        for lib in libs {
            let name = format!("libsframe-{}", lib.release);
            match libsframe_launch(&lib.release, &lib.path, &lib.version, opts.timeout)
                .and_then(|l| ProcessImpl::start(l, Hosting::Worker))
            {
                Ok(p) => r.available.push(Arc::new(p)),
                Err(reason) => r.unavailable.push(Unavailable { name, reason }),
            }
        }
        let readers = glibc_readers();
        if readers.is_empty() {
            r.unavailable.push(Unavailable {
                name: "glibc-*".into(),
                reason: format!("glibc's SFrame reader is not built: {GLIBC_HINT}"),
            });
        }
        for g in readers {
            let name = format!("glibc-{}", g.release);
            match glibc_launch(&g.release, &g.path, &g.version, opts.timeout)
                .and_then(|l| ProcessImpl::start(l, Hosting::Worker))
            {
                Ok(p) => r.available.push(Arc::new(p)),
                Err(reason) => r.unavailable.push(Unavailable { name, reason }),
            }
        }
        if opts.objdump {
            let mut by_release: Vec<(String, Vec<crate::toolchains::Objdump>)> = Vec::new();
            for o in objdumps() {
                match by_release.iter_mut().find(|(r, _)| *r == o.release) {
                    Some((_, v)) => v.push(o),
                    None => by_release.push((o.release.clone(), vec![o])),
                }
            }
            for (release, tools) in by_release {
                r.available
                    .push(Arc::new(ObjdumpImpl::new(release, tools, opts.timeout)));
            }
        }
        // The llvm-readobj adapters, when text adapters are wanted (with `opts.objdump`, or
        // when `SFRAME_CONFORM_LLVM=1`), or why there are none. Not wanted (the fuzz targets,
        // which leave text adapters out), nothing is listed: the LLVM tier is optional and
        // not asking for it is not a missing implementation.
        if opts.objdump || llvm_readobj::asked_by_env() {
            let found = llvm_readobj::tools();
            if found.is_empty() {
                r.unavailable.push(Unavailable {
                    name: "llvm-readobj-*".into(),
                    reason: format!(
                        "the LLVM tier is not provisioned: {}",
                        llvm_readobj::PROVISION_HINT
                    ),
                });
            }
            for t in found {
                r.available
                    .push(Arc::new(LlvmReadobj::new(t, opts.timeout)));
            }
        }
        r
    }

    /// Add an external program speaking the JSON-lines protocol.
    pub fn add_external(
        &mut self,
        command: &str,
        timeout: Duration,
    ) -> Result<Arc<dyn Implementation>, String> {
        let launch = Launch::from_command_line(command)
            .ok_or_else(|| "empty external command".to_string())?
            .timeout(timeout);
        let p: Arc<dyn Implementation> = Arc::new(ProcessImpl::start(launch, Hosting::External)?);
        self.admit_external_name(command, &p.name())?;
        self.available.push(Arc::clone(&p));
        Ok(p)
    }

    /// Refuse an external program whose name is already taken or is the name of a tool
    /// this suite provisions (`libsframe-2.47`, `simple-frame-rs`, `objdump-*`, ...): the
    /// built-in would be chosen in its place by `--impl`, and the ledger's findings of that
    /// tool would be credited to the program.
    fn admit_external_name(&self, command: &str, name: &str) -> Result<(), String> {
        let reserved = match Tool::named(name).name {
            ToolKind::Known(k) => Some(k.name()),
            ToolKind::Other(_) => None,
        };
        let taken = self.available.iter().any(|i| i.name() == name)
            || self.unavailable.iter().any(|u| u.name == name);
        match (reserved, taken) {
            (_, true) => Err(format!(
                "external program `{command}` calls itself `{name}`, the name of an implementation already here; give it a name of its own"
            )),
            (Some(tool), false) => Err(format!(
                "external program `{command}` calls itself `{name}`, a name this suite keeps for {tool}; give it a name of its own"
            )),
            (None, false) => Ok(()),
        }
    }

    /// The implementation called `name`.
    pub fn get(&self, name: &str) -> Option<Arc<dyn Implementation>> {
        self.available.iter().find(|i| i.name() == name).cloned()
    }

    /// The provisioned libsframe implementations, oldest release first.
    pub fn libsframes(&self) -> Vec<Arc<dyn Implementation>> {
        self.available
            .iter()
            .filter(|i| i.tool().is(ToolName::Libsframe))
            .cloned()
            .collect()
    }
}
