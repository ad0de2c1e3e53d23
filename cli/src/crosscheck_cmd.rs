//! `sframe-conform crosscheck`: every function of every ELF file (relocatable objects,
//! executables, shared objects), its SFrame row at every PC against the same file's
//! `.eh_frame` ([`sframe_producers::crosscheck`]); deterministic, no emulation.
//!
//! A summary per producer and ABI (files, functions, PCs checked and agreeing, functions
//! skipped by reason, disagreements, seconds); each disagreement gets a signature
//! `crosscheck:<producer>:<abi>:<shape>:<kind>` that the findings ledger explains or not.
//! The producer is `--producer` when given, else the `manifest.json` entry above the file
//! (`gnu-as-2.44`, `gnu-as-2.44+ld-2.44` for linked files), else `unknown`. A file that
//! cannot be read is reported and the run goes on. Exit status: 0 when every signature is
//! explained by the ledger, 1 when one is not, 2 on usage errors or when no file at all
//! could be read.

use serde::Serialize;
use sframe_harness::ledger::Ledger;
use sframe_harness::signature::{OracleAbi, Producer, Signature};
use sframe_harness::walk::{Outcome as WalkOutcome, Summary, Unreadable};
use sframe_producers::check::Mismatch;
use sframe_producers::crosscheck::{
    self, file_kind_name, FileReport, FunctionName, FunctionReport, Outcome,
};
use sframe_provision::Manifests;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

// The subcommand's arguments (its help text is the doc comments of the fields).
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// ELF files, or directories searched for them.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    #[arg(long)]
    pub json: bool,
    /// Producer name used in signatures (default: corpus manifest, else `unknown`). An
    /// assembler `gnu-as-<release>` names linked files `gnu-as-<release>+ld-<release>`, as
    /// the manifests do (linked by the same release's ld).
    #[arg(long)]
    pub producer: Option<String>,
    /// Findings ledger directory (default: corpus/findings).
    #[arg(long)]
    pub ledger: Option<PathBuf>,
    /// Worker threads (0: all cores). The report is the same for any number.
    #[arg(long, default_value_t = 0)]
    pub jobs: usize,
}

/// The ELF files of `paths` to cross-check, by the walk every command shares: those with
/// an SFrame section, and those whose `.sframe` could not be read (the report says why);
/// the walk's summary counts every file, the others included.
fn files_of(paths: &[PathBuf]) -> (Vec<PathBuf>, Summary) {
    let mut summary = Summary::default();
    let mut files = Vec::new();
    for e in crate::walking::walk(paths, false) {
        summary.add(&e);
        match &e.outcome {
            WalkOutcome::Section { loaded, .. } if loaded.elf.is_some() => {
                files.push(e.path.clone())
            }
            WalkOutcome::Unreadable(Unreadable::Load(_)) => files.push(e.path.clone()),
            _ => {}
        }
    }
    (files, summary)
}

/// Counts of one (producer, ABI).
#[derive(Debug, Default, Clone, Serialize)]
struct Counts {
    producer: String,
    abi: String,
    files: u64,
    /// Files with a `.sframe` section that reads.
    files_with_sframe: u64,
    functions: u64,
    /// Functions compared at every PC (PLT sections included).
    functions_checked: u64,
    plt_functions_checked: u64,
    pcs_checked: u64,
    pcs_agreeing: u64,
    pcs_disagreeing: u64,
    /// Functions with at least one disagreement.
    functions_disagreeing: u64,
    skipped: BTreeMap<String, u64>,
    /// SFrame FDEs with PCs no `.eh_frame` FDE covers (not compared: counted).
    sframe_only: u64,
    cfi_errors: u64,
    seconds: f64,
}

impl Counts {
    /// Add `o`'s counts (its producer and ABI are not looked at).
    fn merge(&mut self, o: &Counts) {
        self.files += o.files;
        self.files_with_sframe += o.files_with_sframe;
        self.functions += o.functions;
        self.functions_checked += o.functions_checked;
        self.plt_functions_checked += o.plt_functions_checked;
        self.pcs_checked += o.pcs_checked;
        self.pcs_agreeing += o.pcs_agreeing;
        self.pcs_disagreeing += o.pcs_disagreeing;
        self.functions_disagreeing += o.functions_disagreeing;
        for (k, n) in &o.skipped {
            *self.skipped.entry(k.clone()).or_default() += n;
        }
        self.sframe_only += o.sframe_only;
        self.cfi_errors += o.cfi_errors;
        self.seconds += o.seconds;
    }
}

/// The report's `total`: the counts over every producer and ABI, and the distinct
/// signatures by whether the ledger covers them.
#[derive(Debug, Clone, Serialize)]
struct Total {
    #[serde(flatten)]
    counts: Counts,
    /// Distinct signatures no finding covers.
    new_signatures: u64,
    /// The findings credited, with the number of distinct signatures each covers.
    findings: BTreeMap<String, u64>,
}

impl Default for Total {
    fn default() -> Total {
        Total {
            counts: Counts {
                producer: "all".into(),
                abi: "*".into(),
                ..Counts::default()
            },
            new_signatures: 0,
            findings: BTreeMap::new(),
        }
    }
}

/// A disagreement's first sighting.
#[derive(Debug, Clone, Serialize)]
struct Sighting {
    file: String,
    function: FunctionName,
    pc: u64,
    mismatch: Option<Box<Mismatch>>,
}

#[derive(Debug, Clone, Serialize)]
struct SigInfo {
    count: u64,
    finding: Option<String>,
    first: Sighting,
}

/// One file's result in the JSON report: counts, and only what disagrees.
#[derive(Debug, Clone, Serialize)]
struct FileLine {
    file: String,
    producer: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    abi: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sframe_version: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sframe_error: Option<String>,
    functions: u64,
    pcs_checked: u64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    cfi_errors: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    disagreeing: Vec<FunctionReport>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    sframe_only: Vec<crosscheck::SframeOnly>,
    signatures: Vec<String>,
}

#[derive(Serialize)]
struct Report {
    /// How PLT sections are handled.
    plt: &'static str,
    summary: Vec<Counts>,
    /// The sums over every producer and ABI.
    total: Total,
    files: Vec<FileLine>,
    signatures: BTreeMap<String, SigInfo>,
    /// Every file the walk met, by outcome.
    walk: Summary,
}

const PLT_NOTE: &str = "compared at every PC; x86-64 PLT CFA expressions evaluated per PC";

/// Every disagreement of a file with its signature: (signature, function, pc, mismatch).
fn signatures(
    producer: &Producer,
    r: &FileReport,
) -> Vec<(Signature, FunctionName, u64, Option<Box<Mismatch>>)> {
    let abi = OracleAbi::from(r.abi);
    let sig = |shape, kind| Signature::Crosscheck {
        producer: producer.clone(),
        abi,
        shape,
        kind,
    };
    let mut out = Vec::new();
    for f in &r.functions {
        if let Outcome::Checked {
            disagreements,
            facts,
            ..
        } = &f.outcome
        {
            for d in disagreements {
                out.push((
                    sig(crosscheck::shape_of(f, &d.mismatch), d.mismatch.kind),
                    f.name.clone(),
                    d.pc,
                    Some(d.mismatch.clone()),
                ));
            }
            if let Some(m) = facts {
                out.push((
                    sig(crosscheck::shape_of(f, m), m.kind),
                    f.name.clone(),
                    f.start,
                    Some(m.clone()),
                ));
            }
        }
    }
    // SFrame FDEs over PCs without CFI are counted, not signatures: a producer may write
    // SFrame alone (`.cfi_sections .sframe`, binutils' own tests), and then there is
    // nothing to compare.
    out
}

/// One file's outcome.
struct Done {
    path: PathBuf,
    producer: String,
    result: Result<FileReport, String>,
    seconds: f64,
}

fn check_file(path: &Path, producer: String) -> Done {
    let t0 = Instant::now();
    let result = std::fs::read(path)
        .map_err(|e| e.to_string())
        .and_then(|bytes| crosscheck::crosscheck(&bytes).map_err(|e| e.to_string()));
    let producer = match &result {
        Ok(r) if r.kind != sframe_elf::FileKind::Relocatable => linked_by_same_release(producer),
        _ => producer,
    };
    Done {
        path: path.to_path_buf(),
        producer,
        result,
        seconds: t0.elapsed().as_secs_f64(),
    }
}

/// `gnu-as-<release>` as the producer of a linked file: `gnu-as-<release>+ld-<release>`.
fn linked_by_same_release(p: String) -> String {
    match p.strip_prefix("gnu-as-") {
        Some(release) if !p.contains('+') => format!("{p}+ld-{release}"),
        _ => p,
    }
}

/// Run the subcommand.
pub fn run(args: &Args) -> Result<ExitCode, String> {
    let ledger_dir = args.ledger.clone().unwrap_or_else(Ledger::default_dir);
    let ledger = Ledger::load(&ledger_dir).map_err(|e| e.to_string())?;
    let mut report = Report {
        plt: PLT_NOTE,
        summary: vec![],
        total: Total::default(),
        files: vec![],
        signatures: BTreeMap::new(),
        walk: Summary::default(),
    };
    let (files, walked) = files_of(&args.files);
    let jobs = if args.jobs == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        args.jobs
    };
    let bar = indicatif::ProgressBar::new(files.len() as u64);
    if args.json {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} files {elapsed} {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    // The producer of each file: `--producer`, else its corpus manifest's (each manifest
    // read once), else `unknown`.
    let mut manifests = Manifests::default();
    let producers: Vec<String> = files
        .iter()
        .map(|p| match &args.producer {
            Some(given) => given.clone(),
            None => manifests
                .producer(p)
                .map_or_else(|| "unknown".into(), |p| p.to_string()),
        })
        .collect();
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<Option<Done>>> = Mutex::new((0..files.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(path) = files.get(i) else { break };
                let d = check_file(path, producers[i].clone());
                bar.inc(1);
                done.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(d);
            });
        }
    });
    bar.finish_and_clear();
    let done = done.into_inner().unwrap_or_else(|e| e.into_inner());
    let mut counts: BTreeMap<(String, String), Counts> = BTreeMap::new();
    for d in done.into_iter().flatten() {
        let file = d.path.display().to_string();
        let r = match d.result {
            Ok(r) => r,
            Err(e) => {
                report.files.push(FileLine {
                    file,
                    producer: d.producer,
                    error: Some(e),
                    abi: None,
                    kind: None,
                    sframe_version: None,
                    sframe_error: None,
                    functions: 0,
                    pcs_checked: 0,
                    cfi_errors: vec![],
                    disagreeing: vec![],
                    sframe_only: vec![],
                    signatures: vec![],
                });
                continue;
            }
        };
        let mut fc = Counts::default();
        let c = &mut fc;
        c.files += 1;
        c.files_with_sframe += u64::from(r.version.is_some());
        c.seconds += d.seconds;
        c.cfi_errors += r.cfi_errors.len() as u64;
        c.sframe_only += r.sframe_only.len() as u64;
        let mut file_pcs = 0;
        let mut disagreeing = Vec::new();
        for f in &r.functions {
            c.functions += 1;
            match &f.outcome {
                Outcome::Checked {
                    pcs,
                    agreeing,
                    disagreements,
                    facts,
                    ..
                } => {
                    c.functions_checked += 1;
                    c.plt_functions_checked += u64::from(f.is_plt());
                    c.pcs_checked += pcs;
                    c.pcs_agreeing += agreeing;
                    c.pcs_disagreeing += pcs - agreeing;
                    file_pcs += pcs;
                    if !disagreements.is_empty() || facts.is_some() {
                        c.functions_disagreeing += 1;
                        disagreeing.push(f.clone());
                    }
                }
                Outcome::Skipped { reason } => {
                    *c.skipped.entry(reason.name()).or_default() += 1;
                }
            }
        }
        counts
            .entry((d.producer.clone(), r.abi.name().to_string()))
            .or_insert_with(|| Counts {
                producer: d.producer.clone(),
                abi: r.abi.name().to_string(),
                ..Counts::default()
            })
            .merge(&fc);
        report.total.counts.merge(&fc);
        let producer = Producer::named(&d.producer);
        let mut names: Vec<String> = Vec::new();
        for (sig, function, pc, mismatch) in signatures(&producer, &r) {
            let text = sig.to_string();
            let e = report
                .signatures
                .entry(text.clone())
                .or_insert_with(|| SigInfo {
                    count: 0,
                    finding: ledger.account(&sig).label().map(str::to_string),
                    first: Sighting {
                        file: file.clone(),
                        function,
                        pc,
                        mismatch,
                    },
                });
            e.count += 1;
            if !names.contains(&text) {
                names.push(text);
            }
        }
        report.files.push(FileLine {
            file,
            producer: d.producer,
            error: None,
            abi: Some(r.abi.name()),
            kind: Some(file_kind_name(r.kind)),
            sframe_version: r.version.map(|v| v as u8),
            sframe_error: r.sframe_error.clone(),
            functions: r.functions.len() as u64,
            pcs_checked: file_pcs,
            cfi_errors: r
                .cfi_errors
                .iter()
                .map(|e| match e.function {
                    Some((s, l)) => format!("FDE {s:#x}+{l:#x}: {}", e.message),
                    None => e.message.clone(),
                })
                .collect(),
            disagreeing,
            sframe_only: r.sframe_only.clone(),
            signatures: names,
        });
    }
    report.summary = counts.into_values().collect();
    for i in report.signatures.values() {
        match &i.finding {
            Some(id) => *report.total.findings.entry(id.clone()).or_default() += 1,
            None => report.total.new_signatures += 1,
        }
    }
    let first_new = report
        .signatures
        .iter()
        .find(|(_, i)| i.finding.is_none())
        .map(|(s, _)| s.clone());
    report.walk = walked.clone();
    if args.json {
        let text = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
        crate::outln!("{text}");
    } else {
        crate::out!("{}", render_text(&report));
    }
    if let Some(s) = &first_new {
        eprintln!("sframe-conform: crosscheck disagreement not in the findings ledger: {s}");
    }
    Ok(if args.json {
        crate::walking::finish(&args.files, &walked, first_new.is_some())
    } else {
        crate::walking::finish_text(&args.files, &walked, first_new.is_some())
    })
}

fn render_text(r: &Report) -> String {
    use std::fmt::Write as _;
    let mut o = String::new();
    for f in &r.files {
        if let Some(e) = &f.error {
            let _ = writeln!(o, "{}: error: {e}", f.file);
            continue;
        }
        if let Some(e) = &f.sframe_error {
            let _ = writeln!(o, "{}: .sframe unreadable: {e}", f.file);
        }
        for e in &f.cfi_errors {
            let _ = writeln!(o, "{}: .eh_frame: {e}", f.file);
        }
        for fun in &f.disagreeing {
            let name = match &fun.name {
                FunctionName::Symbol(n) | FunctionName::Plt(n) => n.clone(),
                FunctionName::Address => format!("{:#x}", fun.start),
            };
            if let Outcome::Checked {
                disagreements,
                facts,
                ..
            } = &fun.outcome
            {
                for d in disagreements {
                    let m = &d.mismatch;
                    let _ = writeln!(
                        o,
                        "{}: {name}+{:#x} ({} PCs): {} {}: CFI {} / SFrame {}",
                        f.file, m.pc_offset, d.pcs, m.kind, m.shape, m.expected, m.found
                    );
                }
                if let Some(m) = facts {
                    let _ = writeln!(
                        o,
                        "{}: {name}: {} {}: CFI {} / SFrame {}",
                        f.file, m.kind, m.shape, m.expected, m.found
                    );
                }
            }
        }
        for s in &f.sframe_only {
            let _ = writeln!(
                o,
                "{}: SFrame FDE {:#x}+{:#x}: {} PCs without CFI",
                f.file, s.start, s.size, s.uncovered_pcs
            );
        }
    }
    let _ = writeln!(
        o,
        "{:<22} {:<10} {:>6} {:>9} {:>9} {:>11} {:>9} {:>7} {:>8}  skipped",
        "producer", "abi", "files", "functions", "checked", "pcs", "pcs-bad", "fn-bad", "seconds"
    );
    for c in &r.summary {
        let skipped: Vec<String> = c.skipped.iter().map(|(k, n)| format!("{k} {n}")).collect();
        let _ = writeln!(
            o,
            "{:<22} {:<10} {:>6} {:>9} {:>9} {:>11} {:>9} {:>7} {:>8.2}  {}",
            c.producer,
            c.abi,
            c.files,
            c.functions,
            c.functions_checked,
            c.pcs_checked,
            c.pcs_disagreeing,
            c.functions_disagreeing,
            c.seconds,
            skipped.join(", ")
        );
    }
    let _ = writeln!(o, "PLT sections: {}", r.plt);
    for (s, i) in &r.signatures {
        let _ = writeln!(
            o,
            "{s}: {} ({})",
            i.count,
            i.finding.as_deref().unwrap_or("NEW")
        );
    }
    o
}
