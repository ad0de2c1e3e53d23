//! `sframe-conform suite`: the arguments of `suite export DIR` and `suite score DIR --impl
//! NAME` (or `--external CMD`), and what they print. The suite itself (its format, the
//! classification of a section, the scoring) is [`sframe_harness::suite`].

use clap::Subcommand;
use sframe_harness::impls::Implementation;
use sframe_harness::suite::{export, score, ExportSettings};
use sframe_impls::registry::{Options, Registry};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

/// `sframe-conform suite ...`.
#[derive(Subcommand, Debug)]
pub enum SuiteCmd {
    /// Write the suite: DIR/valid, DIR/malformed, DIR/invalid (NAME.sframe beside NAME.json),
    /// DIR/index.json and DIR/README.md, from the corpus, the built-in seeds and mutations.
    Export {
        dir: PathBuf,
        /// Mutated sections beside the corpus and the seeds.
        #[arg(long, default_value_t = 1000)]
        mutations: usize,
        /// Seed of the mutations.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Run an implementation on every case of a suite and print a table per class and
    /// version (passed / failed / unsupported / crashed). Exit 0: scoring is a report.
    Score {
        dir: PathBuf,
        /// The implementation (a name `sframe-conform impls` lists).
        #[arg(long = "impl")]
        implementation: Option<String>,
        /// An external implementation: a command speaking the JSON-lines protocol.
        #[arg(long)]
        external: Option<String>,
        #[arg(long)]
        json: bool,
        /// Time limit per request to a worker or external program, in milliseconds.
        #[arg(long, default_value_t = 10_000)]
        timeout_ms: u64,
    },
}

/// Run a `suite` subcommand.
pub fn run(cmd: SuiteCmd) -> Result<ExitCode, String> {
    match cmd {
        SuiteCmd::Export {
            dir,
            mutations,
            seed,
        } => {
            let settings = ExportSettings {
                mutations,
                seed,
                version: env!("CARGO_PKG_VERSION"),
            };
            let s = export(&dir, &settings)?;
            crate::outln!(
                "wrote {} case(s) to {} ({} inputs, {} duplicates dropped)",
                s.cases,
                dir.display(),
                s.inputs,
                s.inputs - s.cases
            );
            crate::out!("{}", s.render_counts());
            Ok(ExitCode::SUCCESS)
        }
        SuiteCmd::Score {
            dir,
            implementation,
            external,
            json,
            timeout_ms,
        } => {
            let timeout = Duration::from_millis(timeout_ms);
            let imp = select(implementation.as_deref(), external.as_deref(), timeout)?;
            let report = score(&dir, imp.as_ref())?;
            if json {
                crate::outln!(
                    "{}",
                    serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?
                );
            } else {
                crate::out!("{}", report.render_text());
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn select(
    name: Option<&str>,
    external: Option<&str>,
    timeout: Duration,
) -> Result<Arc<dyn Implementation>, String> {
    let text = name.is_some_and(crate::diff_cmd::is_text_tool);
    let mut reg = Registry::discover(&Options {
        timeout,
        objdump: text,
    });
    match (name, external) {
        (Some(_), Some(_)) => Err("give --impl NAME or --external CMD, not both".into()),
        (None, None) => Err("which implementation? --impl NAME or --external CMD".into()),
        (None, Some(cmd)) => reg.add_external(cmd, timeout),
        (Some(n), None) => reg.get(n).ok_or_else(|| {
            let names: Vec<String> = reg.available.iter().map(|i| i.name()).collect();
            let why = reg
                .unavailable
                .iter()
                .find(|u| {
                    u.name == n
                        || (u.name.ends_with('*') && n.starts_with(u.name.trim_end_matches('*')))
                })
                .map(|u| format!(" ({})", u.reason))
                .unwrap_or_default();
            format!(
                "no implementation {n:?}{why}; available: {}",
                names.join(", ")
            )
        }),
    }
}
