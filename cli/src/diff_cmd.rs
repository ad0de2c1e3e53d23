//! `sframe-conform impls` and `sframe-conform diff` (the campaign itself is
//! [`sframe_harness::diff::campaign`]): choosing the implementations and the inputs, progress,
//! printing.

use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;
use sframe_harness::diff::campaign::Campaign;
use sframe_harness::diff::{mutate, seeds, Case};
use sframe_harness::impls::{Hosting, Implementation};
pub use sframe_harness::input::{corpus_cases, corpus_dir, read_cases};
use sframe_harness::ledger::Ledger;
use sframe_harness::signature::{Tool, ToolName};
use sframe_harness::walk::{Outcome, Summary as WalkSummary};
use sframe_impls::registry::{Options, Registry};
use sframe_spec::Version;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

fn hosting_name(k: Hosting) -> &'static str {
    match k {
        Hosting::InProcess => "in-process",
        Hosting::Worker => "worker",
        Hosting::External => "external",
        Hosting::Text => "text",
    }
}

/// `sframe-conform impls [--json]`.
pub fn impls(json_out: bool, external: &[String]) -> Result<ExitCode, String> {
    let mut reg = Registry::discover(&Options::default());
    for cmd in external {
        reg.add_external(cmd, Options::default().timeout)?;
    }
    let rows: Vec<_> = reg
        .available
        .iter()
        .map(|i| {
            let versions: Vec<u8> = Version::ALL
                .into_iter()
                .filter(|v| i.supports(*v))
                .map(Version::number)
                .collect();
            (i.name(), i.version(), versions, hosting_name(i.hosting()))
        })
        .collect();
    if json_out {
        let v = json!({
            "available": rows.iter().map(|(n, v, vs, k)| json!({"name": n, "version": v, "versions": vs, "kind": k})).collect::<Vec<_>>(),
            "unavailable": reg.unavailable.iter().map(|u| json!({"name": u.name, "reason": u.reason})).collect::<Vec<_>>(),
        });
        crate::outln!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
    } else {
        crate::outln!(
            "{:<18} {:<11} {:<9} version",
            "implementation",
            "kind",
            "SFrame"
        );
        for (n, v, vs, k) in &rows {
            let vs: Vec<String> = vs.iter().map(|v| format!("v{v}")).collect();
            crate::outln!("{n:<18} {k:<11} {:<9} {v}", vs.join(","));
        }
        for u in &reg.unavailable {
            crate::outln!("{:<18} unavailable: {}", u.name, u.reason);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `sframe-conform --version`: this command's version, then every implementation available
/// here with its exact version (as `impls` finds them), and what is not available and why.
pub fn versions() -> String {
    let mut out = format!("sframe-conform {}\n", env!("CARGO_PKG_VERSION"));
    let reg = Registry::discover(&Options::default());
    for i in &reg.available {
        out.push_str(&format!("  {:<18} {}\n", i.name(), i.version()));
    }
    for u in &reg.unavailable {
        out.push_str(&format!("  {:<18} unavailable: {}\n", u.name, u.reason));
    }
    out
}

// The arguments of `sframe-conform diff` (its help text is the doc comments of the fields).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct Args {
    pub files: Vec<PathBuf>,
    /// Only these implementations (repeatable; default: all available).
    #[arg(long = "impl")]
    pub impls: Vec<String>,
    /// Add an external implementation: a command speaking the JSON-lines protocol.
    #[arg(long)]
    pub external: Vec<String>,
    /// Generate N inputs by mutating the FILEs (default: the corpus and built-in seeds).
    #[arg(long)]
    pub generate: Option<usize>,
    /// With --generate: draw sections of this SFrame version only (repeatable).
    #[arg(long = "version")]
    pub versions: Vec<u8>,
    /// Seed of the generator.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    #[arg(long)]
    pub json: bool,
    /// Minimize new discrepancies and record them in the ledger.
    #[arg(long)]
    pub record: bool,
    /// Write the first input of every signature no finding accounts for (new or on the
    /// untriaged list) to DIR, with an index.json.
    #[arg(long, value_name = "DIR")]
    pub save_unexplained: Option<PathBuf>,
    /// Also check the sections foreign encoders (libsframe) write from models.
    #[arg(long)]
    pub producers: bool,
    /// Time limit per request to a worker or external program, in milliseconds.
    #[arg(long, default_value_t = 10_000)]
    pub timeout_ms: u64,
    /// At most this many PCs looked up per section.
    #[arg(long, default_value_t = 256)]
    pub max_pcs: usize,
    /// Findings ledger directory (default: corpus/findings).
    #[arg(long)]
    pub ledger: Option<PathBuf>,
}

/// Whether an implementation named `name` is a text adapter (objdump, llvm-readobj), which
/// the registry sets up only when asked.
pub fn is_text_tool(name: &str) -> bool {
    let t = Tool::named(name);
    t.is(ToolName::Objdump) || t.is(ToolName::LlvmReadobj)
}

fn select(reg: &Registry, wanted: &[String]) -> Result<Vec<Arc<dyn Implementation>>, String> {
    if wanted.is_empty() {
        return Ok(reg.available.clone());
    }
    wanted
        .iter()
        .map(|w| {
            reg.get(w).ok_or_else(|| {
                let names: Vec<String> = reg.available.iter().map(|i| i.name()).collect();
                let why = reg
                    .unavailable
                    .iter()
                    .find(|u| &u.name == w)
                    .map(|u| format!(" ({})", u.reason))
                    .unwrap_or_default();
                format!(
                    "no implementation {w:?}{why}; available: {}",
                    names.join(", ")
                )
            })
        })
        .collect()
}

/// `sframe-conform diff`.
pub fn run(args: &Args) -> Result<ExitCode, String> {
    if args.files.is_empty() && args.generate.is_none() && !args.producers {
        return Err("diff needs FILE... or --generate N (or --producers)".into());
    }
    let timeout = Duration::from_millis(if args.timeout_ms == 0 {
        10_000
    } else {
        args.timeout_ms
    });
    let want_text = args.impls.is_empty() || args.impls.iter().any(|i| is_text_tool(i));
    let mut reg = Registry::discover(&Options {
        timeout,
        objdump: want_text,
    });
    let mut wanted = args.impls.clone();
    for cmd in &args.external {
        let imp = reg.add_external(cmd, timeout)?;
        if !wanted.is_empty() {
            wanted.push(imp.name());
        }
    }
    let impls = select(&reg, &wanted)?;
    let ledger_dir = args.ledger.clone().unwrap_or_else(Ledger::default_dir);
    let ledger = Ledger::load(&ledger_dir).map_err(|e| e.to_string())?;

    let versions = args
        .versions
        .iter()
        .map(|v| {
            Version::from_u8(*v)
                .ok_or_else(|| format!("--version {v}: SFrame has versions 1, 2 and 3"))
        })
        .collect::<Result<Vec<Version>, String>>()?;
    if !versions.is_empty() && args.generate.is_none() {
        return Err("--version selects what --generate draws; it needs --generate N".into());
    }
    let generated_from = match args.generate {
        None => Vec::new(),
        Some(_) => {
            // Mutation seeds: all held, by nature.
            let mut seeds_in = if args.files.is_empty() {
                corpus_cases(&corpus_dir())
            } else {
                read_cases(&args.files)?
            };
            seeds_in.extend(seeds::builtin());
            seeds_in
        }
    };
    // Generated inputs are produced one at a time, never all held; files are walked one at
    // a time (a batch's sections held).
    let mut generated = args
        .generate
        .map(|n| mutate::inputs(&generated_from, n, args.seed, &versions));
    let mut walked = WalkSummary::default();
    let mut walk = (args.generate.is_none() && !args.files.is_empty())
        .then(|| crate::walking::walk(&args.files, false));

    let mut campaign = Campaign::new(impls, &ledger, args.max_pcs);
    let bar = match args.generate {
        Some(n) if !args.json && n >= 20 => ProgressBar::new(n as u64),
        // A walk has its own progress line.
        _ => ProgressBar::hidden(),
    };
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} inputs, {elapsed} ({eta} left) {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    // Per-case results are only printed with --json (as they come); a long text run keeps
    // the summary alone.
    let mut stream = args.json.then(|| crate::out::JsonStream::begin("cases"));
    // In batches, so that the text tools read many sections per process.
    loop {
        let batch: Vec<Case> = match (&mut generated, &mut walk) {
            (Some(g), _) => g.by_ref().take(64).collect(),
            (None, Some(w)) => {
                let mut batch = Vec::new();
                for e in w.by_ref() {
                    walked.add(&e);
                    if let Outcome::Section { loaded, .. } = e.outcome {
                        batch.push(Case {
                            name: e.path.display().to_string(),
                            data: loaded.bytes,
                        });
                        if batch.len() == 64 {
                            break;
                        }
                    }
                }
                batch
            }
            (None, None) => Vec::new(),
        };
        if batch.is_empty() {
            break;
        }
        campaign.run_batch(&batch, |r, summary| {
            if r.discrepancies().next().is_some() {
                bar.set_message(format!("{} signatures", summary.signatures.len()));
                if let Some(stream) = &mut stream {
                    stream.item(r);
                }
            }
            bar.inc(1);
        });
    }
    bar.finish_and_clear();

    if args.producers {
        campaign.check_producers(|r| {
            if r.discrepancies().next().is_some() {
                if let Some(stream) = &mut stream {
                    stream.item(r);
                }
            }
        });
    }

    let recorded: Vec<String> = if args.record {
        campaign
            .record_new()?
            .iter()
            .map(|d| d.display().to_string())
            .collect()
    } else {
        Vec::new()
    };

    if let Some(dir) = &args.save_unexplained {
        campaign.save_unexplained(dir)?;
    }
    let summary = campaign.summary;

    let files_walked = walk.is_some();
    drop(walk);
    if let Some(stream) = stream {
        stream.end(&[
            ("summary", json!(summary)),
            ("recorded", json!(recorded)),
            ("walk", json!(walked)),
        ]);
    } else {
        crate::out!("{}", summary.render_text());
        for r in &recorded {
            crate::outln!("recorded {r}");
        }
    }
    if files_walked {
        // The walk's summary after the report, and its exit status.
        return Ok(if args.json {
            crate::walking::finish(&args.files, &walked, summary.has_new())
        } else {
            crate::walking::finish_text(&args.files, &walked, summary.has_new())
        });
    }
    Ok(if summary.has_new() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
