//! Check signatures logged by a smoke run against the findings ledger.
//!
//! `cargo run -p sframe-harness --example ledger-check -- FILE [LEDGER]`: FILE holds one
//! `signature<TAB>how to reproduce` per line (what the fuzz targets log with
//! `SFRAME_FUZZ_NEW_LOG`: discrepancies no quirk explains). Prints the signatures no finding
//! and no untriaged entry accounts for, with their reproducer, and exits 1 when there is one
//! (2 on unreadable input).

use sframe_harness::ledger::Ledger;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let Some(file) = args.next().map(PathBuf::from) else {
        eprintln!("ledger-check: usage: ledger-check FILE [LEDGER]");
        return ExitCode::from(2);
    };
    let dir = args.next().map_or_else(Ledger::default_dir, PathBuf::from);
    let ledger = match Ledger::load(&dir) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("ledger-check: {e}");
            return ExitCode::from(2);
        }
    };
    let text = match std::fs::read_to_string(&file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("ledger-check: {}: {e}", file.display());
            return ExitCode::from(2);
        }
    };
    let mut new: BTreeMap<&str, &str> = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let (sig, how) = line.split_once('\t').unwrap_or((line, ""));
        if ledger.accounted_signature(sig).is_none() {
            new.entry(sig).or_insert(how);
        }
    }
    if new.is_empty() {
        return ExitCode::SUCCESS;
    }
    println!(
        "new signatures no finding explains ({} distinct; reproduce with the command beside each):",
        new.len()
    );
    for (sig, how) in new {
        println!("    {sig}\t{how}");
    }
    ExitCode::from(1)
}
