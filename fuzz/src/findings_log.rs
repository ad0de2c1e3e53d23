//! Where a long run puts the discrepancies it meets, instead of stopping at the first: one
//! directory per signature under the findings directory ([`crate::settings::findings_dir`]),
//! named by a hash of the signature, so that a cause met a million times is one entry:
//!
//! - `cause.json`: the signature, the target, the first discrepancy showing it (as the
//!   engine reports it) and how to reproduce it;
//! - `input.sframe` (`input.bin` for a target whose input is not a section): the first
//!   input that showed it;
//! - `hits`: how many inputs showed it, as the sum of its lines: each process appends the
//!   inputs it counted since its last line, at most once a second per signature (so the
//!   last second of a process may be missing; short appends are atomic, so processes share
//!   the file);
//! - `minimized.sframe`: written after the run by [`crate::summary`].
//!
//! The first process to create the directory writes the entry; several processes (libFuzzer's
//! fork mode, `-jobs`) share one findings directory.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What `cause.json` holds.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Cause {
    pub signature: String,
    /// The fuzz target that met it.
    pub target: String,
    /// The implementation that answered differently (for the differential targets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub implementation: Option<String>,
    /// The first discrepancy (or mismatch) showing it, as its producer serializes it.
    pub example: serde_json::Value,
    /// The input file in the entry's directory.
    pub input: String,
    /// A command that shows it again.
    pub reproduce: String,
}

/// One entry of a findings directory, read back.
#[derive(Debug, Clone)]
pub struct Entry {
    pub dir: PathBuf,
    pub cause: Cause,
    /// Inputs that showed it, over every process.
    pub hits: u64,
}

/// The log of one process.
pub struct FindingsLog {
    dir: PathBuf,
    /// Per signature: inputs counted and not yet written, and when a count was last written.
    counts: Mutex<HashMap<String, (u64, Option<Instant>)>>,
}

/// The log of this process, in [`crate::settings::findings_dir`] (for the targets that do
/// not keep one of their own).
pub fn global() -> &'static FindingsLog {
    static LOG: std::sync::OnceLock<FindingsLog> = std::sync::OnceLock::new();
    LOG.get_or_init(|| FindingsLog::new(crate::settings::findings_dir()))
}

/// Whether a new cause stops the run (`SFRAME_FUZZ_STRICT=1`, and always under `cargo test`)
/// rather than being logged, for the targets that do not keep this in their state.
pub fn strict() -> bool {
    cfg!(test) || crate::settings::strict()
}

/// How often a hit count is written at most.
const FLUSH: Duration = Duration::from_secs(1);

/// The directory name of a signature: FNV-1a of its text, in hex.
pub fn key(signature: &str) -> String {
    format!("{:016x}", fnv1a(signature.as_bytes()))
}

/// FNV-1a of `data` (the hash that names suite cases too).
pub use sframe_harness::suite::fnv1a;

impl FindingsLog {
    pub fn new(dir: PathBuf) -> FindingsLog {
        FindingsLog {
            dir,
            counts: Mutex::new(HashMap::new()),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Count one input showing `signature`; the first time any process meets it, write the
    /// entry: `cause` gets the entry's directory and says what to write (its `input` names
    /// the file `input` goes to). Returns whether this call wrote it. An entry that cannot be
    /// written is said on stderr, and the run goes on.
    pub fn log(&self, signature: &str, input: &[u8], cause: impl FnOnce(&Path) -> Cause) -> bool {
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        let first_here = !counts.contains_key(signature);
        let (n, flushed) = counts.entry(signature.to_string()).or_insert((0, None));
        *n += 1;
        let d = self.dir.join(key(signature));
        let mut wrote = false;
        if first_here {
            wrote = match write_entry(&self.dir, &d, &cause(&d), input) {
                Ok(w) => w,
                Err(e) => {
                    eprintln!(
                        "sframe-fuzz: cannot log {signature} in {}: {e}",
                        d.display()
                    );
                    false
                }
            };
        }
        if flushed.is_none_or(|t| now.duration_since(t) >= FLUSH) {
            use std::io::Write;
            let appended = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(d.join("hits"))
                .and_then(|mut f| f.write_all(format!("{n}\n").as_bytes()));
            if appended.is_ok() {
                *n = 0;
            }
            *flushed = Some(now);
        }
        wrote
    }
}

/// Create `d` and write the entry, unless another process did.
fn write_entry(root: &Path, d: &Path, cause: &Cause, input: &[u8]) -> std::io::Result<bool> {
    std::fs::create_dir_all(root)?;
    match std::fs::create_dir(d) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return Ok(false),
        Err(e) => return Err(e),
    }
    std::fs::write(d.join(&cause.input), input)?;
    let json = serde_json::to_string_pretty(cause).map_err(std::io::Error::other)?;
    // Written last, under a temporary name: a reader sees a whole entry or none.
    std::fs::write(d.join("cause.json.tmp"), json + "\n")?;
    std::fs::rename(d.join("cause.json.tmp"), d.join("cause.json"))?;
    Ok(true)
}

/// Every complete entry of findings directory `dir`, by signature.
pub fn read(dir: &Path) -> Vec<Entry> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let d = e.path();
        let Some(cause) = std::fs::read_to_string(d.join("cause.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<Cause>(&t).ok())
        else {
            continue;
        };
        let hits = std::fs::read_to_string(d.join("hits"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse::<u64>().ok())
            .sum();
        out.push(Entry {
            dir: d,
            cause,
            hits,
        });
    }
    out.sort_by(|a, b| a.cause.signature.cmp(&b.cause.signature));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cause(sig: &str) -> Cause {
        Cause {
            signature: sig.into(),
            target: "t".into(),
            implementation: None,
            example: serde_json::Value::Null,
            input: "input.bin".into(),
            reproduce: "r".into(),
        }
    }

    #[test]
    fn one_entry_per_signature_with_its_first_input() {
        let dir = std::env::temp_dir().join(format!("sframe-fuzz-log-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let log = FindingsLog::new(dir.clone());
        assert!(log.log("a", b"first", |_| cause("a")));
        assert!(!log.log("a", b"second", |_| cause("a")));
        assert!(log.log("b", b"other", |_| cause("b")));
        let e = read(&dir);
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].cause.signature, "a");
        assert_eq!(
            std::fs::read(e[0].dir.join("input.bin")).ok().as_deref(),
            Some(&b"first"[..])
        );
        // The second hit came within a second of the first: not written yet.
        assert_eq!(e[0].hits, 1);
        // Another process's log sees the entry and does not write it again.
        assert!(!FindingsLog::new(dir.clone()).log("b", b"again", |_| cause("b")));
        // Its count adds to the first one's.
        assert_eq!(read(&dir)[1].hits, 2);
        assert_eq!(
            std::fs::read(e[1].dir.join("input.bin")).ok().as_deref(),
            Some(&b"other"[..])
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
