//! After a run: the findings directory ([`crate::findings_log`]) sorted by the ledger into
//! causes it knows and new ones, and each new cause of a differential target minimized while
//! it keeps its signature (the minimizer `sframe-conform diff --record` uses, with the same
//! budget and look-ups), with the command that records it.

use crate::findings_log::{read, Entry};
use sframe_harness::diff::minimize::minimize;
use sframe_harness::diff::Engine;
use sframe_harness::ledger::Ledger;
use sframe_harness::signature::{Op, Signature};
use std::path::PathBuf;

/// Predicate evaluations per cause, as `sframe-conform diff --record` allows.
pub const BUDGET: usize = 300;
/// Look-ups per section while minimizing, as `sframe-conform diff --record` makes.
pub const MINIMIZE_PCS: usize = 64;

/// A cause the ledger does not cover.
#[derive(Debug, Clone)]
pub struct NewCause {
    pub entry: Entry,
    /// The minimized input, when the cause is a differential target's and still shows on
    /// its input here.
    pub minimized: Option<PathBuf>,
    /// Why it was not minimized.
    pub note: Option<String>,
}

/// The findings directory, sorted.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Known causes, with the finding (or `untriaged`) that covers each.
    pub known: Vec<(Entry, String)>,
    pub new: Vec<NewCause>,
}

/// Sort `dir` by `ledger`; with `engine`, minimize each new differential cause (writing
/// `minimized.sframe` beside its input).
pub fn summarize(dir: &std::path::Path, ledger: &Ledger, engine: Option<&Engine>) -> Report {
    let mut r = Report::default();
    for entry in read(dir) {
        // A crash or hang whose input the ledger's triggers read and none holds is new,
        // whatever its site (harness `diff::triggers`).
        let untriggered = entry.cause.example.get("trigger").is_some();
        // The log holds the signature's text; one that does not parse is new.
        let account = entry
            .cause
            .signature
            .parse()
            .map(|s: Signature| ledger.account(&s))
            .unwrap_or_default();
        if let Some(f) = account.label().map(str::to_string).filter(|_| !untriggered) {
            r.known.push((entry, f));
            continue;
        }
        let (minimized, note) = match engine {
            Some(e) => match minimize_entry(&entry, e) {
                Ok(p) => (Some(p), None),
                Err(why) => (None, Some(why)),
            },
            None => (None, None),
        };
        r.new.push(NewCause {
            entry,
            minimized,
            note,
        });
    }
    r
}

/// Minimize `entry`'s input against its implementation in `engine`, keeping its signature
/// unexplained; writes and returns `minimized.sframe`.
fn minimize_entry(entry: &Entry, engine: &Engine) -> Result<PathBuf, String> {
    let c = &entry.cause;
    let Some(name) = &c.implementation else {
        return Err(format!("a {} input is not a section", c.target));
    };
    let imp = engine
        .impls
        .iter()
        .find(|i| &i.name() == name)
        .ok_or_else(|| format!("{name} is not under test in this summary"))?;
    let input = std::fs::read(entry.dir.join(&c.input))
        .map_err(|e| format!("{}: {e}", entry.dir.join(&c.input).display()))?;
    let wanted: sframe_harness::signature::Signature = c
        .signature
        .parse()
        .map_err(|e| format!("{}: signature {:?}: {e}", entry.dir.display(), c.signature))?;
    let with_finds = c.example.get("op").and_then(|v| v.as_str()) == Some(Op::FindFre.name());
    let mut keeps = |b: &[u8]| {
        Engine::unexplained_signatures_of(imp.as_ref(), b, MINIMIZE_PCS, with_finds, &engine.quirks)
            .contains(&wanted)
    };
    if !keeps(&input) {
        return Err(format!(
            "the input does not show it with the look-ups `sframe-conform diff` makes ({MINIMIZE_PCS} PCs); reproduce: {}",
            c.reproduce
        ));
    }
    let small = minimize(&input, BUDGET, &mut keeps);
    let path = entry.dir.join("minimized.sframe");
    std::fs::write(&path, &small).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

impl Report {
    /// The causes as text: known ones in a line each, new ones with their minimized input and
    /// the command that records them.
    pub fn render(&self) -> String {
        let mut s = format!(
            "causes logged: {} ({} known to the ledger, {} new)\n",
            self.known.len() + self.new.len(),
            self.known.len(),
            self.new.len()
        );
        // Known causes by finding: a finding's patterns cover many signatures (one per
        // version, flavour, rule or crash site).
        let mut by_finding: std::collections::BTreeMap<&str, (usize, u64)> = Default::default();
        for (e, f) in &self.known {
            let t = by_finding.entry(f.as_str()).or_default();
            t.0 += 1;
            t.1 += e.hits;
        }
        for (f, (sigs, hits)) in by_finding {
            s += &format!("  known  {f}: {sigs} signature(s), {hits} hit(s) (an input counts once per signature)\n");
        }
        for n in &self.new {
            let c = &n.entry.cause;
            s += &format!(
                "  NEW    {}  ({}, {} input(s))\n",
                c.signature, c.target, n.entry.hits
            );
            let input = n.entry.dir.join(&c.input);
            match &n.minimized {
                Some(m) => {
                    let (before, after) = (file_len(&input), file_len(m));
                    s += &format!(
                        "         minimized: {} ({before} -> {after} bytes)\n",
                        m.display()
                    );
                    s += &format!(
                        "         record:    sframe-conform diff --record {}\n",
                        m.display()
                    );
                }
                None => {
                    s += &format!("         input:     {}\n", input.display());
                    s += &format!("         reproduce: {}\n", c.reproduce);
                }
            }
            if let Some(why) = &n.note {
                s += &format!("         not minimized: {why}\n");
            }
        }
        s
    }
}

fn file_len(p: &std::path::Path) -> u64 {
    std::fs::metadata(p).map(|m| m.len()).unwrap_or(0)
}
