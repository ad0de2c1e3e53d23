//! The gate sees a new bug in an implementation that already has findings.
//!
//! An external program that calls itself `simple-frame-rs` 0.3.0 (a copy of the example
//! adapter, `examples/external-adapter.py`, with one rule changed: the AMD64 return address
//! is read 8 bytes above the header's fixed RA offset) must fail the gate, named, although
//! the ledger holds several findings about `simple-frame-rs` 0.3.0: findings explain a
//! discrepancy only when their quirks reproduce the implementation's exact answer.

use sframe_harness::diff::report::Summary;
use sframe_harness::diff::Engine;
use sframe_harness::gate::Corpus;
use sframe_harness::impls::process::{Launch, ProcessImpl};
use sframe_harness::impls::{Hosting, Implementation};
use sframe_harness::ledger::Ledger;
use sframe_harness::signature::{FieldPath, Signature, Tool, ToolKind};
use sframe_spec::Version;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// The example adapter, renamed to `simple-frame-rs` 0.3.0, with `planted` (an exact line of
/// the adapter) replaced by `with`.
fn impostor(planted: &str, with: &str) -> Arc<dyn Implementation> {
    let source = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/external-adapter.py"),
    )
    .expect("the example adapter is in the repository");
    assert!(
        source.contains(planted),
        "the adapter no longer has the line {planted:?}"
    );
    let source = source
        .replace("NAME = \"python-example\"", "NAME = \"simple-frame-rs\"")
        .replace("VERSION = \"python-example 0.1\"", "VERSION = \"0.3.0\"")
        .replace(planted, with);
    let dir = std::env::temp_dir().join(format!("sframe-planted-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join(format!("adapter-{}.py", with.len()));
    std::fs::write(&script, source).unwrap();
    let launch = Launch::new("python3")
        .arg(script.display().to_string())
        .timeout(Duration::from_secs(20));
    Arc::new(ProcessImpl::start(launch, Hosting::External).expect("python3 runs the adapter"))
}

fn ledger() -> Ledger {
    Ledger::load(&Ledger::default_dir()).expect("the findings ledger loads")
}

/// Run `imp` on the AMD64 sections of GNU as 2.47 (v3) and return the summary.
fn run(imp: Arc<dyn Implementation>, ledger: &Ledger) -> Summary {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/elf/gnu-as-2.47/amd64");
    let corpus = Corpus::from_dir(&dir);
    assert!(
        corpus.cases.len() >= 10,
        "too few corpus sections in {}",
        dir.display()
    );
    let engine = Engine::new(vec![imp]).with_ledger(ledger);
    let mut summary = Summary::default();
    for c in &corpus.cases {
        summary.add(&engine.run_case(c), &c.data, ledger);
    }
    summary
}

#[test]
fn a_wrong_return_address_from_a_known_implementation_is_new() {
    let ledger = ledger();
    assert!(
        ledger
            .findings
            .iter()
            .any(|f| f.quirks.contains_key("simple-frame-rs")),
        "the ledger has simple-frame-rs findings with quirks"
    );
    let imp = impostor(
        "ra, fp_idx = slot(self.fixed_ra), 1",
        "ra, fp_idx = slot(self.fixed_ra + 8), 1",
    );
    assert_eq!(imp.name(), "simple-frame-rs");
    let summary = run(imp, &ledger);
    let new: Vec<&Signature> = summary.new_signatures().map(|s| &s.signature).collect();
    assert!(
        new.iter()
            .any(|s| matches!(s, Signature::Diff { imp, tag, field, .. }
            // An external program is a tool of its own whatever it calls itself.
            if *imp == Tool { name: ToolKind::Other("simple-frame-rs".into()), release: None }
                && tag.version == Some(Version::V3)
                && matches!(field.path, FieldPath::FreRa | FieldPath::RowRa))),
        "the planted wrong RA is not reported as new: {new:?}\n{}",
        summary.render_text()
    );
}

#[test]
fn the_unchanged_adapter_under_the_same_name_is_clean_there() {
    // The control: without the planted rule the same program agrees on these sections, so
    // what the test above sees is the planted rule and nothing else.
    let ledger = ledger();
    let imp = impostor(
        "ra, fp_idx = slot(self.fixed_ra), 1",
        "ra, fp_idx = slot(self.fixed_ra), 1",
    );
    let summary = run(imp, &ledger);
    assert!(!summary.has_new(), "{}", summary.render_text());
    assert!(summary.signatures.is_empty(), "{}", summary.render_text());
}
