//! `sframe-conform check`: validate sections against the rule catalogue.

use serde_json::{json, Value};
use sframe_harness::hexdump::excerpt;
use sframe_harness::input::InputSection;
use sframe_spec::{rules::Severity, validate, Violation};

/// The outcome for one file.
pub struct CheckResult {
    pub violations: Vec<Violation>,
}

impl CheckResult {
    pub fn errors(&self) -> usize {
        self.violations
            .iter()
            .filter(|v| v.rule.info().severity == Severity::Error)
            .count()
    }
    pub fn warnings(&self) -> usize {
        self.violations.len() - self.errors()
    }
    /// Whether the file fails: any error, or with `strict` any warning.
    pub fn fails(&self, strict: bool) -> bool {
        self.errors() > 0 || (strict && !self.violations.is_empty())
    }
}

pub fn check(input: &InputSection) -> CheckResult {
    CheckResult {
        violations: validate(&input.loaded.bytes),
    }
}

fn severity_name(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// Human-readable report.
pub fn render_text(input: &InputSection, r: &CheckResult) -> String {
    let b = &input.loaded.bytes;
    let mut out = String::new();
    let summary = match sframe_spec::SectionRef::parse(b) {
        Ok(s) => format!(
            "SFrame {} {} {}-endian, {} functions",
            s.version(),
            s.abi(),
            s.endian().name(),
            s.num_fdes()
        ),
        Err(_) => "unreadable SFrame header".to_string(),
    };
    out.push_str(&format!(
        "{}: {} ({}), {} bytes: {} errors, {} warnings\n",
        input.path.display(),
        summary,
        input.origin(),
        b.len(),
        r.errors(),
        r.warnings()
    ));
    for v in &r.violations {
        out.push_str(&format!(
            "  {:7} {v}\n",
            severity_name(v.rule.info().severity)
        ));
        for line in excerpt(b, v.offset) {
            out.push_str(&format!("          {line}\n"));
        }
    }
    out
}

/// Machine-readable report.
pub fn render_json(input: &InputSection, r: &CheckResult) -> Value {
    json!({
        "file": input.path.display().to_string(),
        "section_vaddr": input.loaded.vaddr,
        "valid": r.errors() == 0,
        "errors": r.errors(),
        "warnings": r.warnings(),
        "violations": r.violations.iter().map(|v| json!({
            "rule": v.rule.id(),
            "severity": severity_name(v.rule.info().severity),
            "offset": v.offset,
            "function": v.function,
            "fre": v.fre,
            "found": v.found,
            "expected": v.expected,
            "message": v.to_string(),
        })).collect::<Vec<_>>(),
    })
}
