//! `sframe-conform matrix`: the rules-by-implementations conformance matrix, from a run of
//! every available implementation on the corpus, the built-in seeds and their mutations,
//! and from the ledger (see [`sframe_harness::matrix`]).

use sframe_harness::diff::Engine;
use sframe_harness::input::Bundled;
use sframe_harness::ledger::Ledger;
use sframe_harness::matrix::Matrix;
use sframe_impls::registry::{Options, Registry};
use std::path::PathBuf;
use std::process::ExitCode;

/// Run the matrix: `mutations` mutated sections (seed `seed`) beside the corpus and seeds.
pub fn run(
    json: bool,
    mutations: usize,
    seed: u64,
    ledger: Option<PathBuf>,
) -> Result<ExitCode, String> {
    let ledger =
        Ledger::load(&ledger.unwrap_or_else(Ledger::default_dir)).map_err(|e| e.to_string())?;
    let reg = Registry::discover(&Options::default());
    let engine = Engine::new(reg.available.clone()).with_ledger(&ledger);
    let m = Matrix::of_run(&engine, &ledger, Bundled::load(mutations, seed).all());
    if json {
        crate::outln!(
            "{}",
            serde_json::to_string_pretty(&m).map_err(|e| e.to_string())?
        );
    } else {
        crate::out!("{}", m.render_text());
        for u in &reg.unavailable {
            crate::outln!("unavailable here: {} ({})", u.name, u.reason);
        }
    }
    Ok(ExitCode::SUCCESS)
}
