//! One ledger entry, `finding.json`: what happened, the verdict, the tools with their
//! versions, the signature patterns it covers and the evidence (upstream lines, claims,
//! first bad accesses).

use super::{Claim, FirstBadAccess, UpstreamStatus};
use crate::signature::{Signature, SignaturePattern};
use serde::{Deserialize, Serialize};
use sframe_spec::{Quirk, Trigger};
use std::collections::BTreeMap;

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
    /// The signatures this finding covers, as patterns (written as text in finding.json,
    /// e.g. `crash:libsframe-2.40:v1*:decode:SIGSEGV:sframe_decode`; parsed on load, where a
    /// pattern that does not parse is an error naming the file: [`SignaturePattern`]).
    pub signatures: Vec<SignaturePattern>,
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
    /// the implementation's answer (`sframe_harness::diff::explain`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub quirks: BTreeMap<String, Vec<Quirk>>,
    /// Per implementation, the triggers of this crash or hang finding: predicates over the
    /// input, as that release reads it, that say it reaches this bug. A crash or hang of
    /// that implementation is explained here when one holds, wherever it lands
    /// (`sframe_harness::diff::triggers`).
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
    /// Whether one of the finding's signature patterns matches `signature`.
    pub fn covers(&self, signature: &Signature) -> bool {
        self.signatures.iter().any(|p| p.matches(signature))
    }
}
