//! Every upstream quote of the ledger is really in the implementation's own source.
//!
//! A finding's `upstream` entries name a source tree (`binutils-2.44-3`,
//! `simple-frame-rs-0.3.0`, ...), a file in it and the lines that decide the verdict.
//! `ci/upstream-sources` (run by `ci/test`) fetches those trees from Debian and crates.io
//! into the cache; this test fails, naming that script, when one is missing, and fails
//! naming the finding when a quote is not in its file (white space folded on both sides).
//!
//! Every finding also says whether the newest upstream source still has it
//! (`upstream_status`: present, fixed or unknown); the lines a `present` or `fixed` status
//! quotes are checked the same way against the newest trees (`binutils-2.47.50.…` from sid's
//! `binutils-source`, `glibc-2.43-7` from sid's `glibc-source`, ...).

use sframe_harness::ledger::{Ledger, Status};
use std::path::Path;

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
            if let Err(e) = quoted_in(&src.join(&u.source).join(&u.file), &u.lines) {
                bad.push(format!("{}: {e}", f.id));
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

/// The quote is in `file` (white space folded); `Err` names what is wrong.
fn quoted_in(file: &Path, lines: &str) -> Result<(), String> {
    let text = std::fs::read_to_string(file).map_err(|e| {
        format!(
            "cannot read {} ({e}): run ci/upstream-sources (UPSTREAM_WITH_LLVM=1 for LLVM) to fetch the upstream sources",
            file.display()
        )
    })?;
    let quote = fold(lines);
    if quote.len() < 10 {
        return Err("a quote too short to decide anything".into());
    }
    if !fold(&text).contains(&quote) {
        return Err(format!("not in {}: {:.120}", file.display(), quote));
    }
    Ok(())
}

#[test]
fn every_finding_says_where_the_newest_upstream_source_stands() {
    let ledger = Ledger::load(&Ledger::default_dir()).expect("the ledger loads");
    let without: Vec<&str> = ledger
        .findings
        .iter()
        .filter(|f| f.upstream_status.is_empty())
        .map(|f| f.id.as_str())
        .collect();
    assert!(
        without.is_empty(),
        "findings without an upstream_status (present, fixed or unknown in the newest source): {}",
        without.join(", ")
    );
}

#[test]
fn every_newest_source_quote_is_in_the_newest_source() {
    let ledger = Ledger::load(&Ledger::default_dir()).expect("the ledger loads");
    let src = sframe_harness::cache_dir().join("src");
    let (mut checked, mut present) = (0, 0);
    let mut bad = Vec::new();
    for f in &ledger.findings {
        for s in &f.upstream_status {
            present += usize::from(s.status == Status::Present);
            if !s.lines.is_empty() && !src.join(&s.tree).is_dir() {
                bad.push(format!(
                    "{} ({}): the tree {} is not fetched: run ci/upstream-sources; if it says sid has moved past that version, read the statuses again on the new tree",
                    f.id, s.implementation, s.tree
                ));
                continue;
            }
            for l in &s.lines {
                if let Err(e) = quoted_in(&src.join(&s.tree).join(&l.file), &l.lines) {
                    bad.push(format!(
                        "{} ({}, {}): {e}",
                        f.id, s.implementation, s.newest
                    ));
                }
                checked += 1;
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {checked} newest-source quotes fail:\n{}",
        bad.len(),
        bad.join("\n")
    );
    assert!(
        present >= 40 && checked >= present,
        "only {present} present statuses and {checked} newest-source quotes"
    );
}

#[test]
fn a_quote_missing_from_its_file_fails() {
    let file = std::env::temp_dir().join(format!("sframe-upstream-{}.c", std::process::id()));
    std::fs::write(
        &file,
        "if (fre_offset_count > MAX_NUM_STACK_OFFSETS)\n  return -1;\n",
    )
    .unwrap();
    assert_eq!(
        quoted_in(&file, "if (fre_offset_count >\n MAX_NUM_STACK_OFFSETS)"),
        Ok(())
    );
    assert!(quoted_in(&file, "if (fre_offset_count >= MAX_NUM_STACK_OFFSETS)").is_err());
    std::fs::remove_file(&file).unwrap();
    assert!(quoted_in(&file, "if (fre_offset_count > MAX_NUM_STACK_OFFSETS)").is_err());
}

#[test]
fn the_fold_can_fail() {
    assert!(fold("a\n  b\tc").contains(&fold("a b c")));
    assert!(!fold("a b c").contains(&fold("a c")));
}
