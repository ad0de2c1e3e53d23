//! The findings ledger: every known disagreement, crash, hang or oracle mismatch, one
//! directory each under `corpus/findings/`, with a verdict.
//!
//! A finding is `corpus/findings/<ID>/finding.json` (format in `corpus/findings/README.md`;
//! the entry is [`Finding`]) beside its minimized reproducer and a Markdown report. A tool
//! that observes a discrepancy computes its [`Signature`] and asks the ledger one question,
//! [`Ledger::account`]: a finding explains it, it is on the untriaged list, or it is new.
//! What the tool knows beyond the signature (the finding whose quirks or trigger explain it,
//! whether the ledger's triggers read the input) it tells through [`Observed`].

pub mod claim;
mod finding;
pub mod first_bad_access;
pub mod upstream_status;

pub use claim::{Build, Checker, Claim, RowField, RowSeen, WalkSeen};
pub use finding::{Finding, FindingKind, ToolVersion, Upstream, Verdict};
pub use first_bad_access::{Access, ErrorClass, FirstBadAccess, Operation};
pub use upstream_status::{Checked, SourceLines, Status, UpstreamStatus};

use crate::signature::Signature;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// All findings of a ledger directory.
#[derive(Debug, Clone, Default)]
pub struct Ledger {
    pub dir: PathBuf,
    pub findings: Vec<Finding>,
    /// Exact signatures seen and not triaged yet (`untriaged.json`): no finding, no
    /// verdict, never a pattern. Runs report them apart from findings; anything else that
    /// no finding explains is new.
    pub untriaged: BTreeSet<Signature>,
}

/// A discrepancy as the ledger judges it: its signature, and what the tool that observed it
/// already knows explains it. A bare [`Signature`] is one that nothing else explained.
pub trait Observed {
    fn signature(&self) -> &Signature;
    /// The finding the tool credited with it: the finding whose quirks make the reference
    /// give the implementation's answer, or whose trigger holds on the input.
    fn explained_by(&self) -> Option<&str> {
        None
    }
    /// The ledger's triggers read the input of this crash or hang and none of them holds
    /// (or one that no finding names for the implementation): it is new wherever it lands,
    /// whatever pattern its signature would match.
    fn triggers_say_new(&self) -> bool {
        false
    }
}

impl Observed for Signature {
    fn signature(&self) -> &Signature {
        self
    }
}

impl<T: Observed + ?Sized> Observed for &T {
    fn signature(&self) -> &Signature {
        (**self).signature()
    }
    fn explained_by(&self) -> Option<&str> {
        (**self).explained_by()
    }
    fn triggers_say_new(&self) -> bool {
        (**self).triggers_say_new()
    }
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
    /// Exact signatures, read by [`Signature`]'s `FromStr`; one holding a `*` (a pattern's
    /// open part) is refused.
    #[serde(deserialize_with = "exact_signatures")]
    pub signatures: Vec<Signature>,
}

/// The untriaged list's signatures: each text parsed as a [`Signature`], never a pattern.
fn exact_signatures<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Signature>, D::Error> {
    use serde::de::Error;
    Vec::<String>::deserialize(d)?
        .iter()
        .map(|s| {
            if s.contains('*') {
                Err(D::Error::custom(format_args!(
                    "{s:?}: untriaged signatures are exact, never patterns"
                )))
            } else {
                s.parse()
                    .map_err(|e| D::Error::custom(format_args!("{s:?}: {e}")))
            }
        })
        .collect()
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
            findings.push(f);
        }
        let list = dir.join("untriaged.json");
        let untriaged = match std::fs::read_to_string(&list) {
            Ok(text) => {
                let u: Untriaged = serde_json::from_str(&text).map_err(|e| LedgerError {
                    path: list.clone(),
                    message: e.to_string(),
                })?;
                u.signatures.into_iter().collect()
            }
            Err(_) => Default::default(),
        };
        Ok(Ledger {
            dir: dir.to_path_buf(),
            findings,
            untriaged,
        })
    }

    /// What the ledger says of a discrepancy: the finding that explains it
    /// ([`Ledger::finding_for`]), else whether its exact signature is on the untriaged list.
    /// A bare [`Signature`] is a discrepancy nothing else explained.
    pub fn account<O: Observed + ?Sized>(&self, d: &O) -> Account {
        match self.finding_for(d) {
            Some(f) => Account::Finding(f.id.clone()),
            None if self.untriaged.contains(d.signature()) => Account::Untriaged,
            None => Account::New,
        }
    }

    /// The finding whose patterns match `signature`, if any.
    ///
    /// A triaged finding wins over an `open` one (the untriaged clusters cover whole
    /// implementations with wide patterns; a cause found later must not hide behind them).
    pub fn lookup_signature(&self, signature: &Signature) -> Option<&Finding> {
        let mut covering = self.findings.iter().filter(|f| f.covers(signature));
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
    /// (`diff:`) or refusal of a valid section (`rejected-valid:`) is explained only by
    /// quirks (the engine names the finding: [`Observed::explained_by`]); the other classes,
    /// and what an encoder wrote, by a signature pattern ([`SignaturePattern`]: the class, the
    /// implementation or producer, the operation and the field, rule, error class or crash
    /// site are named; only the version tag and an oracle signature's ABI may be left open).
    pub fn finding_for<O: Observed + ?Sized>(&self, d: &O) -> Option<&Finding> {
        if let Some(id) = d.explained_by() {
            return self.findings.iter().find(|f| f.id == id);
        }
        if d.signature().is_reader_value() || d.triggers_say_new() {
            return None;
        }
        self.lookup_signature(d.signature())
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
    use crate::signature::SignaturePattern;
    use std::collections::BTreeMap;

    fn finding(sigs: &[&str]) -> Finding {
        Finding {
            id: "F0000-test".into(),
            title: "t".into(),
            kind: FindingKind::Crash,
            verdict: Verdict::Open,
            tools: vec![],
            rules: vec![],
            signatures: sigs.iter().map(|s| s.parse().expect(s)).collect(),
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

    /// The untriaged list reads exact signatures and refuses a pattern, even one whose text
    /// a signature would also parse (a crash site with a `*`), and an unparsable one.
    #[test]
    fn the_untriaged_list_holds_exact_signatures() {
        let read = |sig: &str| {
            serde_json::from_str::<Untriaged>(&format!(r#"{{"note":"n","signatures":["{sig}"]}}"#))
        };
        let exact = "crash:libsframe-2.47:v2:find_fre:SIGSEGV:src/sframe.c:10";
        let u = read(exact).expect("an exact signature");
        assert_eq!(u.signatures[0].to_string(), exact);
        assert!(matches!(u.signatures[0], Signature::Crash { .. }));
        assert!("crash:libsframe-2.47:v2:find_fre:SIGSEGV:src/*.c:10"
            .parse::<Signature>()
            .is_ok());
        let e = read("crash:libsframe-2.47:v2:find_fre:SIGSEGV:src/*.c:10").unwrap_err();
        assert!(e.to_string().contains("never patterns"), "{e}");
        assert!(read("diff:libsframe-2.47").is_err());
        assert_eq!(
            serde_json::to_value(&u).expect("JSON")["signatures"][0],
            exact
        );
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
            assert!(ok.parse::<SignaturePattern>().is_ok(), "{ok}");
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
            assert!(bad.parse::<SignaturePattern>().is_err(), "{bad}");
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

    #[test]
    fn a_pattern_that_does_not_parse_is_an_error_naming_file_and_pattern() {
        let dir =
            std::env::temp_dir().join(format!("sframe-ledger-pattern-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let l = Ledger {
            dir: dir.clone(),
            ..Ledger::default()
        };
        let good = finding(&["hang:libsframe-2.47:v2:decode"]);
        l.record(&good, &[], "# t\n").unwrap();
        let file = dir.join(&good.id).join("finding.json");
        let text = std::fs::read_to_string(&file).unwrap();
        let bad = "crash:libsframe-2.47:*";
        std::fs::write(&file, text.replace("hang:libsframe-2.47:v2:decode", bad)).unwrap();
        let e = Ledger::load(&dir).unwrap_err();
        assert_eq!(e.path, file);
        assert!(e.message.contains(&format!("{bad:?}")), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
