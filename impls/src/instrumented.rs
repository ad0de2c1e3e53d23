//! Where the instrumented builds of the foreign libraries are: `ci/instrumented-libs
//! --flavour FLAVOUR` (`asan`: ASan+UBSan, `sancov`: SanitizerCoverage) compiles libsframe
//! and glibc's SFrame reader from Debian's sources into `$CACHE/instrumented/<flavour>/`,
//! one directory per library release with a `manifest.json` describing the build.

use crate::toolchains::cache_dir;
use serde::Deserialize;
use std::path::PathBuf;

/// One instrumented build, from its `manifest.json` (written by `ci/instrumented-libs`).
#[derive(Debug, Clone, Deserialize)]
pub struct InstrumentedBuild {
    /// `libsframe` or `glibc`.
    pub lib: String,
    pub release: String,
    /// The Debian version it was compiled from.
    pub version: String,
    pub path: PathBuf,
    /// The ASan runtime to preload (empty for other flavours).
    pub preload: PathBuf,
    pub cc: String,
    pub cflags: String,
    pub origin: String,
}

impl InstrumentedBuild {
    /// The implementation's name in signatures and findings (`libsframe-2.40`).
    pub fn implementation(&self) -> String {
        format!("{}-{}", self.lib, self.release)
    }
}

/// Where `ci/instrumented-libs --flavour FLAVOUR` puts its builds.
pub fn dir(flavour: &str) -> PathBuf {
    cache_dir().join("instrumented").join(flavour)
}

/// The builds of `ci/instrumented-libs --flavour FLAVOUR` present, from their manifests
/// (sorted by implementation name).
pub fn builds(flavour: &str) -> Vec<InstrumentedBuild> {
    let mut out: Vec<InstrumentedBuild> = std::fs::read_dir(dir(flavour))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| std::fs::read_to_string(e.path().join("manifest.json")).ok())
        .filter_map(|t| serde_json::from_str::<InstrumentedBuild>(&t).ok())
        .filter(|b| b.path.is_file())
        .collect();
    out.sort_by_key(InstrumentedBuild::implementation);
    out
}
