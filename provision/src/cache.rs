//! The cache `ci/toolchains`, `ci/upstream-sources` and the corpus builders fill. Its one
//! variable is `$SFRAME_CONFORM_CACHE` (set and non-empty), else `$HOME/.cache/sframe-conform`.

use std::path::PathBuf;

/// The variable naming the cache directory.
pub const CACHE_VAR: &str = "SFRAME_CONFORM_CACHE";

/// The cache directory: `$SFRAME_CONFORM_CACHE`, else `$HOME/.cache/sframe-conform`.
pub fn cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os(CACHE_VAR).filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/root"));
    home.join(".cache/sframe-conform")
}

/// The provisioned tool wrappers, `<cache>/bin/<triple>-<tool>-<release>`.
pub fn bin_dir() -> PathBuf {
    cache_dir().join("bin")
}
