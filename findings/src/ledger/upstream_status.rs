//! Where a finding stands in the newest upstream source.
//!
//! A finding is observed on the releases Debian ships (`tools`, with the quotes of their
//! own source in `upstream`); upstream moves on. Each finding records, per implementation
//! or producer it names, what the newest source says: the bug is still there (`present`,
//! with the lines that show it), it was fixed (`fixed`, with the change that fixed it), or
//! it cannot be told (`unknown`, with the reason). A finding fixed upstream is reported as
//! fixed, never as an open bug. `harness/tests/upstream.rs` checks every quoted line
//! against the newest sources `ci/upstream-sources` fetches.

use serde::{Deserialize, Serialize};

/// Whether the newest source still has the behaviour a finding describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// The lines that decide the finding are unchanged in the newest source.
    Present,
    /// A change after the release the finding was observed on removes it.
    Fixed,
    /// The newest source could not be read or does not decide it (`reason` says which).
    Unknown,
}

impl Status {
    /// The name used in `finding.json` and in the index.
    pub fn name(self) -> &'static str {
        match self {
            Status::Present => "present",
            Status::Fixed => "fixed",
            Status::Unknown => "unknown",
        }
    }
}

/// How the status was decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Checked {
    /// By reading the newest source's code path (the lines quoted).
    Reading,
    /// By running the finding's reproducer on a build of the newest source (`run` says
    /// what ran and what it answered), besides reading.
    Reproducer,
}

/// Lines of the newest source, verbatim (white space may be folded).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceLines {
    /// Path inside the source tree.
    pub file: String,
    pub function: String,
    pub lines: String,
}

/// A finding's status in one implementation's (or producer's) newest upstream source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UpstreamStatus {
    /// The implementation or producer as the finding's `tools` name it (`libsframe`,
    /// `objdump`, `gnu-as`, `glibc`, `llvm-readobj`, `llvm-mc`, `simple-frame-rs`).
    pub implementation: String,
    pub status: Status,
    /// The newest source read: package (or crate, or branch) and exact version, and where
    /// it comes from, e.g. `binutils-source 2.47.50.20261021-1 (Debian sid)`.
    pub newest: String,
    /// That source's tree under the cache's `src/` (as `ci/upstream-sources` unpacks it),
    /// where the test finds the quoted files; empty for a source no script fetches (a
    /// development branch read by hand), whose lines then cannot be quoted.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tree: String,
    /// `present`: the lines that show the behaviour still there; `fixed`: the lines of the
    /// fix, where the tree is fetched.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<SourceLines>,
    /// `fixed`: the change that fixed it (ChangeLog or NEWS entry, commit), or what the
    /// newest source does instead where no entry names it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub change: String,
    /// `unknown`: why the newest source does not decide it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    pub checked: Checked,
    /// `reproducer`: the command run on the newest build and what it answered.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub run: String,
    /// What else the reading found (a development branch that agrees, a partial fix).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
}

impl UpstreamStatus {
    /// A status with no evidence yet (lines, change, reason, run and note empty), read
    /// from `newest`.
    pub fn new(implementation: &str, status: Status, newest: &str, checked: Checked) -> Self {
        UpstreamStatus {
            implementation: implementation.into(),
            status,
            newest: newest.into(),
            tree: String::new(),
            lines: vec![],
            change: String::new(),
            reason: String::new(),
            checked,
            run: String::new(),
            note: String::new(),
        }
    }

    /// The evidence its status needs is there: `present` quotes lines of a fetched tree (or
    /// ran the reproducer on the newest build), `fixed` names the change, `unknown` gives a reason, a reproducer run says what ran.
    pub fn check(&self) -> Result<(), String> {
        let who = &self.implementation;
        if who.is_empty() || self.newest.is_empty() {
            return Err("an upstream status names no implementation or no newest source".into());
        }
        match self.status {
            Status::Present if self.lines.is_empty() && self.checked != Checked::Reproducer => {
                Err(format!(
                    "{who}: `present` without the newest source's lines that show it or a run of the reproducer on its build"
                ))
            }
            Status::Fixed if self.change.is_empty() => {
                Err(format!("{who}: `fixed` without the change that fixed it"))
            }
            Status::Unknown if self.reason.is_empty() => {
                Err(format!("{who}: `unknown` without a reason"))
            }
            _ if !self.lines.is_empty() && self.tree.is_empty() => {
                Err(format!("{who}: lines quoted from no fetched tree"))
            }
            _ if self.checked == Checked::Reproducer && self.run.is_empty() => Err(format!(
                "{who}: checked by a reproducer, but `run` does not say what ran"
            )),
            _ => Ok(()),
        }
    }
}

/// A finding's statuses as one short text, by status, implementations that share a newest
/// source together: `present: libsframe, objdump (binutils-source 2.47.50.20261021-1
/// (Debian sid)); fixed: simple-frame-rs (master 9e19016)`.
pub fn summary(statuses: &[UpstreamStatus]) -> String {
    let mut out: Vec<String> = Vec::new();
    for status in [Status::Present, Status::Fixed, Status::Unknown] {
        let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
        for s in statuses.iter().filter(|s| s.status == status) {
            match groups.iter_mut().find(|(n, _)| *n == s.newest) {
                Some((_, imps)) => imps.push(&s.implementation),
                None => groups.push((&s.newest, vec![&s.implementation])),
            }
        }
        if !groups.is_empty() {
            let text: Vec<String> = groups
                .iter()
                .map(|(n, imps)| format!("{} ({n})", imps.join(", ")))
                .collect();
            out.push(format!("{}: {}", status.name(), text.join(", ")));
        }
    }
    out.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(status: Status) -> UpstreamStatus {
        UpstreamStatus::new(
            "libsframe",
            status,
            "binutils-source 2.47.50.20261021-1 (Debian sid)",
            Checked::Reading,
        )
    }

    #[test]
    fn each_status_needs_its_evidence() {
        assert!(status(Status::Present).check().is_err());
        assert!(status(Status::Fixed).check().is_err());
        assert!(status(Status::Unknown).check().is_err());
        let mut p = status(Status::Present);
        p.lines.push(SourceLines {
            file: "libsframe/sframe.c".into(),
            function: "sframe_decode_fre".into(),
            lines: "memcpy (fre->fre_offsets".into(),
        });
        assert!(p.check().is_err(), "lines without a tree");
        p.tree = "binutils-2.47.50.20261021-1".into();
        assert_eq!(p.check(), Ok(()));
        p.checked = Checked::Reproducer;
        assert!(p.check().is_err(), "a reproducer run that says nothing");
        p.lines.clear();
        p.run = "as --gsframe repro.s: 2 data words".into();
        assert_eq!(p.check(), Ok(()), "present by a run on the newest build");
        let mut f = status(Status::Fixed);
        f.change = "2026-01-01 commit abc".into();
        assert_eq!(f.check(), Ok(()));
        let mut u = status(Status::Unknown);
        u.reason = "the source is not delivered".into();
        assert_eq!(u.check(), Ok(()));
    }

    #[test]
    fn the_summary_groups_by_status() {
        let mut f = status(Status::Fixed);
        f.implementation = "simple-frame-rs".into();
        f.newest = "master 9e19016".into();
        let mut o = status(Status::Present);
        o.implementation = "objdump".into();
        let s = summary(&[f, status(Status::Present), o]);
        assert_eq!(
            s,
            "present: libsframe, objdump (binutils-source 2.47.50.20261021-1 (Debian sid)); fixed: simple-frame-rs (master 9e19016)"
        );
    }
}
