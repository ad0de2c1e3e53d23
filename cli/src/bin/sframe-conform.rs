//! `sframe-conform`: the conformance suite's command line.
//!
//! Exit status: 0 when everything checked is valid (or agrees), 1 when something violates a
//! rule (or disagrees) or a file could not be read while others could, 2 on usage errors or
//! when no file gave an SFrame section ([`sframe_conform::walking`]).

use clap::{Parser, Subcommand};
use sframe_conform::{check, dump, rules_cmd};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "sframe-conform",
    about = "Conformance checks and differential testing for SFrame (.sframe) sections",
    disable_version_flag = true,
    arg_required_else_help = true
)]
struct Cli {
    /// Print the version of sframe-conform and of every implementation found here.
    #[arg(short = 'V', long)]
    version: bool,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Check sections (ELF files or raw .sframe sections; directories are searched) against
    /// the rule catalogue: a line per file with problems, then a summary per producer
    /// (from a manifest.json above the files), format version and ABI. Reproducers of a
    /// findings ledger met in a directory are reported apart, as expected to break rules,
    /// and do not count in the exit status.
    Check {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Machine-readable output (the same report, as JSON).
        #[arg(long)]
        json: bool,
        /// Fail on warnings too.
        #[arg(long)]
        strict: bool,
        /// Every violation of every file, with hex excerpts (the default for a single file).
        #[arg(short, long)]
        verbose: bool,
    },
    /// Print sections in readable form, or their normalized model as JSON.
    Dump {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Bug reports of findings still present upstream, ready to file: summary, releases,
    /// a reproducer needing only the upstream tools, actual and expected with the manual's
    /// sentence, the source lines at fault. Refuses (exit 1) findings that are not bugs,
    /// not present upstream, or whose report.json is not written.
    Report(sframe_conform::report_cmd::Args),
    /// List the rule catalogue (or the discrepancies between the texts).
    Rules {
        #[arg(long)]
        json: bool,
        #[arg(long)]
        discrepancies: bool,
    },
    /// Run ELF files' code in the emulator and check the SFrame row of every executed PC
    /// against the true CFA, return address and frame pointer (directories are searched).
    Oracle(sframe_conform::oracle_cmd::Args),
    /// Random functions with CFI directives through the SFrame producers (GNU as
    /// `--gsframe` of each provisioned release); each function's SFrame rows are checked
    /// per PC against the object's own `.eh_frame` CFI.
    Produce(sframe_conform::produce_cmd::Args),
    /// Every function of ELF files (relocatable, executable, shared object; directories are
    /// searched): its SFrame row at every PC against the same file's `.eh_frame`, PLT
    /// sections included; a summary per producer and ABI.
    Crosscheck(sframe_conform::crosscheck_cmd::Args),
    /// The conformance matrix: per implementation, the rules it enforces, accepts broken
    /// or crashes on (from a run on the corpus, the seeds and their mutations), and the
    /// quirks of the reference that reproduce its known deviations (from the ledger).
    Matrix {
        #[arg(long)]
        json: bool,
        /// Mutated sections beside the corpus and the seeds.
        #[arg(long, default_value_t = 2000)]
        mutations: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Findings ledger directory (default: corpus/findings).
        #[arg(long)]
        ledger: Option<PathBuf>,
    },
    /// List the SFrame implementations available here, their exact versions and the
    /// format versions they read.
    Impls {
        #[arg(long)]
        json: bool,
        /// Also start an external implementation (a command speaking the JSON-lines protocol).
        #[arg(long)]
        external: Vec<String>,
    },
    /// Compare implementations on sections (files, directories) or on generated inputs;
    /// exit 1 when a discrepancy no finding of the ledger covers shows up.
    Diff(sframe_conform::diff_cmd::Args),
    /// Write generated sections (valid, or malformed with a JSON sidecar naming the rules each
    /// breaks) as raw `.sframe` files, from the generator `sframe-gen`.
    Gen {
        /// SFrame version (1, 2 or 3); default: all.
        #[arg(long)]
        version: Option<u8>,
        /// ABI: amd64, aarch64, aarch64-be or s390x; default: all the version defines.
        #[arg(long)]
        abi: Option<String>,
        /// Byte order (little or big), for an ABI that has both (AArch64).
        #[arg(long)]
        endian: Option<String>,
        /// How many sections.
        #[arg(long, default_value_t = 100)]
        count: usize,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Output directory (created).
        #[arg(long)]
        out: PathBuf,
        /// Break each section with a mutation tagged with the rules it violates.
        #[arg(long)]
        malformed: bool,
    },
    /// A conformance suite for SFrame readers in any language: `suite export DIR` writes
    /// raw sections (valid, malformed, invalid) beside JSON expectations; `suite score DIR
    /// --impl NAME` scores an implementation on it.
    Suite {
        #[command(subcommand)]
        cmd: sframe_conform::suite_cmd::SuiteCmd,
    },
    /// FRE look-ups per second of every implementation on the same large sections, as ratios
    /// to the newest libsframe; decode+validate throughput of the reference.
    Bench {
        #[arg(long)]
        json: bool,
        /// Functions in the synthetic section.
        #[arg(long, default_value_t = 100_000)]
        functions: u32,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let code = match run(cli) {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("sframe-conform: {msg}");
            ExitCode::from(2)
        }
    };
    sframe_conform::out::flush();
    code
}

fn print_json(v: &serde_json::Value) {
    sframe_conform::out::json(v);
}

fn run(cli: Cli) -> Result<ExitCode, String> {
    let Some(command) = cli.command else {
        // `arg_required_else_help` leaves only `--version` here.
        sframe_conform::out!("{}", sframe_conform::diff_cmd::versions());
        return Ok(ExitCode::SUCCESS);
    };
    if cli.version {
        return Err("--version takes no command".into());
    }
    match command {
        Command::Check {
            files,
            json,
            strict,
            verbose,
        } => check::run(&check::Args {
            files,
            json,
            strict,
            verbose,
        }),
        Command::Dump { files, json } => Ok(dump::run(&files, json)),
        Command::Report(args) => sframe_conform::report_cmd::run(&args),
        Command::Rules {
            json,
            discrepancies,
        } => {
            match (json, discrepancies) {
                (true, false) => print_json(&rules_cmd::rules_json()),
                (true, true) => print_json(&rules_cmd::discrepancies_json()),
                (false, false) => sframe_conform::out!("{}", rules_cmd::rules_text()),
                (false, true) => sframe_conform::out!("{}", rules_cmd::discrepancies_text()),
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Impls { json, external } => sframe_conform::diff_cmd::impls(json, &external),
        Command::Matrix {
            json,
            mutations,
            seed,
            ledger,
        } => sframe_conform::matrix_cmd::run(json, mutations, seed, ledger),
        Command::Diff(args) => sframe_conform::diff_cmd::run(&args),
        Command::Gen {
            version,
            abi,
            endian,
            count,
            seed,
            out,
            malformed,
        } => gen(
            version,
            abi.as_deref(),
            endian.as_deref(),
            count,
            seed,
            &out,
            malformed,
        ),
        Command::Suite { cmd } => sframe_conform::suite_cmd::run(cmd),
        Command::Bench { json, functions } => sframe_conform::bench::run(json, functions),
        Command::Produce(args) => sframe_conform::produce_cmd::run(&args),
        Command::Crosscheck(args) => sframe_conform::crosscheck_cmd::run(&args),
        Command::Oracle(args) => sframe_conform::oracle_cmd::run(&args),
    }
}

/// `sframe-conform gen`.
fn gen(
    version: Option<u8>,
    abi: Option<&str>,
    endian: Option<&str>,
    count: usize,
    seed: u64,
    out: &std::path::Path,
    malformed: bool,
) -> Result<ExitCode, String> {
    use sframe_spec::{Abi, Endian, Version};
    let version = match version {
        None => None,
        Some(v) => Some(
            Version::from_u8(v)
                .ok_or_else(|| format!("--version {v}: SFrame has versions 1, 2 and 3"))?,
        ),
    };
    let names = || {
        Abi::ALL
            .iter()
            .map(|a| a.name())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let abi = match abi {
        None => None,
        Some(a) => Some(
            Abi::from_name(a)
                .ok_or_else(|| format!("--abi {a}: not an ABI (one of {})", names()))?,
        ),
    };
    let endian = match endian {
        None => None,
        Some("little") => Some(Endian::Little),
        Some("big") => Some(Endian::Big),
        Some(e) => return Err(format!("--endian {e}: little or big")),
    };
    let mut cfg = sframe_gen::Config::default();
    if let Some(v) = version {
        cfg.versions = vec![v];
    }
    match (abi, endian) {
        (Some(a), e) => {
            let a = sframe_gen::config::abi_with_endian(a, e).map_err(|e| e.to_string())?;
            cfg.abis = vec![a];
        }
        (None, Some(e)) => cfg.abis.retain(|a| a.endian() == e),
        (None, None) => {}
    }
    if cfg.targets().is_empty() {
        let what = match (version, abi) {
            (Some(v), Some(a)) => format!("ABI {a} is not defined in SFrame {v}"),
            _ => "no (version, ABI) pair matches".to_string(),
        };
        return Err(what);
    }
    let paths = sframe_gen::write_corpus(&cfg, count, seed, out, malformed)
        .map_err(|e| format!("{}: {e}", out.display()))?;
    sframe_conform::outln!("wrote {} section(s) to {}", paths.len(), out.display());
    Ok(ExitCode::SUCCESS)
}
