//! Writing a new finding to the ledger: `finding.json`, the minimized `input.sframe` and a
//! Markdown report (verdict `open` until someone investigates and edits it).

use super::{Discrepancy, Op};
use crate::hexdump::excerpt;
use crate::ledger::{Finding, Ledger, ToolVersion, Verdict};
use crate::signature::{Signature, SignaturePattern};
use sframe_spec::{validate, Rule};
use std::path::PathBuf;

/// The next free `F<NNNN>` number in the ledger directory.
pub fn next_id(ledger: &Ledger) -> u32 {
    let mut max = 0;
    if let Ok(rd) = std::fs::read_dir(&ledger.dir) {
        for e in rd.filter_map(Result::ok) {
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some(n) = name
                .strip_prefix('F')
                .and_then(|r| r.get(..4))
                .and_then(|d| d.parse::<u32>().ok())
            {
                max = max.max(n);
            }
        }
    }
    max + 1
}

/// A short directory-name slug of a signature.
pub fn slug(signature: &str) -> String {
    let s: String = signature
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let mut out = String::new();
    for part in s.split('-').filter(|p| !p.is_empty()) {
        if !out.is_empty() {
            out.push('-');
        }
        out.push_str(part);
    }
    out.chars().take(60).collect()
}

/// Record `d` (seen on `input`, minimized) as a new finding; returns its directory.
pub fn record(
    ledger: &Ledger,
    d: &Discrepancy,
    input: &[u8],
    tools: Vec<ToolVersion>,
    original: &str,
) -> std::io::Result<PathBuf> {
    let id = format!("F{:04}-{}", next_id(ledger), slug(&d.signature.to_string()));
    let violations = validate(input);
    let rules: Vec<String> = match &d.signature {
        Signature::AcceptedInvalid { rule, .. } => vec![rule.id().to_string()],
        _ => Vec::new(),
    };
    let (imp, op) = (d.implementation(), d.op());
    let op_cmd = match op {
        Op::Encode => "sframe-conform diff --producers".to_string(),
        _ => format!(
            "cargo run --bin sframe-conform -- diff --impl {imp} corpus/findings/{id}/input.sframe"
        ),
    };
    let finding = Finding {
        id: id.clone(),
        title: format!("{imp}: {} {} ({})", op.name(), d.detail(), d.kind_name()),
        kind: d.kind(),
        verdict: Verdict::Open,
        tools,
        rules: rules.clone(),
        // A reader's value disagreement or refusal of a valid section is explained only by
        // quirks (named when it is triaged; the ledger refuses a pattern for it); the other
        // classes by their exact signature.
        signatures: SignaturePattern::exact(&d.signature).into_iter().collect(),
        reproducers: vec!["input.sframe".into()],
        reproduce: op_cmd.clone(),
        fixed_in: Vec::new(),
        notes: if d.signature.is_reader_value() {
            format!(
                "Not explained yet: {} stays new until this finding names the quirks of the reference that reproduce it (`quirks`).",
                d.signature
            )
        } else {
            String::new()
        },
        quirks: Default::default(),
        triggers: Default::default(),
        upstream: Vec::new(),
        upstream_status: Vec::new(),
        claim: Vec::new(),
        first_bad_access: Vec::new(),
    };
    let mut md = format!("# {id}\n\n**{}**\n\n", finding.title);
    md.push_str(&format!(
        "- signature: `{}`\n- implementation: `{imp}`\n- operation: `{}`\n",
        d.signature,
        op.name()
    ));
    if let Some(f) = d.function {
        md.push_str(&format!("- function: {f}\n"));
    }
    if let Some(k) = d.fre {
        md.push_str(&format!("- FRE: {k}\n"));
    }
    if let Some(pc) = d.pc {
        md.push_str(&format!("- PC (section-relative): {pc:#x}\n"));
    }
    md.push_str(&format!(
        "- reference: `{}`\n- {imp}: `{}`\n- first seen on: `{original}`\n\n",
        d.expected, d.found
    ));
    md.push_str(&format!(
        "Reproduce: `{op_cmd}`\n\n## Input ({} bytes, minimized)\n\n```text\n",
        input.len()
    ));
    for line in excerpt(input, 0).into_iter().take(1) {
        md.push_str(&line);
        md.push('\n');
    }
    for chunk in input.chunks(16) {
        md.push_str(
            &chunk
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<Vec<_>>()
                .join(" "),
        );
        md.push('\n');
    }
    md.push_str("```\n\n## Rules\n\n");
    if violations.is_empty() {
        md.push_str("The input breaks no rule of the catalogue.\n");
    }
    for v in &violations {
        md.push_str(&format!("- {v}\n"));
    }
    for r in rules.iter().filter_map(|r| Rule::from_id(r)) {
        let i = r.info();
        md.push_str(&format!(
            "\n`{}` ({}): \"{}\"\n",
            i.id,
            i.basis.source(),
            i.basis.text()
        ));
    }
    md.push_str("\n## Verdict\n\nOpen: not investigated yet.\n");
    ledger.record(&finding, &[("input.sframe", input)], &md)
}

impl Discrepancy {
    pub fn kind_name(&self) -> &'static str {
        match self.kind() {
            crate::ledger::FindingKind::Disagreement => "disagreement",
            crate::ledger::FindingKind::Crash => "crash",
            crate::ledger::FindingKind::Hang => "hang",
            crate::ledger::FindingKind::AcceptedInvalid => "accepted-invalid",
            crate::ledger::FindingKind::RejectedValid => "rejected-valid",
            crate::ledger::FindingKind::OracleMismatch => "oracle-mismatch",
            crate::ledger::FindingKind::ProducerViolation => "producer-violation",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `diff --record` writes loads back: a refusal of a valid section (a reader's
    /// value, explained by quirks only) is recorded without a pattern, a crash with its
    /// exact signature, and the loaded ledger accounts for the crash only.
    #[test]
    fn recorded_findings_load_back() {
        use crate::ledger::Account;
        let dir = std::env::temp_dir().join(format!("sframe-record-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let ledger = Ledger {
            dir: dir.clone(),
            ..Ledger::default()
        };
        let refusal = Discrepancy::new(
            "rejected-valid:libsframe-2.47:v2:decode:SFRAME_ERR_BUF_INVAL"
                .parse()
                .expect("a signature"),
        );
        let crash = Discrepancy::new(
            "crash:libsframe-2.47:v2:decode:SIGSEGV:sframe_decode"
                .parse()
                .expect("a signature"),
        );
        let input = [0xe2, 0xde, 2];
        record(&ledger, &refusal, &input, Vec::new(), "test").expect("recorded");
        record(&ledger, &crash, &input, Vec::new(), "test").expect("recorded");
        let back = Ledger::load(&dir).expect("what record writes loads");
        assert_eq!(back.findings.len(), 2);
        assert_eq!(back.account(&refusal), Account::New);
        assert!(back.account(&crash).finding().is_some());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn slugs_are_directory_names() {
        assert_eq!(
            slug("diff:libsframe-2.44:find_fre:row.ra"),
            "diff-libsframe-2-44-find-fre-row-ra"
        );
    }
}
