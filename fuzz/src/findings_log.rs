//! Where a long run puts the discrepancies it meets, instead of stopping at the first: one
//! directory per signature under the findings directory ([`crate::settings::findings_dir`]),
//! named by a hash of the signature, so that a cause met a million times is one entry:
//!
//! - `cause.json`: the signature, the target, the first discrepancy showing it (as the
//!   engine reports it) and how to reproduce it;
//! - `input.sframe` (`input.bin` for a target whose input is not a section): the first
//!   input that showed it;
//! - `minimized.sframe`: written after the run by [`crate::summary`].
//!
//! How many inputs showed each signature is kept apart, one file per process in
//! `<findings>/hits/` (`<pid>-<start time in ns>`): a `<key> <count>` line per signature the
//! process met, its counts since it started, the whole file rewritten (written under a
//! temporary name, then renamed) at most once a second, when the log is dropped and when
//! the process exits; an entry's hits are the sum over every process's file (and the lines of
//! a `hits` file in its directory, as older runs wrote them). A process that dies on a signal
//! (a crash or hang of the target, which libFuzzer's fork mode survives) runs no exit
//! handler: its last second of counts is lost. One write per process and second, whatever
//! the number of signatures met (a run meets hundreds).
//!
//! The first process to create the directory writes the entry; several processes (libFuzzer's
//! fork mode, `-jobs`) share one findings directory, each writing only its own hits file.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};
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

/// The directory of the processes' hit counts, in a findings directory.
pub const HITS: &str = "hits";

/// The log of one process.
pub struct FindingsLog {
    dir: PathBuf,
    counts: Arc<Mutex<Counts>>,
}

/// What a log counted, and where and when it writes it.
struct Counts {
    /// This process's hits file.
    file: PathBuf,
    /// Per signature: its entry's key and the inputs this process counted.
    by_signature: HashMap<String, (String, u64)>,
    /// Counted since the file was last written.
    dirty: bool,
    /// When the file was last written.
    flushed: Option<Instant>,
    /// Whether the findings directory was made (once per process).
    made: bool,
}

impl Counts {
    /// Rewrite this process's hits file with every count, when one changed; an error is
    /// said on stderr (the counts stay, for the next try).
    fn flush(&mut self) {
        self.flushed = Some(Instant::now());
        if !self.dirty {
            return;
        }
        let mut lines: Vec<(&str, u64)> = self
            .by_signature
            .values()
            .map(|(k, n)| (k.as_str(), *n))
            .collect();
        lines.sort_unstable();
        let text: String = lines.iter().map(|(k, n)| format!("{k} {n}\n")).collect();
        let tmp = self.file.with_extension("tmp");
        let written = self
            .file
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&tmp, text))
            .and_then(|()| std::fs::rename(&tmp, &self.file));
        match written {
            Ok(()) => self.dirty = false,
            Err(e) => eprintln!(
                "sframe-fuzz: cannot write the hit counts {}: {e}",
                self.file.display()
            ),
        }
    }
}

/// Every log of this process, flushed when it exits.
static LOGS: Mutex<Vec<Weak<Mutex<Counts>>>> = Mutex::new(Vec::new());

fn flush_at_exit() {
    // Another thread holding a lock is in the middle of its own write: leave it.
    let Ok(logs) = LOGS.try_lock() else { return };
    for c in logs.iter().filter_map(Weak::upgrade) {
        if let Ok(mut c) = c.try_lock() {
            c.flush();
        }
    }
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

/// How often the hit counts are written at most.
const FLUSH: Duration = Duration::from_secs(1);

/// The directory name of a signature: FNV-1a of its text, in hex.
pub fn key(signature: &str) -> String {
    format!("{:016x}", fnv1a(signature.as_bytes()))
}

/// FNV-1a of `data` (the hash that names suite cases too).
pub use sframe_harness::suite::fnv1a;

impl FindingsLog {
    pub fn new(dir: PathBuf) -> FindingsLog {
        static HOOK: std::sync::Once = std::sync::Once::new();
        HOOK.call_once(|| sframe_run::at_exit(flush_at_exit));
        let started = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let counts = Arc::new(Mutex::new(Counts {
            file: dir
                .join(HITS)
                .join(format!("{}-{started}", std::process::id())),
            by_signature: HashMap::new(),
            dirty: false,
            flushed: None,
            made: false,
        }));
        LOGS.lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Arc::downgrade(&counts));
        FindingsLog { dir, counts }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Count one input showing `signature`; the first time any process meets it, write the
    /// entry: `cause` gets the entry's directory and says what to write (its `input` names
    /// the file `input` goes to), called only then. Returns whether this call wrote it. An
    /// entry that cannot be written is said on stderr, and the run goes on.
    pub fn log(&self, signature: &str, input: &[u8], cause: impl FnOnce(&Path) -> Cause) -> bool {
        let mut c = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        let mut wrote = false;
        if let Some((_, n)) = c.by_signature.get_mut(signature) {
            *n += 1;
        } else {
            let k = key(signature);
            let d = self.dir.join(&k);
            if !c.made {
                c.made = std::fs::create_dir_all(&self.dir).is_ok();
            }
            wrote = match write_entry(&d, input, cause) {
                Ok(w) => w,
                Err(e) => {
                    eprintln!(
                        "sframe-fuzz: cannot log {signature} in {}: {e}",
                        d.display()
                    );
                    false
                }
            };
            c.by_signature.insert(signature.to_string(), (k, 1));
        }
        c.dirty = true;
        if c.flushed.is_none_or(|t| t.elapsed() >= FLUSH) {
            c.flush();
        }
        wrote
    }

    /// Write this process's hit counts now.
    pub fn flush(&self) {
        self.counts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .flush();
    }
}

impl Drop for FindingsLog {
    fn drop(&mut self) {
        self.flush();
    }
}

/// Create `d` and write the entry `cause` says, unless another process did.
fn write_entry(
    d: &Path,
    input: &[u8],
    cause: impl FnOnce(&Path) -> Cause,
) -> std::io::Result<bool> {
    match std::fs::create_dir(d) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return Ok(false),
        Err(e) => return Err(e),
    }
    let cause = cause(d);
    std::fs::write(d.join(&cause.input), input)?;
    let json = serde_json::to_string_pretty(&cause).map_err(std::io::Error::other)?;
    // Written last, under a temporary name: a reader sees a whole entry or none.
    std::fs::write(d.join("cause.json.tmp"), json + "\n")?;
    std::fs::rename(d.join("cause.json.tmp"), d.join("cause.json"))?;
    Ok(true)
}

/// The hits of every entry, by key: the sum over the processes' files in `<dir>/hits/`.
fn hits_by_key(dir: &Path) -> HashMap<String, u64> {
    let mut out = HashMap::new();
    for f in std::fs::read_dir(dir.join(HITS))
        .into_iter()
        .flatten()
        .flatten()
    {
        let p = f.path();
        if p.extension().is_some_and(|x| x == "tmp") {
            continue;
        }
        for line in std::fs::read_to_string(&p).unwrap_or_default().lines() {
            if let Some((k, n)) = line.split_once(' ') {
                if let Ok(n) = n.trim().parse::<u64>() {
                    *out.entry(k.to_string()).or_insert(0) += n;
                }
            }
        }
    }
    out
}

/// Every complete entry of findings directory `dir`, by signature.
pub fn read(dir: &Path) -> Vec<Entry> {
    let by_key = hits_by_key(dir);
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let d = e.path();
        let Some(cause) = std::fs::read_to_string(d.join("cause.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<Cause>(&t).ok())
        else {
            continue;
        };
        let legacy: u64 = std::fs::read_to_string(d.join("hits"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse::<u64>().ok())
            .sum();
        let own = d
            .file_name()
            .and_then(|n| by_key.get(n.to_str()?))
            .copied()
            .unwrap_or(0);
        let hits = legacy + own;
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
        // The first count was written at once; the second, within a second of it, is not yet.
        assert_eq!(e[0].hits, 1);
        log.flush();
        assert_eq!(read(&dir)[0].hits, 2);
        // Another process's log sees the entry and does not write it again.
        let other = FindingsLog::new(dir.clone());
        assert!(!other.log("b", b"again", |_| cause("b")));
        // Its count adds to the first one's, from its own file.
        assert_eq!(read(&dir)[1].hits, 2);
        drop(other);
        assert_eq!(
            std::fs::read(e[1].dir.join("input.bin")).ok().as_deref(),
            Some(&b"other"[..])
        );
        // Counted again and dropped: a log writes its counts when it goes.
        let last = FindingsLog::new(dir.clone());
        for _ in 0..3 {
            last.log("a", b"later", |_| panic!("the entry is written already"));
        }
        drop(last);
        assert_eq!(read(&dir)[0].hits, 5);
        // The hits files are the processes' own: every count is in one of them, none in the entries.
        assert!(!e[0].dir.join("hits").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
