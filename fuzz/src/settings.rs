//! The run settings of the fuzz targets, by name: from the environment, else from the file
//! `sframe-fuzz.env` beside the target binary (`NAME=VALUE` lines), which an OSS-Fuzz or
//! ClusterFuzzLite build writes into `$OUT`, where the infrastructure runs the binaries
//! without an environment of ours.
//!
//! - `SFRAME_FUZZ_EXCLUDE`: implementations not to test, by name, comma-separated (see
//!   [`crate::implementations`]);
//! - `SFRAME_FUZZ_STRICT=1`: a discrepancy the ledger does not cover panics (libFuzzer keeps
//!   the input and the run ends) instead of being logged;
//! - `SFRAME_FUZZ_FINDINGS`: the directory new discrepancies are logged in (see
//!   [`crate::findings_log`]);
//! - `SFRAME_FUZZ_PIN=1`: each fuzzing process takes a CPU no other one pinned on the machine
//!   has (slots in `$TMPDIR/sframe-fuzz-cpu-slots-$USER`, see `sframe_run::cpu_slot`), with
//!   its workers, while CPUs are free: for as many jobs as CPUs (`ci/fuzz-long --jobs 2` on
//!   2 cores);
//! - `SFRAME_CONFORM_CACHE`: where the provisioned libraries are (an OSS-Fuzz build carries
//!   them in `$OUT/sframe-cache`; see `differential::init`).

use std::path::PathBuf;

/// The file of settings beside the binary.
pub const FILE: &str = "sframe-fuzz.env";

/// The value of setting `name`: the environment's, else the file's.
pub fn get(name: &str) -> Option<String> {
    if let Some(v) = std::env::var_os(name) {
        return Some(v.to_string_lossy().into_owned());
    }
    let file = std::env::current_exe().ok()?.parent()?.join(FILE);
    from_text(&std::fs::read_to_string(file).ok()?, name)
}

/// The value of `name` in `NAME=VALUE` lines (`#` starts a comment line).
pub fn from_text(text: &str, name: &str) -> Option<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once('='))
        .find(|(k, _)| k.trim() == name)
        .map(|(_, v)| v.trim().to_string())
}

/// `SFRAME_FUZZ_STRICT=1`.
pub fn strict() -> bool {
    get("SFRAME_FUZZ_STRICT").is_some_and(|v| v == "1")
}

/// `SFRAME_FUZZ_PIN=1`.
pub fn pin() -> bool {
    get("SFRAME_FUZZ_PIN").is_some_and(|v| v == "1")
}

/// `SFRAME_FUZZ_EXCLUDE`, split at commas.
pub fn excluded() -> Vec<String> {
    get("SFRAME_FUZZ_EXCLUDE")
        .map(|v| {
            v.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

/// `SFRAME_FUZZ_FINDINGS`, else `sframe-fuzz-findings` in the working directory.
pub fn findings_dir() -> PathBuf {
    get("SFRAME_FUZZ_FINDINGS")
        .filter(|v| !v.is_empty())
        .map_or_else(|| PathBuf::from("sframe-fuzz-findings"), PathBuf::from)
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_name_value_lines() {
        let t = "# written by build.sh\nSFRAME_FUZZ_STRICT=1\nSFRAME_FUZZ_EXCLUDE = libsframe-*, glibc-*\n";
        assert_eq!(
            super::from_text(t, "SFRAME_FUZZ_STRICT").as_deref(),
            Some("1")
        );
        assert_eq!(
            super::from_text(t, "SFRAME_FUZZ_EXCLUDE").as_deref(),
            Some("libsframe-*, glibc-*")
        );
        assert_eq!(super::from_text(t, "SFRAME_FUZZ_FINDINGS"), None);
    }
}
