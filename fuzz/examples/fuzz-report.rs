//! What the fuzz scripts print before and after a run of the differential targets.
//!
//! - `fuzz-report implementations`: the implementations a target would test with the
//!   settings of the environment (`SFRAME_FUZZ_EXCLUDE`), and those excluded; exit 1, with
//!   the commands that provision them, when one is missing.
//! - `fuzz-report summary DIR`: the findings directory DIR of a run sorted by the ledger into
//!   known and new causes; each new cause of a differential target minimized, with the
//!   `sframe-conform diff --record` command for it; exit 1 when there is a new cause.

use sframe_fuzz::{differential, settings, summary};
use sframe_harness::ledger::Ledger;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["implementations"] => match differential::build(&settings::excluded()) {
            Ok(d) => {
                print!("{}", d.selection.render());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprint!("{e}");
                ExitCode::from(1)
            }
        },
        ["summary", dir] => {
            let dir = std::path::Path::new(dir);
            let r = match differential::build(&settings::excluded()) {
                Ok(d) => {
                    print!("{}", d.selection.render());
                    summary::summarize(dir, &d.ledger, Some(&d.engine))
                }
                // The causes of a target that needs no libsframe (oracle_small,
                // producer_cfi) are sorted all the same, without minimizing.
                Err(e) => {
                    eprint!("{e}");
                    eprintln!("fuzz-report: new causes are not minimized");
                    let ledger = match Ledger::load(&differential::ledger_dir()) {
                        Ok(l) => l,
                        Err(e) => {
                            eprintln!("fuzz-report: the findings ledger does not load: {e}");
                            return ExitCode::from(2);
                        }
                    };
                    summary::summarize(dir, &ledger, None)
                }
            };
            print!("{}", r.render());
            if r.new.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        _ => {
            eprintln!("usage: fuzz-report implementations | fuzz-report summary DIR");
            ExitCode::from(2)
        }
    }
}
