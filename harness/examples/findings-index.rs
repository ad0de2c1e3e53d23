//! Print the findings index of `corpus/findings/README.md` from the ledger (the `## Index`
//! section, up to the untriaged count): `cargo run -p sframe-harness --example findings-index`.

use sframe_harness::findings_index;
use sframe_harness::ledger::Ledger;
use std::process::ExitCode;

fn main() -> ExitCode {
    match Ledger::load(&Ledger::default_dir()) {
        Ok(l) => {
            print!("{}", findings_index::markdown(&l));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("findings-index: {e}");
            ExitCode::from(2)
        }
    }
}
