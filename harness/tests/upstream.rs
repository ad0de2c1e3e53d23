//! Every upstream quote of the ledger is really in the implementation's own source.
//!
//! A finding's `upstream` entries name a source tree (`binutils-2.44-3`,
//! `simple-frame-rs-0.3.0`, ...), a file in it and the lines that decide the verdict.
//! `ci/upstream-sources` (run by `ci/test`) fetches those trees from Debian and crates.io
//! into the cache; this test fails, naming that script, when one is missing, and fails
//! naming the finding when a quote is not in its file (white space folded on both sides).

use sframe_harness::ledger::Ledger;

fn fold(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn every_upstream_quote_is_in_its_source_file() {
    let ledger = Ledger::load(&Ledger::default_dir()).expect("the ledger loads");
    let src = sframe_harness::cache_dir().join("src");
    let mut checked = 0;
    let mut bad = Vec::new();
    for f in &ledger.findings {
        for u in &f.upstream {
            assert!(
                !u.source.is_empty(),
                "{}: an upstream entry names no source tree",
                f.id
            );
            let path = src.join(&u.source).join(&u.file);
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
                panic!(
                    "{}: cannot read {} ({e}): run ci/upstream-sources (UPSTREAM_WITH_LLVM=1 for LLVM) to fetch the upstream sources",
                    f.id,
                    path.display()
                )
            });
            let quote = fold(&u.lines);
            assert!(
                quote.len() >= 10,
                "{}: an upstream quote too short to decide anything",
                f.id
            );
            if !fold(&text).contains(&quote) {
                bad.push(format!(
                    "{}: not in {}: {:.120}",
                    f.id,
                    path.display(),
                    quote
                ));
            }
            checked += 1;
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {checked} quotes are not in their files:\n{}",
        bad.len(),
        bad.join("\n")
    );
    assert!(
        checked >= 100,
        "only {checked} upstream quotes in the ledger"
    );
}

#[test]
fn the_fold_can_fail() {
    assert!(fold("a\n  b\tc").contains(&fold("a b c")));
    assert!(!fold("a b c").contains(&fold("a c")));
}
