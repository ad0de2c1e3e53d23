//! The findings ledger: every known disagreement, crash, hang or oracle mismatch, one
//! directory each under `corpus/findings/`, with a verdict.
//!
//! A finding is `corpus/findings/<ID>/finding.json` (format in `corpus/findings/README.md`)
//! beside its minimized reproducer and a Markdown report. A tool that observes a
//! discrepancy computes its *signature* (a stable string naming what disagreed, where) and
//! asks the ledger whether a finding covers it; the gate passes when every observed
//! signature is covered and fails naming the first new one.

pub use crate::claim::Claim;
use crate::diff::Discrepancy;
pub use crate::sanitizer::FirstBadAccess;
use crate::signature::{PatternError, Signature, SignaturePattern};
pub use crate::upstream_status::{Checked, SourceLines, Status, UpstreamStatus};
use serde::{Deserialize, Serialize};
use sframe_spec::{Quirk, Trigger};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What a finding says happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FindingKind {
    /// Two implementations give different results for the same input.
    Disagreement,
    /// An implementation crashed (signal, abort) on the input.
    Crash,
    /// An implementation did not answer in time.
    Hang,
    /// An implementation accepts what a rule of the spec rejects.
    AcceptedInvalid,
    /// An implementation rejects a section that breaks no rule.
    RejectedValid,
    /// The SFrame row for a PC does not recover the emulator's truth.
    OracleMismatch,
    /// A real producer wrote a section that breaks a rule.
    ProducerViolation,
}

/// What we concluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    ImplementationBug,
    ProducerBug,
    SpecAmbiguity,
    SpecTextDiscrepancy,
    ReferenceBugFixed,
    /// The implementation does it on purpose and says so (a comment, NEWS): not a bug.
    IntendedBehaviour,
    /// Not decided yet: still a finding, still covered by the ledger.
    Open,
}

/// A tool and its exact version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolVersion {
    pub name: String,
    pub version: String,
}

/// One ledger entry (`finding.json`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Finding {
    /// Stable ID, also the directory name, e.g. `F0001-libsframe-mask-rep-size-zero`.
    pub id: String,
    pub title: String,
    pub kind: FindingKind,
    pub verdict: Verdict,
    /// Implementations or producers involved, with exact versions.
    pub tools: Vec<ToolVersion>,
    /// Rule IDs of the catalogue involved, if any.
    #[serde(default)]
    pub rules: Vec<String>,
    /// Signatures this finding covers; `*` matches any run of characters (`:` included),
    /// e.g. `diff:libsframe-2.47:v2-pcrel*:find_fre:overlap.*`.
    pub signatures: Vec<String>,
    /// Reproducer files, relative to the finding's directory.
    #[serde(default)]
    pub reproducers: Vec<String>,
    /// Command that reproduces it from the repository's root.
    #[serde(default)]
    pub reproduce: String,
    /// Releases in which the finding no longer reproduces ("fixed in"), with versions.
    #[serde(default)]
    pub fixed_in: Vec<ToolVersion>,
    #[serde(default)]
    pub notes: String,
    /// Per implementation (`libsframe-2.47`, `simple-frame-rs`, ...), the quirks of the
    /// reference that reproduce this finding's behaviour: a value discrepancy of that
    /// implementation is explained here only when the reference with them on gives exactly
    /// the implementation's answer ([`crate::diff::explain`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub quirks: BTreeMap<String, Vec<Quirk>>,
    /// Per implementation, the triggers of this crash or hang finding: predicates over the
    /// input, as that release reads it, that say it reaches this bug. A crash or hang of
    /// that implementation is explained here when one holds, wherever it lands
    /// ([`crate::diff::triggers`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub triggers: BTreeMap<String, Vec<Trigger>>,
    /// The upstream source lines that decide the verdict, per release.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub upstream: Vec<Upstream>,
    /// Per implementation or producer, whether the newest upstream source still has it
    /// ([`UpstreamStatus`]): present, fixed or unknown, with the evidence.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub upstream_status: Vec<UpstreamStatus>,
    /// What the reproducers show, typed and checked (`cli/tests/claims.rs` runs each on the
    /// named implementation and release, or builds it with the named producer): the
    /// specific answer, crash, refusal or wrong row the title speaks of ([`Claim`]). Every
    /// finding has at least one; absent only in findings written by `diff --record`, which
    /// the claims test then names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub claim: Vec<Claim>,
    /// Memory-safety findings: per implementation and release, the first bad access an
    /// ASan/UBSan build of that release (from its Debian source) reports on the
    /// reproducers ([`FirstBadAccess`]), with the trimmed report beside the finding.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub first_bad_access: Vec<FirstBadAccess>,
}

/// Where an implementation's own source decides a finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Upstream {
    /// Implementation and release, e.g. `libsframe 2.47.50.20261021-1 (Debian sid)`.
    pub release: String,
    /// Source package or crate the file comes from, with its exact version
    /// (`binutils 2.40-2`, `simple-frame-rs 0.3.0`).
    pub source: String,
    /// Path inside that source tree.
    pub file: String,
    pub function: String,
    /// The lines that decide it, verbatim (white space may be folded).
    pub lines: String,
}

impl Finding {
    /// The finding's signature patterns, parsed.
    pub fn patterns(&self) -> Result<Vec<SignaturePattern>, PatternError> {
        self.signatures.iter().map(|s| s.parse()).collect()
    }

    /// Whether one of the finding's signature patterns matches `signature` (false for a
    /// finding whose patterns do not parse).
    pub fn covers(&self, signature: &Signature) -> bool {
        self.patterns()
            .is_ok_and(|ps| ps.iter().any(|p| p.matches(signature)))
    }
}

/// Check that a ledger signature pattern names what it covers: the class, the
/// implementation (or producer), the operation and the field, rule, error class or crash
/// site are never left open (`*`); only the version tag and, for oracle signatures, the ABI
/// may be (see [`SignaturePattern`]). Value disagreements of readers (`diff:` of `decode` or
/// `find_fre`) are never listed: they are explained by quirks.
pub fn check_pattern(pattern: &str) -> Result<(), String> {
    pattern
        .parse::<SignaturePattern>()
        .map(|_| ())
        .map_err(|e| format!("signature pattern {pattern:?}: {e}"))
}

/// All findings of a ledger directory.
#[derive(Debug, Clone, Default)]
pub struct Ledger {
    pub dir: PathBuf,
    pub findings: Vec<Finding>,
    /// Exact signatures seen and not triaged yet (`untriaged.json`): no finding, no
    /// verdict, never a pattern. Runs report them apart from findings; anything else that
    /// no finding explains is new.
    pub untriaged: std::collections::BTreeSet<String>,
    /// The findings' patterns, parsed by [`Ledger::load`] (one list per finding, in the
    /// same order); parsed on each look-up when they do not match `findings`.
    pub patterns: Vec<Vec<SignaturePattern>>,
}

/// The name [`Account::Untriaged`] is written by, in reports and summaries.
pub const UNTRIAGED: &str = "untriaged";

/// What the ledger says of a discrepancy ([`Ledger::account`]), ordered from the least
/// accounted for to the most: new, on the untriaged list, explained by a finding.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub enum Account {
    /// No finding explains it and its signature is not on the untriaged list.
    #[default]
    New,
    /// Its exact signature is on the untriaged list: known, not yet explained.
    Untriaged,
    /// The finding with this ID explains it.
    Finding(String),
}

impl Account {
    /// How well it is accounted for: 0 new, 1 untriaged, 2 a finding.
    pub fn rank(&self) -> u8 {
        match self {
            Account::New => 0,
            Account::Untriaged => 1,
            Account::Finding(_) => 2,
        }
    }
    pub fn is_new(&self) -> bool {
        *self == Account::New
    }
    /// The finding's ID, when a finding explains it.
    pub fn finding(&self) -> Option<&str> {
        match self {
            Account::Finding(id) => Some(id),
            _ => None,
        }
    }
    /// As reports write it: the finding's ID, [`UNTRIAGED`], or nothing for a new one.
    pub fn label(&self) -> Option<&str> {
        match self {
            Account::New => None,
            Account::Untriaged => Some(UNTRIAGED),
            Account::Finding(id) => Some(id),
        }
    }
}

/// Written as its [`Account::label`]: `null`, `"untriaged"` or the finding's ID.
impl Serialize for Account {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.label().serialize(s)
    }
}

/// `untriaged.json`: the debt list.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Untriaged {
    pub note: String,
    pub signatures: Vec<String>,
}

/// A ledger entry that could not be read.
#[derive(Debug)]
pub struct LedgerError {
    pub path: PathBuf,
    pub message: String,
}

impl std::fmt::Display for LedgerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

impl Ledger {
    /// The repository's ledger, `corpus/findings/` (found from this crate's location).
    pub fn default_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/findings")
    }

    /// Load every `*/finding.json` under `dir`. A missing directory is an empty ledger; an
    /// unreadable entry is an error (a broken ledger must not hide findings).
    pub fn load(dir: &Path) -> Result<Ledger, LedgerError> {
        let mut findings = Vec::new();
        let mut patterns = Vec::new();
        let entries = match std::fs::read_dir(dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Ledger {
                    dir: dir.to_path_buf(),
                    ..Ledger::default()
                })
            }
            Err(e) => {
                return Err(LedgerError {
                    path: dir.to_path_buf(),
                    message: e.to_string(),
                })
            }
        };
        let mut paths: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path().join("finding.json")))
            .collect();
        paths.sort();
        for p in paths.into_iter().filter(|p| p.is_file()) {
            let text = std::fs::read_to_string(&p).map_err(|e| LedgerError {
                path: p.clone(),
                message: e.to_string(),
            })?;
            let f: Finding = serde_json::from_str(&text).map_err(|e| LedgerError {
                path: p.clone(),
                message: e.to_string(),
            })?;
            let dir_name = p
                .parent()
                .and_then(|d| d.file_name())
                .map(|n| n.to_string_lossy().into_owned());
            if dir_name.as_deref() != Some(f.id.as_str()) {
                return Err(LedgerError {
                    path: p,
                    message: format!("id {:?} differs from its directory name", f.id),
                });
            }
            if let Some(bad) = f.upstream_status.iter().find_map(|u| u.check().err()) {
                return Err(LedgerError {
                    path: p,
                    message: bad,
                });
            }
            match f.patterns() {
                Ok(ps) => patterns.push(ps),
                Err(e) => {
                    let bad = f
                        .signatures
                        .iter()
                        .find_map(|s| check_pattern(s).err())
                        .unwrap_or_else(|| e.to_string());
                    return Err(LedgerError {
                        path: p,
                        message: bad,
                    });
                }
            }
            findings.push(f);
        }
        let list = dir.join("untriaged.json");
        let untriaged = match std::fs::read_to_string(&list) {
            Ok(text) => {
                let u: Untriaged = serde_json::from_str(&text).map_err(|e| LedgerError {
                    path: list.clone(),
                    message: e.to_string(),
                })?;
                if let Some(s) = u.signatures.iter().find(|s| s.contains('*')) {
                    return Err(LedgerError {
                        path: list,
                        message: format!("{s:?}: untriaged signatures are exact, never patterns"),
                    });
                }
                u.signatures.into_iter().collect()
            }
            Err(_) => Default::default(),
        };
        Ok(Ledger {
            dir: dir.to_path_buf(),
            findings,
            untriaged,
            patterns,
        })
    }

    /// What the ledger says of a discrepancy: the finding that explains it
    /// ([`Ledger::finding_for`]), else whether its exact signature is on the untriaged list.
    pub fn account(&self, d: &Discrepancy) -> Account {
        match self.finding_for(d) {
            Some(f) => Account::Finding(f.id.clone()),
            None => self.untriaged_or_new(&d.signature),
        }
    }

    /// [`Ledger::account`] for a discrepancy known only by its signature, one that no quirk
    /// explained: a reader's value disagreement or refusal (`diff:`, `rejected-valid:`, not
    /// `encode`) is then only ever on the untriaged list; other classes match the findings'
    /// patterns.
    pub fn account_signature(&self, signature: &Signature) -> Account {
        match Some(signature)
            .filter(|s| !s.is_reader_value())
            .and_then(|s| self.lookup_signature(s))
        {
            Some(f) => Account::Finding(f.id.clone()),
            None => self.untriaged_or_new(signature),
        }
    }

    fn untriaged_or_new(&self, signature: &Signature) -> Account {
        if self.untriaged.contains(&signature.to_string()) {
            Account::Untriaged
        } else {
            Account::New
        }
    }

    /// The finding whose patterns match `signature`, if any.
    ///
    /// A triaged finding wins over an `open` one (the untriaged clusters cover whole
    /// implementations with wide patterns; a cause found later must not hide behind them).
    pub fn lookup_signature(&self, signature: &Signature) -> Option<&Finding> {
        let parsed;
        let patterns = if self.patterns.len() == self.findings.len() {
            &self.patterns
        } else {
            parsed = self
                .findings
                .iter()
                .map(|f| f.patterns().unwrap_or_default())
                .collect::<Vec<_>>();
            &parsed
        };
        let mut covering = self
            .findings
            .iter()
            .zip(patterns)
            .filter(|(_, ps)| ps.iter().any(|p| p.matches(signature)))
            .map(|(f, _)| f);
        let first = covering.next()?;
        if first.verdict != Verdict::Open {
            return Some(first);
        }
        Some(
            covering
                .find(|f| f.verdict != Verdict::Open)
                .unwrap_or(first),
        )
    }

    /// The finding that explains a discrepancy, if any. A reader's value disagreement
    /// (`diff:`) or refusal of a valid section (`rejected-valid:`) is explained only by quirks (the engine has set
    /// [`Discrepancy::explained_by`]); the other classes, and what an encoder wrote, by a
    /// signature pattern (see [`check_pattern`]).
    pub fn finding_for(&self, d: &Discrepancy) -> Option<&Finding> {
        if let Some(id) = d.explained_by.first() {
            return self.findings.iter().find(|f| &f.id == id);
        }
        if d.signature.is_reader_value() {
            return None;
        }
        // The triggers read the input and none of the ledger's holds: new, wherever it lands.
        if d.trigger.is_some() {
            return None;
        }
        self.lookup_signature(&d.signature)
    }

    /// Write a new finding: `finding.json`, the reproducer files and a Markdown report.
    pub fn record(
        &self,
        finding: &Finding,
        files: &[(&str, &[u8])],
        report_md: &str,
    ) -> std::io::Result<PathBuf> {
        let d = self.dir.join(&finding.id);
        std::fs::create_dir_all(&d)?;
        for (name, bytes) in files {
            std::fs::write(d.join(name), bytes)?;
        }
        std::fs::write(d.join("README.md"), report_md)?;
        let json = serde_json::to_string_pretty(finding).map_err(std::io::Error::other)?;
        std::fs::write(d.join("finding.json"), json + "\n")?;
        Ok(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(sigs: &[&str]) -> Finding {
        Finding {
            id: "F0000-test".into(),
            title: "t".into(),
            kind: FindingKind::Crash,
            verdict: Verdict::Open,
            tools: vec![],
            rules: vec![],
            signatures: sigs.iter().map(|s| s.to_string()).collect(),
            reproducers: vec![],
            reproduce: String::new(),
            fixed_in: vec![],
            notes: String::new(),
            quirks: BTreeMap::new(),
            triggers: BTreeMap::new(),
            upstream: vec![],
            upstream_status: vec![],
            claim: vec![],
            first_bad_access: vec![],
        }
    }

    #[test]
    fn patterns_name_implementation_operation_and_field() {
        for ok in [
            "accepted-invalid:libsframe-2.47:v*:invalid:FDE-SORTED",
            "crash:libsframe-2.40:v1*:decode:SIGSEGV:sframe_decode",
            "crash:simple-frame-rs:v3:decode:panic:src/v3.rs:258",
            "rejected-valid:libsframe-2.47:v3*:encode:encoder",
            "diff:libsframe-2.47:v3*:encode:header.flags",
            "oracle:gnu-as-2.40:*:_start:ra",
        ] {
            assert_eq!(check_pattern(ok), Ok(()), "{ok}");
        }
        for bad in [
            "diff:libsframe-2.47:v2:find_fre:row.cfa",
            "rejected-valid:libsframe-2.44:v2-pcrel:decode:SFRAME_ERR_NOMEM",
            "accepted-invalid:libsframe-2.47:v*:invalid:*",
            "accepted-invalid:simple-frame-rs:*",
            "crash:libsframe-2.47:*",
            "crash:libsframe-2.47:v1:decode:SIGSEGV:*",
            "crash:libsframe-2.47:v1:*:SIGSEGV:sframe_decode",
            "rejected-valid:*:v2:decode:x",
            "oracle:gnu-as-2.40:amd64:frame_1m:*",
            "nonsense:a:b:c:d",
        ] {
            assert!(check_pattern(bad).is_err(), "{bad}");
        }
    }

    /// A signature written as the ledger writes it.
    fn sig(text: &str) -> Signature {
        text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn signatures_match_exactly_or_by_tag() {
        let f = finding(&[
            "crash:libsframe-2.47:v1*:decode:SIGSEGV:sframe_decode",
            "hang:libsframe-2.47:v2:decode",
        ]);
        assert!(f.covers(&sig(
            "crash:libsframe-2.47:v1-fdeoff:decode:SIGSEGV:sframe_decode"
        )));
        assert!(f.covers(&sig("hang:libsframe-2.47:v2:decode")));
        assert!(!f.covers(&sig("hang:libsframe-2.47:v2-pcrel:decode")));
        assert!(!f.covers(&sig("crash:libsframe-2.44:v1:decode:SIGSEGV:sframe_decode")));
        assert!(!f.covers(&sig("crash:libsframe-2.47:v1:decode:SIGSEGV")));
    }

    #[test]
    fn a_triaged_finding_wins_over_an_open_cluster() {
        let mut cluster = finding(&["accepted-invalid:simple-frame-rs:*:invalid:FDE-SORTED"]);
        cluster.id = "F0131-cluster".into();
        let mut cause = finding(&["accepted-invalid:simple-frame-rs:v2-aux*:invalid:FDE-SORTED"]);
        cause.id = "F0135-cause".into();
        cause.verdict = Verdict::ImplementationBug;
        let l = Ledger {
            findings: vec![cluster, cause],
            ..Ledger::default()
        };
        assert_eq!(
            l.lookup_signature(&sig(
                "accepted-invalid:simple-frame-rs:v2-aux:invalid:FDE-SORTED"
            ))
            .unwrap()
            .id,
            "F0135-cause"
        );
        assert_eq!(
            l.lookup_signature(&sig(
                "accepted-invalid:simple-frame-rs:v2:invalid:FDE-SORTED"
            ))
            .unwrap()
            .id,
            "F0131-cluster"
        );
        assert!(l
            .lookup_signature(&sig(
                "accepted-invalid:libsframe-2.47:v2:invalid:FDE-SORTED"
            ))
            .is_none());
    }

    #[test]
    fn a_star_in_the_tag_matches_any_run_of_it() {
        let f = finding(&["crash:libsframe-2.47:v*-aux*:find_fre:SIGSEGV:sframe_find_fre"]);
        let tagged = |t: &str| {
            sig(&format!(
                "crash:libsframe-2.47:{t}:find_fre:SIGSEGV:sframe_find_fre"
            ))
        };
        assert!(f.covers(&tagged("v2-aux")));
        assert!(f.covers(&tagged("v3-pcrel-aux-fdeoff-freoff")));
        assert!(!f.covers(&tagged("v2-pcrel")));
        assert!(!f.covers(&sig(
            "crash:libsframe-2.47:v2-aux:decode:SIGSEGV:sframe_find_fre"
        )));
    }

    #[test]
    fn record_then_load_round_trips_and_rejects_misnamed_entries() {
        let dir = std::env::temp_dir().join(format!("sframe-ledger-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let l = Ledger {
            dir: dir.clone(),
            ..Ledger::default()
        };
        l.record(
            &finding(&["hang:libsframe-2.47:v2:decode"]),
            &[("input.sframe", b"\xe2\xde")],
            "# t\n",
        )
        .unwrap();
        let back = Ledger::load(&dir).unwrap();
        assert_eq!(back.findings.len(), 1);
        assert!(back
            .lookup_signature(&sig("hang:libsframe-2.47:v2:decode"))
            .is_some());
        std::fs::rename(dir.join("F0000-test"), dir.join("F0001-other")).unwrap();
        assert!(Ledger::load(&dir).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_upstream_status_without_its_evidence_does_not_load() {
        let dir = std::env::temp_dir().join(format!("sframe-ledger-status-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let l = Ledger {
            dir: dir.clone(),
            ..Ledger::default()
        };
        let mut f = finding(&["hang:libsframe-2.47:v2:decode"]);
        f.upstream_status.push(UpstreamStatus::new(
            "libsframe",
            Status::Fixed,
            "binutils-source 2.47.50.20261021-1 (Debian sid)",
            Checked::Reading,
        ));
        l.record(&f, &[], "# t\n").unwrap();
        let e = Ledger::load(&dir).unwrap_err();
        assert!(e.message.contains("without the change"), "{e}");
        f.upstream_status[0].change = "ChangeLog 2026-01-01: bounds-check FREs".into();
        l.record(&f, &[], "# t\n").unwrap();
        let back = Ledger::load(&dir).unwrap();
        assert_eq!(back.findings[0].upstream_status, f.upstream_status);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
