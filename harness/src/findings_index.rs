//! The findings index of `corpus/findings/README.md`, written from the ledger.
//!
//! One Markdown table row per finding (ID with a link to its report, verdict, title, the
//! quirks that reproduce it per implementation, where its upstream evidence comes from, the
//! releases it is fixed in, and whether the newest upstream source still has it), then the
//! size of the untriaged list. The README's `## Index`
//! section is this text; `harness/tests/findings_index.rs` checks it stays so.

use crate::ledger::{Finding, Ledger};
use crate::report;
use crate::upstream_status;
use std::collections::BTreeSet;

/// The heading the index sits under in the README.
pub const HEADING: &str = "## Index";

/// The index of `ledger`, from its heading to the untriaged count (ends with a newline).
pub fn markdown(ledger: &Ledger) -> String {
    let mut findings: Vec<&Finding> = ledger.findings.iter().collect();
    findings.sort_by(|a, b| a.id.cmp(&b.id));
    let mut out = format!(
        "{HEADING}\n\n| ID | verdict | title | quirks | upstream source | fixed in | newest upstream | report |\n|---|---|---|---|---|---|---|---|\n"
    );
    for f in findings {
        let short = f.id.get(..5).unwrap_or(&f.id);
        out.push_str(&format!(
            "| [{short}]({}/README.md) | {} | {} | {} | {} | {} | {} | {} |\n",
            f.id,
            verdict_name(f),
            cell(&f.title),
            cell(&quirks(f)),
            cell(&upstream(f)),
            cell(&fixed_in(f)),
            cell(&upstream_status::summary(&f.upstream_status)),
            cell(&report_link(ledger, f)),
        ));
    }
    out.push_str(&format!(
        "\nUntriaged: {} exact signatures (`untriaged.json`).\n",
        ledger.untriaged.len()
    ));
    out
}

/// A link to the finding's bug report (`sframe-conform report`), where one is committed.
fn report_link(ledger: &Ledger, f: &Finding) -> String {
    if ledger.dir.join(&f.id).join(report::OUTPUT).is_file() {
        format!("[report]({}/{})", f.id, report::OUTPUT)
    } else {
        String::new()
    }
}

fn verdict_name(f: &Finding) -> String {
    serde_json::to_value(f.verdict)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// A table cell: `|` escaped, line breaks folded, `—` when empty.
fn cell(s: &str) -> String {
    if s.is_empty() {
        return "—".into();
    }
    s.replace('|', "\\|").replace('\n', " ")
}

fn quirks(f: &Finding) -> String {
    f.quirks
        .iter()
        .map(|(imp, qs)| {
            let names: Vec<&str> = qs.iter().map(|q| q.name()).collect();
            format!("{imp}: {}", names.join(", "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// `N quotes: <source> \`<file>\`, ...` (at most three source files, then `…`).
fn upstream(f: &Finding) -> String {
    if f.upstream.is_empty() {
        return String::new();
    }
    let files: BTreeSet<String> = f
        .upstream
        .iter()
        .map(|u| format!("{} `{}`", u.source, u.file))
        .collect();
    let shown: Vec<String> = files.iter().take(3).cloned().collect();
    let more = if files.len() > 3 { " …" } else { "" };
    format!("{} quotes: {}{more}", f.upstream.len(), shown.join(", "))
}

fn fixed_in(f: &Finding) -> String {
    f.fixed_in
        .iter()
        .map(|t| t.version.clone())
        .collect::<Vec<_>>()
        .join(", ")
}
