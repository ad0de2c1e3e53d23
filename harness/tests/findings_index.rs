//! `corpus/findings/README.md` indexes every finding of the ledger as the ledger says it
//! (verdict, quirks, upstream evidence, fixed-in releases): its `## Index` section is
//! exactly what `cargo run -p sframe-harness --example findings-index` prints.

use sframe_harness::findings_index;
use sframe_harness::ledger::Ledger;

#[test]
fn the_readme_index_is_the_ledger() {
    let dir = Ledger::default_dir();
    let ledger = Ledger::load(&dir).expect("the findings ledger loads");
    let readme = std::fs::read_to_string(dir.join("README.md")).expect("README.md");
    let want = findings_index::markdown(&ledger);
    let start = readme
        .find(findings_index::HEADING)
        .expect("README.md has an index section");
    let got = readme[start..]
        .split_inclusive('\n')
        .scan(false, |done, line| {
            if *done {
                return None;
            }
            *done = line.starts_with("Untriaged:");
            Some(line)
        })
        .collect::<String>();
    assert!(
        got == want,
        "corpus/findings/README.md's index is stale: replace its `{}` section with the output \
         of `cargo run -p sframe-harness --example findings-index`",
        findings_index::HEADING
    );
}
