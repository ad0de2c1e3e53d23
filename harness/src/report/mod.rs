//! Bug reports a maintainer files as they are.
//!
//! For a finding that is a bug (verdict `implementation-bug` or `producer-bug`) and still
//! `present` in the newest upstream source ([`crate::upstream_status`]), a report that needs
//! nothing of this project: a one-line summary in the upstream project's style, the releases
//! tested (exact Debian versions) and the newest source read, a reproducer made of the
//! upstream project's own tools (an assembly file and the `as` line; a raw section wrapped in
//! a minimal ELF file, [`sframe_elf::wrap`]; a short C program on libsframe's public API; a
//! small Cargo project on simple-frame-rs's),
//! the actual answer as the real tool prints it, the expected one with the sentence of the
//! manual that decides it, the source lines at fault, and the sanitizer report of a
//! memory-safety bug where `sanitizer-*.txt` files hold one.
//!
//! What cannot be derived from `finding.json` is written by hand in the finding's
//! [`INPUT`] file ([`Input`]); the report is rendered from both ([`render`]) into
//! [`OUTPUT`]. `harness/tests/reports.rs` checks that the committed reports are what
//! rendering gives, and runs every reproducer on the named tools to see that it prints
//! the lines the report says it prints.

pub mod render;

use crate::ledger::{Finding, Verdict};
use crate::signature::Signal;
use crate::upstream_status::{Status, UpstreamStatus};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

pub use render::{render, Format};

/// The hand-written part of a report, beside `finding.json`.
pub const INPUT: &str = "report.json";
/// The generated report (Markdown) committed beside it.
pub const OUTPUT: &str = "report.md";
/// The prefix of the files holding a sanitizer's report for a memory-safety finding
/// (`sanitizer-<implementation>-<release>.txt`).
pub const SANITIZER_PREFIX: &str = "sanitizer-";

/// An upstream project and the releases of it that Debian ships and the reports are tested
/// on. `harness/tests/reports.rs` checks these versions against the provisioned tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Release {
    pub project: Project,
    /// The short name the reports and the cache use (`2.44`, `23`).
    pub release: &'static str,
    /// The Debian package version (a crate's: its crates.io version).
    pub debian: &'static str,
    /// The Debian suite (a crate's: `crates.io`).
    pub suite: &'static str,
}

/// The upstream projects reports are written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Project {
    /// GNU binutils (libsframe, objdump, readelf, gas, ld): sourceware's bugzilla.
    Binutils,
    /// LLVM (llvm-mc, llvm-readobj): LLVM's GitHub issues.
    Llvm,
    /// The simple-frame-rs crate (crates.io): its repository's GitHub issues.
    SimpleFrameRs,
    /// The GNU C Library (its SFrame reader, sysdeps/generic/sframe-read.c, which serves
    /// backtrace()): sourceware's bugzilla.
    Glibc,
}

impl Project {
    pub fn name(self) -> &'static str {
        match self {
            Project::Binutils => "GNU binutils",
            Project::Llvm => "LLVM",
            Project::SimpleFrameRs => "simple-frame-rs",
            Project::Glibc => "glibc",
        }
    }
    /// Where the project takes bug reports.
    pub fn tracker(self) -> &'static str {
        match self {
            Project::Binutils => "https://sourceware.org/bugzilla/, product binutils",
            Project::Llvm => "https://github.com/llvm/llvm-project/issues",
            // The crate's Cargo.toml: repository = "https://github.com/jiegec/simple-frame-rs".
            Project::SimpleFrameRs => "https://github.com/jiegec/simple-frame-rs/issues",
            Project::Glibc => "https://sourceware.org/bugzilla/, product glibc",
        }
    }
}

/// The releases under test, as Debian ships them.
pub const RELEASES: &[Release] = &[
    Release {
        project: Project::Binutils,
        release: "2.40",
        debian: "2.40-2",
        suite: "bookworm",
    },
    Release {
        project: Project::Binutils,
        release: "2.44",
        debian: "2.44-3",
        suite: "trixie",
    },
    Release {
        project: Project::Binutils,
        release: "2.47",
        debian: "2.47.50.20261021-1",
        suite: "sid",
    },
    Release {
        project: Project::Llvm,
        release: "23",
        debian: "1:23.1.4-2",
        suite: "sid",
    },
    Release {
        project: Project::SimpleFrameRs,
        release: "0.3.0",
        debian: "0.3.0",
        suite: "crates.io",
    },
    Release {
        project: Project::Glibc,
        release: "2.43",
        debian: "2.43-6",
        suite: "sid",
    },
];

/// `release` of `project`, if it is one under test.
pub fn release(project: Project, release: &str) -> Option<&'static Release> {
    RELEASES
        .iter()
        .find(|r| r.project == project && r.release == release)
}

/// The hand-written part of a report ([`INPUT`]).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Input {
    pub project: Project,
    /// The `upstream_status` implementations the report is about (all must be `present`).
    pub implementations: Vec<String>,
    /// The one-line summary, in the project's style (`gas: ...`, `libsframe: ...`).
    pub summary: String,
    /// The releases the reproducer was run on (and shows the bug on).
    pub releases: Vec<String>,
    /// The target triple of the binutils tools (`x86_64-linux-gnu`, `s390x-linux-gnu`).
    #[serde(default)]
    pub triple: String,
    /// What goes wrong, in a paragraph.
    pub problem: String,
    /// The reproducer's files, in the order they are written.
    pub files: Vec<FileSpec>,
    /// The commands, in order.
    pub steps: Vec<Step>,
    /// What the tool should say instead.
    pub expected: String,
    /// What the shown output means (the lines themselves are the steps' `shows`).
    pub actual: String,
    /// The texts that decide it.
    pub decided_by: Vec<Text>,
}

/// A file of the reproducer.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileSpec {
    /// Its name in the reproducer.
    pub name: String,
    /// A text file of the finding's directory, written out as it is.
    #[serde(default)]
    pub from: String,
    /// A raw section of the finding's directory, wrapped in a minimal ELF file of its
    /// machine and byte order.
    #[serde(default)]
    pub elf_from: String,
    /// A file of the finding's directory (or of another finding's, `../FNNNN-.../file`),
    /// written byte for byte (a raw section for a C or Rust program to read).
    #[serde(default)]
    pub bytes_from: String,
    /// One of this project's C programs for reports ([`PROGRAMS`]), by name.
    #[serde(default)]
    pub program: String,
}

/// The programs reports use: (name, source). `lookup.c` on libsframe's public API;
/// `glibc-lookup.c`, linked with glibc's own `sysdeps/generic/sframe-read.c` (glibc's reader
/// has no public API), calls the reader's entry points as its walker does; the Cargo project
/// `simple-frame-rs/` (its `Cargo.toml` names `main.rs` as the binary, so both files sit
/// beside the section) on simple-frame-rs's. That manifest is kept as `Cargo.toml.in`: a
/// `Cargo.toml` would make its directory a package of its own, which cargo leaves out of the
/// packaged harness.
pub const PROGRAMS: &[(&str, &str)] = &[
    ("lookup.c", include_str!("lookup.c")),
    ("glibc-lookup.c", include_str!("glibc-lookup.c")),
    (
        "simple-frame-rs/Cargo.toml",
        include_str!("simple-frame-rs/Cargo.toml.in"),
    ),
    (
        "simple-frame-rs/main.rs",
        include_str!("simple-frame-rs/main.rs"),
    ),
];

/// One command of the reproducer.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// The command line, as the report prints it and the test runs it.
    pub run: Vec<String>,
    /// Per release (`*`: every release), lines its output (stdout, then stderr) holds.
    #[serde(default)]
    pub shows: BTreeMap<String, Vec<String>>,
    /// Per release (`*`: every release), how it ends when not with status 0: `exit N`,
    /// `signal N` ([`Signal::Exit`], [`Signal::Number`]).
    #[serde(default)]
    pub status: BTreeMap<String, Signal>,
}

impl Step {
    /// What this step shows on `release`.
    pub fn shows_on(&self, release: &str) -> &[String] {
        per_release(&self.shows, release)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }
    /// How it ends on `release`: `exit 0` unless said otherwise.
    pub fn status_on(&self, release: &str) -> Signal {
        per_release(&self.status, release)
            .cloned()
            .unwrap_or(Signal::Exit(0))
    }
    /// The command line as a shell would take it.
    pub fn command_line(&self) -> String {
        self.run
            .iter()
            .map(|a| shell_word(a))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

fn per_release<'a, T>(m: &'a BTreeMap<String, T>, release: &str) -> Option<&'a T> {
    m.get(release).or_else(|| m.get("*"))
}

fn shell_word(a: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./=,:+@%".contains(c);
    if !a.is_empty() && a.chars().all(plain) {
        a.to_string()
    } else {
        format!("'{}'", a.replace('\'', "'\\''"))
    }
}

/// A text that decides the report: a rule of the catalogue (its quote), or a quote of its own.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Text {
    /// A rule ID of `sframe_spec::rules`, whose basis is quoted.
    #[serde(default)]
    pub rule: String,
    /// Otherwise: where the quote comes from (`sid/sframe-spec.info §2.4`, `DWARF 5 §6.4.2.2`).
    #[serde(default)]
    pub source: String,
    #[serde(default)]
    pub quote: String,
}

impl Text {
    /// The citation and the quoted words.
    pub fn resolve(&self) -> Result<(String, String), String> {
        if self.rule.is_empty() {
            if self.source.is_empty() || self.quote.is_empty() {
                return Err("a text without a rule needs a source and a quote".into());
            }
            return Ok((self.source.clone(), self.quote.clone()));
        }
        let rule = sframe_spec::Rule::from_id(&self.rule)
            .ok_or_else(|| format!("no rule {} in the catalogue", self.rule))?;
        let basis = rule.info().basis;
        Ok((basis.source(), basis.text().to_string()))
    }
}

/// Why a finding gets no report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// No finding has this ID (or ID prefix).
    Unknown(String),
    /// The verdict is not a bug of an implementation or producer.
    NotABug { id: String, verdict: String },
    /// No implementation the finding names is still `present` upstream.
    NotPresent { id: String, statuses: String },
    /// A bug still present, but its report's hand-written part is not written yet.
    NoInput { id: String },
    /// The hand-written part is there but wrong.
    BadInput { id: String, why: String },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Unknown(id) => write!(f, "{id}: no such finding in the ledger"),
            Refusal::NotABug { id, verdict } => write!(
                f,
                "{id}: verdict {verdict}, not implementation-bug or producer-bug: no bug to report"
            ),
            Refusal::NotPresent { id, statuses } => write!(
                f,
                "{id}: not present in any newest upstream source ({statuses}): nothing to report upstream"
            ),
            Refusal::NoInput { id } => write!(
                f,
                "{id}: a present bug, but its {INPUT} (summary, reproducer steps, expected) is not written yet"
            ),
            Refusal::BadInput { id, why } => write!(f, "{id}: {INPUT}: {why}"),
        }
    }
}

/// A finding is a bug to report upstream: its verdict, and a `present` status.
pub fn eligible(f: &Finding) -> Result<(), Refusal> {
    if !matches!(f.verdict, Verdict::ImplementationBug | Verdict::ProducerBug) {
        let verdict = serde_json::to_value(f.verdict)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        return Err(Refusal::NotABug {
            id: f.id.clone(),
            verdict,
        });
    }
    if !f
        .upstream_status
        .iter()
        .any(|s| s.status == Status::Present)
    {
        return Err(Refusal::NotPresent {
            id: f.id.clone(),
            statuses: crate::upstream_status::summary(&f.upstream_status),
        });
    }
    Ok(())
}

/// A file of the reproducer, ready to be written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    Text(String),
    Binary(Vec<u8>),
}

/// Everything a report is rendered from.
#[derive(Debug, Clone)]
pub struct Prepared {
    pub finding: Finding,
    pub input: Input,
    /// The reproducer's files, in order.
    pub files: Vec<(String, Content)>,
    /// The `upstream_status` entries the report is about.
    pub statuses: Vec<UpstreamStatus>,
    /// Further `upstream_status` entries of those implementations (a development branch
    /// read besides the newest release), whatever their status.
    pub also: Vec<UpstreamStatus>,
    /// `sanitizer-*.txt` files of the finding's directory: (file name, text).
    pub sanitizer: Vec<(String, String)>,
    /// The finding's directory, relative to the repository (for the report's last line).
    pub dir: String,
}

/// Read the finding's [`INPUT`] and files from `ledger_dir/<id>/` and check them.
pub fn prepare(ledger_dir: &Path, f: &Finding) -> Result<Prepared, Refusal> {
    eligible(f)?;
    let dir = ledger_dir.join(&f.id);
    let bad = |why: String| Refusal::BadInput {
        id: f.id.clone(),
        why,
    };
    let text = match std::fs::read_to_string(dir.join(INPUT)) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Refusal::NoInput { id: f.id.clone() })
        }
        Err(e) => return Err(bad(e.to_string())),
    };
    let input: Input = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    let mut statuses = Vec::new();
    let mut also = Vec::new();
    for imp in &input.implementations {
        let s = f
            .upstream_status
            .iter()
            .find(|s| &s.implementation == imp)
            .ok_or_else(|| bad(format!("{imp} has no upstream_status in finding.json")))?;
        if s.status != Status::Present {
            return Err(bad(format!(
                "{imp} is {} upstream, not present",
                s.status.name()
            )));
        }
        statuses.push(s.clone());
        also.extend(
            f.upstream_status
                .iter()
                .filter(|o| &o.implementation == imp && !std::ptr::eq(*o, s))
                .cloned(),
        );
    }
    if statuses.is_empty() {
        return Err(bad("names no implementation".into()));
    }
    if input.releases.is_empty() {
        return Err(bad("names no release".into()));
    }
    for r in &input.releases {
        if release(input.project, r).is_none() {
            return Err(bad(format!(
                "{r} is no release of {} under test",
                input.project.name()
            )));
        }
    }
    for t in &input.decided_by {
        t.resolve().map_err(&bad)?;
    }
    if input.decided_by.is_empty() {
        return Err(bad("names no text that decides it".into()));
    }
    if !input.steps.iter().any(|s| !s.shows.is_empty()) {
        return Err(bad("no step shows the actual answer".into()));
    }
    let mut files = Vec::new();
    for spec in &input.files {
        let read =
            |name: &str| std::fs::read(dir.join(name)).map_err(|e| bad(format!("{name}: {e}")));
        let given = [&spec.from, &spec.elf_from, &spec.bytes_from, &spec.program];
        if given.iter().filter(|s| !s.is_empty()).count() != 1 {
            return Err(bad(format!(
                "file {} needs exactly one of from, elf_from, bytes_from, program",
                spec.name
            )));
        }
        let content = if !spec.from.is_empty() {
            Content::Text(
                String::from_utf8(read(&spec.from)?)
                    .map_err(|_| bad(format!("{}: not UTF-8 text", spec.from)))?,
            )
        } else if !spec.elf_from.is_empty() {
            Content::Binary(
                wrap_section(&read(&spec.elf_from)?)
                    .map_err(|e| bad(format!("{}: {e}", spec.elf_from)))?,
            )
        } else if !spec.bytes_from.is_empty() {
            Content::Binary(read(&spec.bytes_from)?)
        } else {
            let (_, text) = PROGRAMS
                .iter()
                .find(|(n, _)| *n == spec.program)
                .ok_or_else(|| bad(format!("no program {}", spec.program)))?;
            Content::Text((*text).to_string())
        };
        files.push((spec.name.clone(), content));
    }
    let mut sanitizer = Vec::new();
    if let Ok(rd) = std::fs::read_dir(&dir) {
        let mut names: Vec<PathBuf> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                // `sanitizer-<implementation>-<release>.txt`, of a release the report is about.
                p.file_name()
                    .and_then(|n| n.to_str())
                    .and_then(|n| n.strip_prefix(SANITIZER_PREFIX)?.strip_suffix(".txt"))
                    .and_then(|n| n.rsplit_once('-'))
                    .is_some_and(|(_, release)| input.releases.iter().any(|r| r == release))
            })
            .collect();
        names.sort();
        for p in names {
            let t =
                std::fs::read_to_string(&p).map_err(|e| bad(format!("{}: {e}", p.display())))?;
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            sanitizer.push((name, t));
        }
    }
    Ok(Prepared {
        finding: f.clone(),
        input,
        files,
        statuses,
        also,
        sanitizer,
        dir: format!("corpus/findings/{}", f.id),
    })
}

/// A raw SFrame section in a minimal ELF file of the machine its ABI byte names and the
/// byte order of its magic.
pub fn wrap_section(raw: &[u8]) -> Result<Vec<u8>, String> {
    let endian = sframe_spec::Endian::from_magic(raw).ok_or("no SFrame magic")?;
    let abi = raw
        .get(sframe_spec::layout::header::ABI_ARCH)
        .copied()
        .and_then(sframe_spec::Abi::from_u8)
        .ok_or("no known ABI byte")?;
    Ok(sframe_elf::wrap::wrap_sframe(
        raw,
        sframe_elf::wrap::e_machine(abi),
        endian,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_are_quoted_only_when_needed() {
        assert_eq!(shell_word("--sframe"), "--sframe");
        assert_eq!(shell_word("a b"), "'a b'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
    }

    #[test]
    fn a_step_without_a_status_ends_with_status_0() {
        let s: Step = serde_json::from_str(
            r#"{"run": ["objdump", "--sframe", "r.o"], "shows": {"2.47": ["x"]}, "status": {"*": "signal 11"}}"#,
        )
        .unwrap();
        assert_eq!(s.shows_on("2.47"), ["x".to_string()]);
        assert!(s.shows_on("2.44").is_empty());
        assert_eq!(s.status_on("2.40"), Signal::Number(11));
        let t: Step = serde_json::from_str(r#"{"run": ["as"]}"#).unwrap();
        assert_eq!(t.status_on("2.40"), Signal::Exit(0));
    }
}
