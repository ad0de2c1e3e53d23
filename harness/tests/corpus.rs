//! The real corpus (`corpus/manifest.json`): every section decodes with the reference reader,
//! its header says what the manifest (written from the producers' runs) says, and every rule
//! it breaks is a ledgered finding (`corpus/findings/`).
//!
//! Signature of a corpus violation: `violation:<RULE-ID>:<path under corpus/elf/>`.

use serde_json::Value;
use sframe_harness::ledger::Ledger;
use std::path::{Path, PathBuf};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus")
}

fn manifest() -> Vec<Value> {
    let text =
        std::fs::read_to_string(corpus_dir().join("manifest.json")).expect("corpus/manifest.json");
    serde_json::from_str::<Vec<Value>>(&text).expect("manifest is a JSON array")
}

#[test]
fn manifest_covers_every_producer_version_and_abi_of_the_issue() {
    let m = manifest();
    let has = |producer: &str, release: &str, abi: &str, version: u64, kind: &str| {
        m.iter().any(|e| {
            e["producer"] == producer
                && e["release"] == release
                && e["abi"] == abi
                && e["sframe_version"] == version
                && e["kind"] == kind
        })
    };
    for kind in ["relocatable", "shared"] {
        for (p, r, a, v) in [
            ("gnu-as", "2.40", "amd64", 1),
            ("gnu-as", "2.40", "aarch64", 1),
            ("gnu-as", "2.44", "amd64", 2),
            ("gnu-as", "2.44", "aarch64", 2),
            ("llvm", "23", "amd64", 2),
            ("gnu-as", "2.47", "amd64", 3),
            ("gnu-as", "2.47", "aarch64", 3),
            ("gnu-as", "2.47", "s390x", 3),
        ] {
            assert!(
                has(p, r, a, v, kind),
                "corpus lacks {kind} {p} {r} {a} (SFrame v{v})"
            );
        }
    }
}

#[test]
fn every_section_decodes_matches_its_manifest_and_breaks_only_ledgered_rules() {
    let ledger = Ledger::load(&Ledger::default_dir()).expect("findings ledger readable");
    let mut new = Vec::new();
    let mut checked = 0;
    for e in manifest() {
        let rel = e["file"].as_str().unwrap();
        let path = corpus_dir().join(rel);
        let input = sframe_harness::input::read_input(&path).unwrap_or_else(|err| panic!("{err}"));
        let b = &input.loaded.bytes;
        let section =
            sframe_spec::decode(b).unwrap_or_else(|v| panic!("{rel}: does not decode: {v}"));
        assert_eq!(
            u64::from(section.version.number()),
            e["sframe_version"].as_u64().unwrap(),
            "{rel}"
        );
        assert_eq!(
            u64::from(section.flags),
            e["sframe_flags"].as_u64().unwrap(),
            "{rel}"
        );
        assert_eq!(
            u64::from(section.abi.id()),
            e["sframe_abi_arch"].as_u64().unwrap(),
            "{rel}"
        );
        assert_eq!(
            section.functions.len() as u64,
            e["num_fdes"].as_u64().unwrap(),
            "{rel}"
        );
        assert_eq!(
            section.num_fres() as u64,
            e["num_fres"].as_u64().unwrap(),
            "{rel}"
        );
        let under_elf = rel.strip_prefix("elf/").unwrap_or(rel);
        for v in sframe_spec::validate(b) {
            let sig = format!("violation:{}:{under_elf}", v.rule.id());
            let typed = sig.parse().expect("a violation signature");
            if ledger.lookup_signature(&typed).is_none() {
                new.push(format!("{sig}  ({v})"));
            }
        }
        checked += 1;
    }
    assert!(checked >= 400, "only {checked} corpus files");
    assert!(
        new.is_empty(),
        "{} violations not in the ledger, first ones:\n{}",
        new.len(),
        new.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
    );
}
