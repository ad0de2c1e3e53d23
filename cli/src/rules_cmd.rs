//! `sframe-conform rules`: the catalogue and the list of discrepancies between the texts.

use serde_json::{json, Value};
use sframe_spec::discrepancies::DISCREPANCIES;
use sframe_spec::rules::{Class, Severity};
use sframe_spec::Rule;

pub fn rules_json() -> Value {
    Value::Array(
        Rule::ALL
            .iter()
            .map(|r| {
                let i = r.info();
                json!({
                    "id": i.id,
                    "summary": i.summary,
                    "versions": i.versions.list(),
                    "abis": i.abis.list(),
                    "severity": match i.severity { Severity::Error => "error", Severity::Warning => "warning" },
                    "class": match i.class { Class::Malformed => "malformed", Class::Invalid => "invalid" },
                    "basis": i.basis.kind(),
                    "source": i.basis.source(),
                    "text": i.basis.text(),
                })
            })
            .collect(),
    )
}

pub fn rules_text() -> String {
    let mut o = format!("{} rules\n", Rule::ALL.len());
    for r in Rule::ALL {
        let i = r.info();
        let vs: Vec<String> = i.versions.list().iter().map(|v| format!("v{v}")).collect();
        o.push_str(&format!(
            "\n{:<24} {:?}/{:?}  [{}] [{}]\n  {}\n  basis: {}: {}\n",
            i.id,
            i.severity,
            i.class,
            vs.join(","),
            i.abis.list().join(","),
            i.summary,
            i.basis.source(),
            i.basis.text()
        ));
    }
    o
}

pub fn discrepancies_json() -> Value {
    Value::Array(
        DISCREPANCIES
            .iter()
            .map(|d| {
                json!({
                    "id": d.id,
                    "topic": d.topic,
                    "versions": d.versions,
                    "citations": d.citations.iter().map(|c| json!({"file": c.file, "place": c.place, "quote": c.quote})).collect::<Vec<_>>(),
                    "resolution": d.resolution,
                })
            })
            .collect(),
    )
}

pub fn discrepancies_text() -> String {
    let mut o = format!("{} discrepancies between the texts\n", DISCREPANCIES.len());
    for d in DISCREPANCIES {
        o.push_str(&format!("\n{}: {}\n", d.id, d.topic));
        for c in d.citations {
            o.push_str(&format!("  {} ({}): \"{}\"\n", c.file, c.place, c.quote));
        }
        o.push_str(&format!("  reference: {}\n", d.resolution));
    }
    o
}
