//! Where the provisioned foreign implementations are: the cache `ci/toolchains` fills.
//!
//! Layout (see `ci/toolchains`): `$CACHE/lib/libsframe-<release>/libsframe.so.N`,
//! `$CACHE/bin/<triple>-objdump-<release>`, `$CACHE/toolchains.json` with the exact package
//! versions. `$CACHE` is `$SFRAME_CONFORM_CACHE`, else `$HOME/.cache/sframe-conform`.
//! Overrides: `SFRAME_CONFORM_LIBSFRAME_<RELEASE>` (dots as underscores, e.g.
//! `SFRAME_CONFORM_LIBSFRAME_2_44=/path/libsframe.so.1`) names a library for a release.

use serde::Deserialize;
use std::path::{Path, PathBuf};

/// The command that provisions what this module looks for.
pub const PROVISION_HINT: &str = "run `ci/toolchains` (it provisions GNU binutils 2.40, 2.44 and sid with their libsframe into $SFRAME_CONFORM_CACHE)";

/// The cache directory.
pub use sframe_provision::cache_dir;

/// One entry of `toolchains.json`.
#[derive(Debug, Clone, Deserialize)]
pub struct ToolEntry {
    pub tool: String,
    pub release: String,
    pub version: String,
    pub path: PathBuf,
    #[serde(default)]
    pub suite: String,
}

/// The entries of `$CACHE/toolchains.json` (empty when absent or unreadable).
pub fn tool_entries() -> Vec<ToolEntry> {
    let p = cache_dir().join("toolchains.json");
    std::fs::read_to_string(p)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

/// A provisioned GNU libsframe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LibsframeRelease {
    /// Release as the cache names it (`2.40`, `2.44`, `2.47`).
    pub release: String,
    /// The shared object.
    pub path: PathBuf,
    /// Exact (Debian package) version, e.g. `2.44-3`.
    pub version: String,
}

fn release_sort_key(r: &str) -> Vec<u32> {
    r.split('.').map(|p| p.parse().unwrap_or(0)).collect()
}

/// The shared object in a `libsframe-<release>` directory (`libsframe.so.N`).
fn shared_object(dir: &Path) -> Option<PathBuf> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n.strip_prefix("libsframe.so.")
                    .is_some_and(|v| !v.is_empty() && v.chars().all(|c| c.is_ascii_digit()))
            })
        })
        .collect();
    names.sort();
    names.into_iter().next()
}

/// Every provisioned libsframe release, oldest first.
pub fn libsframe_releases() -> Vec<LibsframeRelease> {
    let entries = tool_entries();
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(cache_dir().join("lib")) {
        for e in rd.filter_map(Result::ok) {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(release) = name.strip_prefix("libsframe-") else {
                continue;
            };
            let Some(path) = shared_object(&e.path()) else {
                continue;
            };
            let version = entries
                .iter()
                .find(|t| t.tool == "libsframe" && t.release == release)
                .map(|t| t.version.clone())
                .unwrap_or_else(|| {
                    format!("{release} (version unknown: no toolchains.json entry)")
                });
            out.push(LibsframeRelease {
                release: release.to_string(),
                path,
                version,
            });
        }
    }
    for (k, v) in std::env::vars_os() {
        let (Some(k), Some(v)) = (k.to_str(), v.to_str()) else {
            continue;
        };
        let Some(rel) = k.strip_prefix("SFRAME_CONFORM_LIBSFRAME_") else {
            continue;
        };
        let release = rel.replace('_', ".");
        out.retain(|r| r.release != release);
        out.push(LibsframeRelease {
            release: release.clone(),
            path: PathBuf::from(v),
            version: format!("{release} (from {k})"),
        });
    }
    out.sort_by_key(|r| release_sort_key(&r.release));
    out
}

/// A provisioned `objdump`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Objdump {
    pub release: String,
    /// `x86_64-linux-gnu`, `aarch64-linux-gnu` or `s390x-linux-gnu`.
    pub triple: String,
    pub path: PathBuf,
    /// `objdump --version`'s first line, as recorded by `ci/toolchains`.
    pub version: String,
}

/// Every provisioned objdump, by release then triple. The system's `/usr/bin/objdump` stands
/// in for an x86-64 release the cache lacks, if its version says which release it is.
pub fn objdumps() -> Vec<Objdump> {
    let mut out: Vec<Objdump> = tool_entries()
        .into_iter()
        .filter_map(|t| {
            let triple = t.tool.strip_suffix("-objdump")?.to_string();
            t.path.is_file().then(|| Objdump {
                release: t.release.clone(),
                triple,
                path: t.path.clone(),
                version: t.version.clone(),
            })
        })
        .collect();
    let system = Path::new("/usr/bin/objdump");
    if system.is_file() {
        if let Some(first) = sframe_run::run(
            std::process::Command::new(system).arg("--version"),
            sframe_run::Policy::default(),
        )
        .ok()
        .and_then(Result::ok)
        .and_then(|r| r.stdout_text().lines().next().map(str::to_string))
        {
            if let Some(rel) = first
                .split_whitespace()
                .last()
                .map(|v| v.split('.').take(2).collect::<Vec<_>>().join("."))
            {
                if !out
                    .iter()
                    .any(|o| o.release == rel && o.triple == "x86_64-linux-gnu")
                {
                    out.push(Objdump {
                        release: rel,
                        triple: "x86_64-linux-gnu".into(),
                        path: system.to_path_buf(),
                        version: first,
                    });
                }
            }
        }
    }
    out.sort_by(|a, b| {
        release_sort_key(&a.release)
            .cmp(&release_sort_key(&b.release))
            .then(a.triple.cmp(&b.triple))
    });
    out
}

/// The `sframe-worker` binary: `$SFRAME_WORKER`, else the first found of
/// [`worker_candidates`] for the running executable.
pub fn worker_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("SFRAME_WORKER").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let exe = std::env::current_exe().ok()?;
    worker_candidates(&exe).into_iter().find(|p| p.is_file())
}

/// Where `sframe-worker` may be for an executable at `exe`, in order: beside it (a build's
/// `target/<profile>/`, or `$OUT` of an OSS-Fuzz build); one directory up (test binaries in
/// `target/<profile>/deps/`); the same target directory's `release/`, then `debug/`, for a
/// binary built for an explicit target triple (`cargo fuzz` builds into
/// `target/<triple>/release/`, the worker is built into `target/release/`).
pub fn worker_candidates(exe: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Some(dir) = exe.parent() else {
        return out;
    };
    out.push(dir.join("sframe-worker"));
    if let Some(up) = dir.parent() {
        out.push(up.join("sframe-worker"));
        if let Some(target) = up.parent() {
            out.push(target.join("release").join("sframe-worker"));
            out.push(target.join("debug").join("sframe-worker"));
        }
    }
    out
}

/// The command that builds glibc's SFrame reader (after `ci/upstream-sources`).
pub const GLIBC_HINT: &str = "run `ci/upstream-sources && ci/glibc-reader` (it builds glibc's sysdeps/generic/sframe-read.c from Debian's source into $SFRAME_CONFORM_CACHE/glibc-<release>/)";

/// glibc's SFrame reader as `ci/glibc-reader` built it (`$CACHE/glibc-<release>/glibc.json`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct GlibcReader {
    /// Upstream release (`2.43`).
    pub release: String,
    /// Debian source version (`2.43-6`).
    pub version: String,
    /// The shared object (reader + worker/glibc/shim.c).
    pub path: PathBuf,
}

/// Every glibc reader built here, oldest release first.
pub fn glibc_readers() -> Vec<GlibcReader> {
    let Ok(dir) = std::fs::read_dir(cache_dir()) else {
        return Vec::new();
    };
    let mut out: Vec<GlibcReader> = dir
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with("glibc-"))
        .filter_map(|e| std::fs::read_to_string(e.path().join("glibc.json")).ok())
        .filter_map(|t| serde_json::from_str::<GlibcReader>(&t).ok())
        .filter(|g| g.path.is_file())
        .collect();
    out.sort_by_key(|g| release_sort_key(&g.release));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `cargo fuzz build -O` puts a target at `<target>/<triple>/release/<name>`;
    /// `cargo build --release --bin sframe-worker` puts the worker at `<target>/release/`.
    #[test]
    fn a_fuzz_target_finds_the_worker_of_its_target_directory() {
        let c = worker_candidates(Path::new("/t/x86_64-unknown-linux-gnu/release/decode_diff"));
        let release = c
            .iter()
            .position(|p| p == Path::new("/t/release/sframe-worker"));
        let debug = c
            .iter()
            .position(|p| p == Path::new("/t/debug/sframe-worker"));
        assert!(release.is_some() && debug.is_some(), "{c:?}");
        assert!(release < debug, "a release worker is preferred: {c:?}");
    }

    /// OSS-Fuzz copies the worker into `$OUT` beside the targets; tests run from `deps/`.
    #[test]
    fn beside_the_binary_and_one_up() {
        let c = worker_candidates(Path::new("/out/decode_diff"));
        assert_eq!(
            c.first().map(PathBuf::as_path),
            Some(Path::new("/out/sframe-worker"))
        );
        let c = worker_candidates(Path::new("/t/debug/deps/fuzz-123"));
        assert!(
            c.contains(&PathBuf::from("/t/debug/sframe-worker")),
            "{c:?}"
        );
    }
}
