//! What the text adapters ([`crate::objdump`], [`crate::llvm_readobj`]) share: the section's
//! bytes wrapped in a minimal ELF executable (one allocated `.sframe` section at address 0,
//! the machine and byte order of the section), written to a temporary file, and one run of
//! `TOOL --sframe FILE` under the suite's deadline and retry policy ([`sframe_run`]): a
//! signal that repeats is a crash, a deadline missed twice in a row a hang.
//!
//! Many sections go through one objdump process ([`objdump_many`]): a process per section
//! cost more than the dump itself. objdump prints each file's name before its dump, but its
//! error messages do not name the file, so stdout is made unbuffered (`stdbuf -o0`) and
//! shares one pipe with stderr: every message then lies between the header of the file it
//! is about and the next file's. A file's output is taken from the batch only when it is
//! complete (the next file's header printed, or objdump exited) and objdump said nothing
//! on stderr about it: objdump keeps state from file to file (2.40, after an SFrame error,
//! calls the next file "file format not recognized" and stops), and even the first file's
//! messages differ from a run of its own. The first file that is not so clean (a message, a
//! crash, a hang, output that cannot be told apart) is run alone, exactly as a single
//! section is, and a new batch starts after it. So a batch of clean sections costs one
//! process, and a section that objdump rejects or crashes on costs its own, as before.
//! llvm-readobj is simpler to batch ([`readobj_many`]): it names the file in every message.

use sframe_harness::impls::{Decoded, Outcome};
use sframe_run::{run, run_once, Failure, Policy};
use sframe_spec::layout::header as header_offsets;
use sframe_spec::{Abi, Endian};
use std::path::Path;
use std::process::{Command, ExitStatus};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// ELF machine numbers, and the wrapper: `sframe_elf::wrap` (also used by the bug reports).
pub use sframe_elf::wrap::{wrap_sframe as wrap_elf, EM_AARCH64, EM_S390, EM_X86_64};

/// What a text adapter needs to know of a section before wrapping it: its byte order (from
/// the magic), its version and ABI bytes as stored (`None` past the end or unknown).
#[derive(Debug, Clone, Copy)]
pub struct Preamble {
    pub endian: Endian,
    pub version: Option<u8>,
    pub abi: Option<Abi>,
}

impl Preamble {
    /// The preamble of `data`, or the outcome of a section with no magic: nothing to wrap.
    pub fn of(data: &[u8]) -> Result<Preamble, Outcome<Decoded>> {
        let Some(endian) = Endian::from_magic(data) else {
            return Err(Outcome::unsupported(
                "not an SFrame section (no magic): nothing to wrap in ELF",
            ));
        };
        Ok(Preamble {
            endian,
            version: data.get(header_offsets::VERSION).copied(),
            abi: data
                .get(header_offsets::ABI_ARCH)
                .copied()
                .and_then(Abi::from_u8),
        })
    }
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Write `elf` to a temporary file, run `TOOL --sframe` on it (see [`run_sframe_dump`]) and
/// remove the file.
pub fn run_on_elf(
    tool: &Path,
    elf: &[u8],
    timeout: Duration,
) -> Result<(ExitStatus, String, String), Outcome<Decoded>> {
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("sframe-conform-{}-{n}.elf", std::process::id()));
    if let Err(e) = std::fs::write(&path, elf) {
        return Err(Outcome::unsupported(format!(
            "cannot write {}: {e}",
            path.display()
        )));
    }
    let r = run_sframe_dump(tool, &path, timeout);
    let _ = std::fs::remove_file(&path);
    r
}

/// Run `TOOL --sframe PATH` (objdump, llvm-readobj) within `timeout`, under the suite's
/// retry policy ([`sframe_run`]: a missed deadline is a hang only when the longer second
/// try misses it too, a signal a crash when it repeats): its exit status, stdout and
/// stderr.
pub fn run_sframe_dump(
    tool: &Path,
    path: &Path,
    timeout: Duration,
) -> Result<(ExitStatus, String, String), Outcome<Decoded>> {
    let mut cmd = Command::new(tool);
    cmd.arg("--sframe").arg(path);
    match run(&mut cmd, Policy::new(timeout)) {
        Err(e) => Err(Outcome::unsupported(format!(
            "cannot run {}: {e}",
            tool.display()
        ))),
        // The site its stderr names (a failed assertion of the library it links), read
        // here where the death is seen.
        Ok(Err(Failure::Crashed {
            signal,
            repeated,
            detail,
        })) => Err(Outcome::crashed_with_report(signal, repeated, detail)),
        Ok(Err(Failure::Hung { timeout_ms })) => Err(Outcome::Hung { timeout_ms }),
        Ok(Ok(ran)) => {
            let (stdout, stderr) = (ran.stdout_text(), ran.stderr_text());
            match ran.status {
                Some(status) => Ok((status, stdout, stderr)),
                None => Err(Outcome::Hung {
                    timeout_ms: timeout.as_millis() as u64,
                }),
            }
        }
    }
}

/// What one file's `TOOL --sframe` printed: stdout and stderr.
pub type Printed = Result<(String, String), Outcome<Decoded>>;

/// `objdump --sframe` (the program `tool`) on each of `elfs`: what each run alone would
/// have printed (see the module docs), or its crash, hang or failure to start.
pub fn objdump_many(tool: &Path, elfs: &[Vec<u8>], timeout: Duration) -> Vec<Printed> {
    dump_many(tool, elfs, timeout, objdump_batch, |_, o, e| Ok((o, e)))
}

/// `llvm-readobj --sframe` (the program `tool`) on each of `elfs`: what each run alone
/// would have printed (see [`readobj_batch`]), or its crash, hang or failure to start; a
/// file run alone whose run exits with `status` is `finish(status, stdout, stderr)`.
pub fn readobj_many(
    tool: &Path,
    elfs: &[Vec<u8>],
    timeout: Duration,
    finish: fn(ExitStatus, String, String) -> Printed,
) -> Vec<Printed> {
    dump_many(tool, elfs, timeout, readobj_batch, finish)
}

/// One run of a tool on many files: what each of a prefix of them would have printed alone.
type BatchRun = fn(&Path, &[&Path], Duration) -> Vec<(String, String)>;

/// `TOOL --sframe` on each of `elfs`, many files per process: `batch` runs the tool on
/// files and gives what each of a prefix of them would have printed alone (a run that
/// exits with status 0); the first file past that prefix is run alone (what it printed is
/// `finish(status, stdout, stderr)`), and a new batch starts after it.
fn dump_many(
    tool: &Path,
    elfs: &[Vec<u8>],
    timeout: Duration,
    batch: BatchRun,
    finish: fn(ExitStatus, String, String) -> Printed,
) -> Vec<Printed> {
    let n = COUNTER.fetch_add(elfs.len() as u64, Ordering::Relaxed);
    let dir = std::env::temp_dir();
    let pid = std::process::id();
    let paths: Vec<std::path::PathBuf> = (0..elfs.len())
        .map(|i| dir.join(format!("sframe-conform-{pid}-{}.elf", n + i as u64)))
        .collect();
    let mut out: Vec<Option<Printed>> = vec![None; elfs.len()];
    let mut todo = Vec::new();
    for (i, (p, elf)) in paths.iter().zip(elfs).enumerate() {
        match std::fs::write(p, elf) {
            Ok(()) => todo.push(i),
            Err(e) => {
                out[i] = Some(Err(Outcome::unsupported(format!(
                    "cannot write {}: {e}",
                    p.display()
                ))))
            }
        }
    }
    let alone =
        |i: usize| run_sframe_dump(tool, &paths[i], timeout).and_then(|(s, o, e)| finish(s, o, e));
    let mut at = 0;
    while at < todo.len() {
        if todo.len() - at == 1 {
            out[todo[at]] = Some(alone(todo[at]));
            at += 1;
            continue;
        }
        let files: Vec<&Path> = todo[at..].iter().map(|&i| paths[i].as_path()).collect();
        for d in batch(tool, &files, timeout) {
            out[todo[at]] = Some(Ok(d));
            at += 1;
        }
        if at < todo.len() {
            out[todo[at]] = Some(alone(todo[at]));
            at += 1;
        }
    }
    for p in &paths {
        let _ = std::fs::remove_file(p);
    }
    out.into_iter()
        .map(|o| o.unwrap_or_else(|| Err(Outcome::unsupported("not run"))))
        .collect()
}

/// One `stdbuf -o0 objdump --sframe FILE...` run, stdout and stderr on one pipe: the
/// output of the files it printed unambiguously, a prefix of `paths`.
fn objdump_batch(tool: &Path, paths: &[&Path], timeout: Duration) -> Vec<(String, String)> {
    // `sh` puts stderr on the stdout pipe and becomes objdump (`exec`), whose pid it keeps.
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(r#"exec stdbuf -o0 "$0" --sframe "$@" 2>&1"#)
        .arg(tool)
        .args(paths);
    let Ok(ran) = run_once(&mut cmd, timeout) else {
        return Vec::new();
    };
    let finished = ran.status.is_some_and(|s| s.code().is_some());
    split_batch(&ran.stdout_text(), &tool.to_string_lossy(), paths, finished)
}

/// Split a batch's merged output (see [`objdump_batch`]) into the stdout of each file of
/// the clean prefix of `paths` (see the module docs; its stderr is empty). `prog` is the
/// program as run; `finished`: the process exited (the last file's output
/// is complete).
fn split_batch(text: &str, prog: &str, paths: &[&Path], finished: bool) -> Vec<(String, String)> {
    let mut starts = Vec::new();
    let mut from = 0;
    for p in paths {
        let header = format!("\n{}:     file format ", p.display());
        match text[from..].find(&header) {
            Some(k) => {
                starts.push(from + k);
                from += k + header.len();
            }
            None => break,
        }
    }
    // Anything before the first header belongs to no file for sure.
    if starts.first() != Some(&0) {
        return Vec::new();
    }
    let complete = if finished && starts.len() == paths.len() {
        starts.len()
    } else {
        starts.len().saturating_sub(1)
    };
    // objdump's own messages start with its name as run, glibc's (an assertion) with the
    // file name alone.
    let message = format!("{prog}: ");
    let short = format!("{}: ", prog.rsplit('/').next().unwrap_or(prog));
    let mut out = Vec::new();
    for i in 0..complete {
        let end = starts.get(i + 1).copied().unwrap_or(text.len());
        let chunk = &text[starts[i]..end];
        if chunk.contains(&message) || chunk.contains(&short) {
            return out;
        }
        out.push((chunk.to_string(), String::new()));
    }
    out
}

/// One `llvm-readobj --sframe FILE...` run: the stdout and stderr of each file of a prefix
/// of `paths`. llvm-readobj heads each file's listing with `File: PATH` and names the file
/// in each of its messages (`PROG: warning: 'PATH': ...`), so they are told apart without
/// merging the streams. A file is taken when its listing is complete (the next file's
/// header printed, or llvm-readobj exited by itself with status 0) and every message is
/// about one file of the batch; an error (status 1: it stops at a file it cannot read), a
/// crash or a hang keeps only the files listed before the last one begun, and before any
/// file with an error.
fn readobj_batch(tool: &Path, paths: &[&Path], timeout: Duration) -> Vec<(String, String)> {
    let mut cmd = Command::new(tool);
    cmd.arg("--sframe").args(paths);
    let Ok(ran) = run_once(&mut cmd, timeout) else {
        return Vec::new();
    };
    let clean_exit = ran.status.is_some_and(|s| s.success());
    let (stdout, stderr) = (ran.stdout_text(), ran.stderr_text());
    split_readobj(&stdout, &stderr, paths, clean_exit)
}

/// Split a [`readobj_batch`] run's output into each file's stdout and stderr (see there).
fn split_readobj(
    stdout: &str,
    stderr: &str,
    paths: &[&Path],
    clean_exit: bool,
) -> Vec<(String, String)> {
    let mut starts = Vec::new();
    let mut from = 0;
    for p in paths {
        let header = format!("File: {}\n", p.display());
        match stdout[from..].find(&header) {
            // The header starts a line.
            Some(k) if from + k == 0 || stdout[..from + k].ends_with('\n') => {
                starts.push(from + k);
                from += k + header.len();
            }
            _ => break,
        }
    }
    // Anything but blank lines before the first header belongs to no file for sure.
    if starts
        .first()
        .is_none_or(|&s| !stdout[..s].trim().is_empty())
    {
        return Vec::new();
    }
    let complete = if clean_exit && starts.len() == paths.len() {
        starts.len()
    } else {
        starts.len().saturating_sub(1)
    };
    // Each message line goes to the file it names; one that names no file of the batch
    // (or two of them) cannot be placed, and nothing is certain then.
    let named = |line: &str| -> Option<usize> {
        let mut hits = paths
            .iter()
            .enumerate()
            .filter(|(_, p)| line.contains(&format!("'{}'", p.display())));
        let first = hits.next()?.0;
        hits.next().is_none().then_some(first)
    };
    let mut errs = vec![String::new(); paths.len()];
    for line in stderr.lines().filter(|l| !l.trim().is_empty()) {
        let Some(i) = named(line) else {
            return Vec::new();
        };
        errs[i].push_str(line);
        errs[i].push('\n');
    }
    // A file llvm-readobj could not read (an error, not a warning) ends the prefix: alone,
    // its run fails as a whole.
    let complete = (0..complete)
        .find(|&i| errs[i].contains(": error: "))
        .unwrap_or(complete);
    (0..complete)
        .map(|i| {
            // Each listing as a run of its own prints it: a blank line, then the header.
            let end = starts.get(i + 1).copied().unwrap_or(stdout.len());
            let listing = stdout[starts[i]..end].trim_end_matches('\n');
            (format!("\n{listing}\n"), std::mem::take(&mut errs[i]))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROG: &str = "/opt/bin/x86_64-linux-gnu-objdump-2.40";

    fn header(path: &str) -> String {
        format!("\n{path}:     file format elf64-x86-64\n\n")
    }

    #[test]
    fn a_batch_splits_at_file_headers_up_to_the_first_file_with_a_message() {
        let paths = [
            Path::new("/t/a.elf"),
            Path::new("/t/b.elf"),
            Path::new("/t/c.elf"),
        ];
        let a = format!(
            "{}Contents of the SFrame section .sframe:\n  rows a\n",
            header("/t/a.elf")
        );
        let b = format!(
            "{}{PROG}: Error: SFrame decode failure: x\n",
            header("/t/b.elf")
        );
        let c = format!(
            "{}Contents of the SFrame section .sframe:\n  rows c\n",
            header("/t/c.elf")
        );
        let text = format!("{a}{b}{c}");
        let out = split_batch(&text, PROG, &paths, true);
        assert_eq!(out, vec![(a.clone(), String::new())]);
        // All clean and exited: every file; killed: the last one's output may be cut short.
        let clean = format!("{a}{c}");
        let two = [paths[0], paths[2]];
        assert_eq!(split_batch(&clean, PROG, &two, true).len(), 2);
        assert_eq!(
            split_batch(&clean, PROG, &two, false),
            vec![(a.clone(), String::new())]
        );
        // An assertion message (glibc names the program by its file name) inside a row.
        let aborted = format!(
            "{}  row x86_64-linux-gnu-objdump-2.40: sframe.c:1175: assertion failed\n",
            header("/t/a.elf")
        );
        assert!(split_batch(&format!("{aborted}{c}"), PROG, &two, true).is_empty());
        // Output before the first header, or a header missing: nothing is certain past it.
        assert!(split_batch(&format!("junk\n{clean}"), PROG, &two, true).is_empty());
        assert_eq!(split_batch(&a, PROG, &two, true).len(), 0);
    }

    #[test]
    fn a_readobj_batch_splits_at_file_headers_and_places_each_message() {
        let paths = [
            Path::new("/t/a.elf"),
            Path::new("/t/b.elf"),
            Path::new("/t/c.elf"),
        ];
        let listing = |p: &str| {
            format!("\nFile: {p}\nFormat: elf64-x86-64\nSFrame section '.sframe' {{\n}}\n")
        };
        let stdout = format!(
            "{}{}{}",
            listing("/t/a.elf"),
            listing("/t/b.elf"),
            listing("/t/c.elf")
        );
        let warn = "llvm-readobj-23: warning: '/t/b.elf': invalid sframe section: x\n";
        let out = split_readobj(&stdout, warn, &paths, true);
        assert_eq!(out.len(), 3);
        assert_eq!(out[0], (listing("/t/a.elf"), String::new()));
        assert_eq!(out[1], (listing("/t/b.elf"), warn.to_string()));
        // Killed or failed: the last listing begun may be cut short.
        assert_eq!(split_readobj(&stdout, warn, &paths, false).len(), 2);
        // An error about a file ends the prefix before it.
        let error = "llvm-readobj-23: error: '/t/b.elf': the file is corrupt\n";
        assert_eq!(split_readobj(&stdout, error, &paths, false).len(), 1);
        // A message naming no file of the batch: nothing is certain.
        assert!(split_readobj(&stdout, "llvm-readobj-23: warning: x\n", &paths, true).is_empty());
        // Output before the first header, or a header missing.
        assert!(split_readobj(&format!("junk{stdout}"), "", &paths, true).is_empty());
        let two = format!("{}{}", listing("/t/a.elf"), listing("/t/c.elf"));
        assert_eq!(split_readobj(&two, "", &paths, true).len(), 0);
    }

    #[test]
    fn the_wrapper_is_an_elf_file_sframe_elf_reads_back() {
        let data = [0xe2u8, 0xde, 2, 0, 3, 0, 0xf8, 0];
        let elf = wrap_elf(&data, EM_X86_64, Endian::Little);
        let l = sframe_elf::load(&elf).unwrap();
        assert_eq!(l.bytes, data);
        assert_eq!(l.vaddr, 0);
    }
}
