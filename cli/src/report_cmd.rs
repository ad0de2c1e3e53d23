//! `sframe-conform report`: the bug reports of findings still present upstream
//! ([`sframe_harness::report`]), printed, written to a directory, or rewritten in the ledger.
//!
//! Exit status: 0 when every finding asked for got its report; 1 when one of them was
//! refused (not a bug, not present upstream, no hand-written part yet), with a line on
//! stderr per refusal; 2 for usage errors and a ledger that cannot be read.

use serde_json::json;
use sframe_harness::ledger::{Finding, Ledger};
use sframe_harness::report::{self, Format, OUTPUT};
use std::path::PathBuf;
use std::process::ExitCode;

/// The command's arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Finding IDs (F0180) or full directory names.
    pub findings: Vec<String>,
    /// Every finding that is an implementation or producer bug present upstream.
    #[arg(long)]
    pub all: bool,
    /// markdown or bugzilla (plain text, fixed width).
    #[arg(long, default_value = "markdown")]
    pub format: String,
    /// Write each report to DIR/<finding>.md (or .txt) instead of stdout.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Write each report to the ledger's <finding>/report.md (how the committed ones are made).
    #[arg(long)]
    pub in_place: bool,
    /// The findings ledger (default: corpus/findings).
    #[arg(long)]
    pub ledger: Option<PathBuf>,
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &Args) -> Result<ExitCode, String> {
    let format = Format::from_name(&args.format)
        .ok_or_else(|| format!("--format {}: markdown or bugzilla", args.format))?;
    if args.all != args.findings.is_empty() {
        return Err("name findings (F0180 or the full ID) or give --all, not both".into());
    }
    if args.in_place && (args.out.is_some() || format != Format::Markdown) {
        return Err(
            "--in-place writes Markdown into the ledger: no --out, no --format bugzilla".into(),
        );
    }
    let dir = args.ledger.clone().unwrap_or_else(Ledger::default_dir);
    let ledger = Ledger::load(&dir).map_err(|e| e.to_string())?;
    let mut chosen: Vec<Result<&Finding, report::Refusal>> = Vec::new();
    if args.all {
        let mut all: Vec<&Finding> = ledger
            .findings
            .iter()
            .filter(|f| report::eligible(f).is_ok())
            .collect();
        all.sort_by(|a, b| a.id.cmp(&b.id));
        chosen.extend(all.into_iter().map(Ok));
    } else {
        for name in &args.findings {
            let hits: Vec<&Finding> = ledger
                .findings
                .iter()
                .filter(|f| f.id == *name || f.id.split('-').next() == Some(name.as_str()))
                .collect();
            match hits.as_slice() {
                [f] => chosen.push(Ok(f)),
                _ => chosen.push(Err(report::Refusal::Unknown(name.clone()))),
            }
        }
    }
    if let Some(out) = &args.out {
        std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    }
    let mut refused = 0usize;
    let mut written = Vec::new();
    let mut refusals = Vec::new();
    for c in chosen {
        let prepared = c.and_then(|f| report::prepare(&dir, f));
        let p = match prepared {
            Ok(p) => p,
            Err(r) => {
                eprintln!("sframe-conform report: {r}");
                refusals.push(json!({"reason": r.to_string()}));
                refused += 1;
                continue;
            }
        };
        let text = report::render(&p, format);
        let target = if args.in_place {
            Some(dir.join(&p.finding.id).join(OUTPUT))
        } else {
            args.out
                .as_ref()
                .map(|o| o.join(format!("{}.{}", p.finding.id, format.extension())))
        };
        if let Some(path) = &target {
            if let Err(e) = std::fs::write(path, &text) {
                eprintln!("sframe-conform report: {}: {e}", path.display());
                refused += 1;
                continue;
            }
        }
        if args.json {
            written.push(json!({
                "id": p.finding.id,
                "format": args.format,
                "summary": p.input.summary,
                "path": target.as_ref().map(|t| t.display().to_string()),
                "text": if target.is_none() { Some(text) } else { None },
            }));
        } else if let Some(path) = target {
            crate::outln!("{}", path.display());
        } else {
            crate::out!("{text}");
            crate::outln!();
        }
    }
    if args.json {
        crate::out::json(&json!({"reports": written, "refused": refusals}));
    }
    Ok(if refused > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
