//! `sframe-conform oracle`: run the code of ELF files in the emulator ([`sframe_oracle`])
//! and check that the SFrame row of every executed PC recovers the true CFA, return address
//! and frame pointer.
//!
//! Each mismatch gets a signature `oracle:<producer>:<abi>:<function>:<kind>` (see
//! [`sframe_oracle::report`]). The producer is `--producer` when given, else the corpus
//! manifest's entry for the file (`<producer>-<release>`, plus `+ld-<release>` for linked
//! files), else the file's stem. Exit status: 0 when every signature is covered by the
//! findings ledger, 1 when one is not (the first new one is named), 2 on bad input.

use crate::oracle_blame::{self, Blame, CfiAuthor};
use serde::Serialize;
use serde_json::{json, Value};
use sframe_harness::ledger::Ledger;
use sframe_harness::signature::{Producer, Signature};
use sframe_harness::walk::{Outcome, Summary, Unreadable};
use sframe_oracle::{DropReason, Options, Oracle, Report, SkipReason};
use sframe_provision::Manifests;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

// The subcommand's arguments (its help text is the doc comments of the fields).
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Runs per function with fresh random inputs.
    #[arg(long, default_value_t = 8)]
    pub runs: u32,
    /// Seed of every random choice.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    #[arg(long)]
    pub json: bool,
    /// Print throughput (checked instructions per second).
    #[arg(long)]
    pub stats: bool,
    /// Producer name used in mismatch signatures (default: corpus manifest, else file stem).
    #[arg(long)]
    pub producer: Option<String>,
    /// Worker threads (0: all cores).
    #[arg(long, default_value_t = 0)]
    pub jobs: usize,
    /// Findings ledger directory (default: corpus/findings).
    #[arg(long)]
    pub ledger: Option<PathBuf>,
}

/// The ELF files with an SFrame section among `paths` (directories walked).
pub fn expand(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    Ok(sframe_harness::walk::Walk::new(paths)
        .filter_map(|e| match e.outcome {
            Outcome::Section { loaded, .. } if loaded.elf.is_some() => Some(e.path),
            _ => None,
        })
        .collect())
}

/// Run the subcommand.
pub fn run(args: &Args) -> Result<ExitCode, String> {
    let ledger_dir = args.ledger.clone().unwrap_or_else(Ledger::default_dir);
    let ledger = Ledger::load(&ledger_dir).map_err(|e| e.to_string())?;
    // One file at a time; the bar's length grows as files are loaded.
    let mut walked = Summary::default();
    // Each corpus manifest is read once, for every file it lists.
    let mut manifests = Manifests::default();
    let walk = crate::walking::walk(&args.files, true);
    let bar = indicatif::ProgressBar::new(0);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} functions {elapsed} {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let opts = Options {
        runs: args.runs,
        seed: args.seed,
        jobs: args.jobs,
        ..Options::default()
    };
    let mut stream = args.json.then(|| crate::out::JsonStream::begin("files"));
    let mut first_new: Option<String> = None;
    let mut total = Total::default();
    for e in walk {
        let path = &e.path;
        let oracle = match &e.outcome {
            Outcome::Section {
                file: Some(bytes), ..
            } => Oracle::new(bytes).map_err(|e| e.to_string()),
            _ => {
                walked.add(&e);
                continue;
            }
        };
        let bytes = match &e.outcome {
            Outcome::Section {
                file: Some(bytes), ..
            } => bytes.as_slice(),
            _ => &[],
        };
        let report = oracle.and_then(|oracle| {
            bar.inc_length(oracle.functions().len() as u64);
            bar.set_message(path.display().to_string());
            let all: Vec<usize> = (0..oracle.functions().len()).collect();
            oracle
                .check_functions(&all, &opts, &|| bar.inc(1))
                .map_err(|e| e.to_string())
        });
        let report = match report {
            Ok(r) => r,
            Err(why) => {
                let why = Outcome::Unreadable(Unreadable::Command(why));
                walked.add_outcome(path, &why);
                continue;
            }
        };
        walked.add(&e);
        let entry = manifests.entry(path).cloned();
        let producer = args
            .producer
            .clone()
            .unwrap_or_else(|| manifests.producer_for(path));
        let author = CfiAuthor::of(
            entry.as_ref().and_then(|e| e.extra_str("cfi_author")),
            report.compiler.as_deref(),
        );
        let blames = oracle_blame::blame(bytes, &report, &author);
        let mut sigs: Vec<Sig> = Vec::new();
        let mut by_blame: BTreeMap<Blame, usize> = BTreeMap::new();
        for (m, &b) in report.mismatches().zip(&blames) {
            *by_blame.entry(b).or_default() += 1;
            let whose = match b {
                Blame::SframeProducer => Producer::named(&producer),
                Blame::Cfi => Producer::named(&oracle_blame::cfi_producer(&author)),
                Blame::CfiDoesNotDescribeCode => continue,
            };
            let s = m.signature(&whose, report.abi);
            if !sigs.iter().any(|x| x.signature == s) {
                let finding = ledger.lookup_signature(&s).map(|f| f.id.clone());
                sigs.push(Sig {
                    signature: s,
                    finding,
                    blame: b,
                });
            }
        }
        if first_new.is_none() {
            first_new = sigs
                .iter()
                .find(|x| x.finding.is_none())
                .map(|x| x.signature.to_string());
        }
        total.add(&report, &sigs);
        if let Some(stream) = &mut stream {
            stream.item(&render_json(path, &producer, &report, &sigs, &by_blame));
        } else {
            bar.suspend(|| {
                crate::out!(
                    "{}",
                    render_text(path, &producer, &report, &sigs, &by_blame, args.stats)
                )
            });
        }
    }
    bar.finish_and_clear();
    if let Some(stream) = stream {
        stream.end(&[("total", json!(total)), ("walk", json!(walked))]);
    } else if walked.with_sframe > 1 {
        let t = &total;
        let cov = if t.instructions == 0 {
            100.0
        } else {
            100.0 * t.executed as f64 / t.instructions as f64
        };
        crate::outln!(
            "total: {} files, {}/{} instructions executed ({cov:.1}%), {} rows checked, {} mismatches, {} not in the ledger",
            walked.with_sframe,
            t.executed,
            t.instructions,
            t.rows_checked,
            t.mismatches,
            t.new_signatures
        );
        if args.stats {
            let secs = t.seconds;
            crate::outln!(
                "total stats: {secs:.2}s checking, {:.0} checked instructions/s",
                if secs > 0.0 {
                    t.rows_checked as f64 / secs
                } else {
                    0.0
                }
            );
        }
    }
    if let Some(s) = &first_new {
        eprintln!("sframe-conform: new oracle mismatch not in the findings ledger: {s}");
    }
    let found = first_new.is_some();
    Ok(if args.json {
        crate::walking::finish(&args.files, &walked, found)
    } else {
        crate::walking::finish_text(&args.files, &walked, found)
    })
}

/// The sums over the files checked: the `total` object of `--json` and the text's total line.
#[derive(Debug, Clone, Default, Serialize)]
struct Total {
    /// Files whose code was checked.
    files: usize,
    /// Functions with an FDE (the ones with rows to check).
    functions: usize,
    instructions: usize,
    executed: usize,
    /// PCs checked against their row (every execution counts).
    rows_checked: u64,
    /// Functions no run started at, by reason.
    skipped: BTreeMap<SkipReason, usize>,
    /// Runs dropped, by reason.
    dropped: BTreeMap<DropReason, u64>,
    mismatches: usize,
    /// Distinct signatures of the files (a signature seen in two files counts twice), by
    /// whether the ledger covers them.
    new_signatures: usize,
    known_signatures: usize,
    /// The findings credited with those signatures, with the number of signatures each.
    findings: BTreeMap<String, usize>,
    /// Seconds spent checking (the files' `stats.elapsed_secs`).
    seconds: f64,
}

impl Total {
    fn add(&mut self, r: &Report, sigs: &[Sig]) {
        let s = &r.summary;
        self.files += 1;
        self.functions += s.functions_with_fde;
        self.instructions += s.instructions;
        self.executed += s.executed;
        self.rows_checked += s.rows_checked;
        for (k, n) in &s.skipped {
            *self.skipped.entry(*k).or_default() += n;
        }
        for (k, n) in &s.dropped {
            *self.dropped.entry(*k).or_default() += n;
        }
        self.mismatches += s.mismatches;
        for x in sigs {
            match &x.finding {
                Some(id) => {
                    self.known_signatures += 1;
                    *self.findings.entry(id.clone()).or_default() += 1;
                }
                None => self.new_signatures += 1,
            }
        }
        self.seconds += r.stats.elapsed_secs;
    }
}

/// A distinct signature of a file's mismatches, whose fault it is and the finding that
/// covers it.
#[derive(Debug, Clone, Serialize)]
struct Sig {
    signature: Signature,
    finding: Option<String>,
    blame: Blame,
}

fn render_text(
    path: &Path,
    producer: &str,
    r: &Report,
    sigs: &[Sig],
    by_blame: &BTreeMap<Blame, usize>,
    stats: bool,
) -> String {
    let mut o = format!(
        "{}: {} SFrame v{} {} (producer {producer}{})\n",
        path.display(),
        r.abi,
        r.version,
        r.file_kind,
        r.compiler
            .as_deref()
            .map(|c| format!("; {c}"))
            .unwrap_or_default()
    );
    o.push_str(&r.render_text(stats));
    if !by_blame.is_empty() {
        let parts: Vec<String> = by_blame
            .iter()
            .map(|(b, n)| format!("{} {n}", b.name()))
            .collect();
        o.push_str(&format!("mismatches by fault: {}\n", parts.join(", ")));
    }
    for x in sigs {
        let s = &x.signature;
        let whose = match x.blame {
            Blame::SframeProducer => "",
            _ => " [the CFI's: SFrame = .eh_frame there]",
        };
        o.push_str(&match &x.finding {
            Some(id) => format!("known: {s} ({id}){whose}\n"),
            None => format!("NEW: {s}{whose}\n"),
        });
    }
    o.push('\n');
    o
}

fn render_json(
    path: &Path,
    producer: &str,
    r: &Report,
    sigs: &[Sig],
    by_blame: &BTreeMap<Blame, usize>,
) -> Value {
    json!({
        "file": path.display().to_string(),
        "producer": producer,
        "report": r,
        "mismatches_by_fault": by_blame,
        "signatures": sigs,
    })
}
