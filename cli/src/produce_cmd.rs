//! `sframe-conform produce`: random functions through the SFrame producers (GNU as
//! `--gsframe` of every provisioned release, `llvm-mc --gsframe`), their SFrame rows checked
//! per PC against the object's own DWARF CFI (crate `sframe-producers`); with `--patterns`,
//! executable prologue/epilogue shapes, also run in the emulator (crate `sframe-oracle`). Exit 0 when every disagreement is
//! accounted for by the findings ledger, 1 when one is not, 2 on bad input.

use serde::Serialize;
use sframe_harness::ledger::Ledger;
use sframe_harness::signature::{self, OracleKind, Signature};
use sframe_producers::asm::{self, Producer};
use sframe_producers::check::FdeOutcome;
use sframe_producers::gen::{self, Arch, Config};
use sframe_producers::pattern::{self, PatternProgram};
use sframe_producers::FileResult;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

// The arguments of `sframe-conform produce` (its help text is the doc comments of the fields).
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Random functions per (producer, ABI).
    #[arg(long, default_value_t = 1000)]
    pub generate: u64,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Only this producer (e.g. gnu-as-2.44).
    #[arg(long)]
    pub producer: Option<String>,
    /// ABIs (amd64, aarch64, aarch64-be, s390x); default all of them.
    #[arg(long)]
    pub abi: Vec<String>,
    #[arg(long)]
    pub json: bool,
    /// Worker threads (0: all cores).
    #[arg(long, default_value_t = 0)]
    pub jobs: usize,
    /// Findings ledger directory (default: corpus/findings).
    #[arg(long)]
    pub ledger: Option<PathBuf>,
    /// Functions per generated file, at most (the generator's default is 3; larger files
    /// cost fewer assembler runs per function, but one refused file loses all of them).
    #[arg(long)]
    pub max_functions: Option<usize>,
    /// Executable prologue/epilogue shapes with their true CFI instead of random directives:
    /// each object is checked against its `.eh_frame` and run in the emulator, whose
    /// signatures name the shape (`oracle:<producer>:<abi>:<shape>:<kind>`).
    #[arg(long)]
    pub patterns: bool,
    /// Minimize each disagreement the ledger does not account for into DIR/<sig>.s.
    #[arg(long)]
    pub minimize: Option<PathBuf>,
}

#[derive(Debug, Default, Clone, Serialize)]
struct Counts {
    producer: String,
    version: String,
    abi: String,
    files: u64,
    functions: u64,
    fdes: u64,
    agree: u64,
    omitted_expressible: u64,
    omitted_unexpressible: u64,
    disagree: u64,
    assembler_errors: u64,
    read_errors: u64,
    /// `--patterns`: functions run in the emulator, and PCs checked there.
    emulated_functions: u64,
    emulated_pcs: u64,
    seconds: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct SigInfo {
    count: u64,
    finding: Option<String>,
    first_case: u64,
    pc_offset: u64,
    expected: String,
    found: String,
    unexpressible: Option<sframe_producers::check::Unexpressible>,
    minimized: Option<String>,
}

#[derive(Serialize)]
struct Report {
    seed: u64,
    functions_per_pair: u64,
    producers: Vec<Counts>,
    signatures: BTreeMap<String, SigInfo>,
    assembler_errors: BTreeMap<String, u64>,
    /// `<producer> <abi>` pairs whose assembler writes no SFrame for the ABI.
    unsupported: Vec<String>,
}

pub fn run(args: &Args) -> Result<ExitCode, String> {
    let ledger_dir = args.ledger.clone().unwrap_or_else(Ledger::default_dir);
    let ledger = Ledger::load(&ledger_dir).map_err(|e| e.to_string())?;
    let archs: Vec<Arch> = if args.abi.is_empty() {
        Arch::ALL.to_vec()
    } else {
        args.abi
            .iter()
            .map(|a| Arch::from_name(a).ok_or_else(|| format!("unknown ABI {a:?}")))
            .collect::<Result<_, _>>()?
    };
    let mut report = Report {
        seed: args.seed,
        functions_per_pair: args.generate,
        producers: vec![],
        signatures: BTreeMap::new(),
        assembler_errors: BTreeMap::new(),
        unsupported: vec![],
    };
    let jobs = if args.jobs == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        args.jobs
    };
    let scratch = std::env::temp_dir().join(format!("sframe-produce-{}", std::process::id()));
    for arch in archs {
        let mut cfg = Config::new(arch);
        if let Some(n) = args.max_functions {
            cfg.max_functions = n.max(1);
        }
        let (producers, unsupported): (Vec<Producer>, Vec<Producer>) = asm::producers(arch)
            .into_iter()
            .filter(|p| args.producer.as_ref().is_none_or(|n| &p.name == n))
            .partition(|p| p.writes_sframe(&scratch.join("probe")));
        report.unsupported.extend(
            unsupported
                .iter()
                .map(|p| format!("{} {}", p.name, arch.abi_name())),
        );
        if producers.is_empty() && unsupported.is_empty() {
            return Err(format!(
                "no producer for {} in {}",
                arch.abi_name(),
                asm::bin_dir().display()
            ));
        }
        for p in &producers {
            let t0 = Instant::now();
            let counts = Mutex::new(Counts {
                producer: p.name.clone(),
                version: p.version(),
                abi: arch.abi_name().into(),
                ..Default::default()
            });
            let sigs: Mutex<BTreeMap<Signature, (SigInfo, Case)>> = Mutex::new(BTreeMap::new());
            let (producer, abi) = (p.signature_name(), arch.oracle_abi());
            let oracle_sig = |function: &str, kind: OracleKind| {
                Signature::oracle(&producer, abi, function, kind)
            };
            let errors: Mutex<BTreeMap<String, u64>> = Mutex::new(BTreeMap::new());
            let next = AtomicU64::new(0);
            let functions = AtomicU64::new(0);
            let bar = if args.json {
                indicatif::ProgressBar::hidden()
            } else {
                indicatif::ProgressBar::new(args.generate)
            };
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{msg:24} {bar:40} {pos}/{len} functions {elapsed} ({per_sec})",
                )
                .map_err(|e| e.to_string())?,
            );
            bar.set_message(format!("{} {}", p.name, arch.abi_name()));
            std::thread::scope(|s| {
                for j in 0..jobs {
                    let work = scratch.join(format!("{}-{}-{j}", p.name, arch.abi_name()));
                    let (counts, sigs, errors, next, functions, bar, cfg) =
                        (&counts, &sigs, &errors, &next, &functions, &bar, &cfg);
                    let (producer, oracle_sig) = (&producer, &oracle_sig);
                    s.spawn(move || loop {
                        if functions.load(Ordering::SeqCst) >= args.generate {
                            break;
                        }
                        let case = next.fetch_add(1, Ordering::SeqCst);
                        let prog = if args.patterns {
                            Case::Pattern(pattern::program(
                                args.seed,
                                case,
                                arch,
                                cfg.max_functions,
                            ))
                        } else {
                            Case::Cfi(gen::program(args.seed, case, cfg))
                        };
                        let nf = prog.functions() as u64;
                        functions.fetch_add(nf, Ordering::SeqCst);
                        bar.inc(nf);
                        let whole = sframe_producers::run_asm(p, &prog.to_asm(), &work);
                        // A file the assembler refuses is tried again a function at a time, so
                        // that one function's refusal leaves no other function unchecked.
                        let parts: Vec<(Case, FileResult)> =
                            if whole.assembler_error.is_some() && nf > 1 {
                                prog.split()
                                    .into_iter()
                                    .map(|one| {
                                        let r = sframe_producers::run_asm(p, &one.to_asm(), &work);
                                        (one, r)
                                    })
                                    .collect()
                            } else {
                                vec![(prog, whole)]
                            };
                        for (prog, r) in parts {
                            let emulated = match (&prog, &r.object) {
                                (Case::Pattern(_), Some(obj)) => Some(emulate(obj, case, producer)),
                                _ => None,
                            };
                            let mut c = counts.lock().unwrap_or_else(|e| e.into_inner());
                            c.files += 1;
                            c.functions += prog.functions() as u64;
                            // Every disagreement of the file, with its signature.
                            let mut found: Vec<(Signature, SigInfo)> = Vec::new();
                            if let Some(e) = &r.assembler_error {
                                c.assembler_errors += 1;
                                match sframe_producers::assembler_failure_signature(
                                    producer, abi, e,
                                ) {
                                    Some(sig) => found.push((
                                        sig,
                                        SigInfo::new(
                                            case,
                                            0,
                                            "an object".into(),
                                            first_error(e),
                                            None,
                                        ),
                                    )),
                                    None => {
                                        *errors
                                            .lock()
                                            .unwrap_or_else(|e| e.into_inner())
                                            .entry(first_error(e))
                                            .or_default() += 1;
                                    }
                                }
                            }
                            if r.read_error.is_some() {
                                c.read_errors += 1;
                            }
                            match emulated {
                                Some(Ok(e)) => {
                                    c.emulated_functions += e.functions;
                                    c.emulated_pcs += e.pcs;
                                    found.extend(e.mismatches);
                                }
                                Some(Err(err)) => found.push((
                                    oracle_sig("emulator", OracleKind::StepError),
                                    SigInfo::new(case, 0, "a run".into(), err, None),
                                )),
                                None => {}
                            }
                            for o in &r.outcomes {
                                c.fdes += 1;
                                match o {
                                    FdeOutcome::Agrees => c.agree += 1,
                                    FdeOutcome::Omitted(None) => c.omitted_expressible += 1,
                                    FdeOutcome::Omitted(Some(_)) => c.omitted_unexpressible += 1,
                                    FdeOutcome::Disagrees(m) => found.push((
                                        sframe_producers::signature(producer, abi, m),
                                        SigInfo::new(
                                            case,
                                            m.pc_offset,
                                            m.expected.to_string(),
                                            m.found.to_string(),
                                            m.unexpressible,
                                        ),
                                    )),
                                }
                            }
                            c.disagree += found.len() as u64;
                            drop(c);
                            let mut g = sigs.lock().unwrap_or_else(|e| e.into_inner());
                            for (sig, info) in found {
                                g.entry(sig).or_insert_with(|| (info, prog.clone())).0.count += 1;
                            }
                        }
                    });
                }
            });
            bar.finish_and_clear();
            let mut c = counts.into_inner().unwrap_or_else(|e| e.into_inner());
            c.seconds = t0.elapsed().as_secs_f64();
            // Leaving a function out is allowed; leaving every one out, expressible ones
            // included, is a producer that writes no SFrame for the ABI in effect.
            if c.agree == 0 && c.omitted_expressible >= EVERY_FUNCTION_OMITTED_MIN {
                let sig = oracle_sig("cfi-every-function-omitted", OracleKind::NoRow);
                let info = SigInfo::new(
                    0,
                    0,
                    "rows for expressible functions".into(),
                    format!(
                        "{} expressible functions left out, none written",
                        c.omitted_expressible
                    ),
                    None,
                );
                let mut g = sigs.lock().unwrap_or_else(|e| e.into_inner());
                g.entry(sig)
                    .or_insert_with(|| {
                        (
                            info,
                            Case::Cfi(gen::Program {
                                arch,
                                funcs: vec![],
                            }),
                        )
                    })
                    .0
                    .count += 1;
            }
            for (sig, (mut info, prog)) in sigs.into_inner().unwrap_or_else(|e| e.into_inner()) {
                info.finding = ledger.account(&sig).label().map(str::to_string);
                if info.finding.is_none() {
                    if let (Some(dir), Case::Cfi(prog)) = (&args.minimize, &prog) {
                        let small = sframe_producers::minimize::minimize(
                            p,
                            prog,
                            &sig,
                            &scratch.join("min"),
                        );
                        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
                        let name = sframe_harness::diff::campaign::file_name_of(&sig.to_string());
                        let path = dir.join(format!("{name}.s"));
                        std::fs::write(&path, small.to_asm()).map_err(|e| e.to_string())?;
                        info.minimized = Some(path.display().to_string());
                    }
                }
                report.signatures.insert(sig.to_string(), info);
            }
            for (k, n) in errors.into_inner().unwrap_or_else(|e| e.into_inner()) {
                *report
                    .assembler_errors
                    .entry(format!("{}: {k}", p.name))
                    .or_default() += n;
            }
            report.producers.push(c);
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    let new: Vec<&String> = report
        .signatures
        .iter()
        .filter(|(_, i)| i.finding.is_none())
        .map(|(s, _)| s)
        .collect();
    if args.json {
        crate::outln!(
            "{}",
            serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?
        );
    } else {
        crate::outln!(
            "{:<14} {:<10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>7} {:>11} {:>7}",
            "producer",
            "abi",
            "functions",
            "fdes",
            "agree",
            "omit-expr",
            "omit-unex",
            "disagree",
            "asm-err",
            "emu-pcs",
            "fn/s"
        );
        for c in &report.producers {
            crate::outln!(
                "{:<14} {:<10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>7} {:>11} {:>7.0}",
                c.producer,
                c.abi,
                c.functions,
                c.fdes,
                c.agree,
                c.omitted_expressible,
                c.omitted_unexpressible,
                c.disagree,
                c.assembler_errors,
                c.emulated_pcs,
                c.functions as f64 / c.seconds.max(1e-9)
            );
        }
        for (s, i) in &report.signatures {
            crate::outln!(
                "{s}: {} ({})",
                i.count,
                i.finding.as_deref().unwrap_or("NEW")
            );
        }
        for (k, n) in &report.assembler_errors {
            crate::outln!("assembler error {k}: {n}");
        }
        for u in &report.unsupported {
            crate::outln!("no SFrame written: {u}");
        }
    }
    if let Some(s) = new.first() {
        eprintln!("sframe-conform: producer disagreement not in the findings ledger: {s}");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// The first error line of an assembler's stderr, without the file name and line.
fn first_error(stderr: &str) -> String {
    let line = stderr
        .lines()
        .find(|l| l.to_ascii_lowercase().contains("error"))
        .or_else(|| stderr.lines().find(|l| !l.ends_with("Assembler messages:")))
        .unwrap_or("");
    match line.find("Error").or_else(|| line.find("error")) {
        Some(i) => line[i..].to_string(),
        None => line.to_string(),
    }
}

/// How many expressible functions a producer must have left out, and none written, before
/// a pass says it writes no SFrame for the ABI at all.
const EVERY_FUNCTION_OMITTED_MIN: u64 = 20;

/// One generated file: random CFI directives, or executable patterns.
#[derive(Debug, Clone)]
enum Case {
    Cfi(gen::Program),
    Pattern(PatternProgram),
}

impl Case {
    /// One case per function.
    fn split(&self) -> Vec<Case> {
        match self {
            Case::Cfi(p) => p
                .funcs
                .iter()
                .map(|f| Case::Cfi(sframe_producers::single(p.arch, f.clone())))
                .collect(),
            Case::Pattern(p) => p
                .funcs
                .iter()
                .map(|f| {
                    Case::Pattern(PatternProgram {
                        arch: p.arch,
                        funcs: vec![f.clone()],
                    })
                })
                .collect(),
        }
    }
    fn functions(&self) -> usize {
        match self {
            Case::Cfi(p) => p.funcs.len(),
            Case::Pattern(p) => p.funcs.len(),
        }
    }
    fn to_asm(&self) -> String {
        match self {
            Case::Cfi(p) => p.to_asm(),
            Case::Pattern(p) => p.to_asm(),
        }
    }
}

impl SigInfo {
    fn new(
        first_case: u64,
        pc_offset: u64,
        expected: String,
        found: String,
        unexpressible: Option<sframe_producers::check::Unexpressible>,
    ) -> SigInfo {
        SigInfo {
            count: 0,
            finding: None,
            first_case,
            pc_offset,
            expected,
            found,
            unexpressible,
            minimized: None,
        }
    }
}

/// What the emulator said of one object of pattern functions.
pub struct Emulated {
    pub functions: u64,
    pub pcs: u64,
    /// Signatures, with the first sighting's details.
    pub mismatches: Vec<(Signature, SigInfo)>,
}

/// Run every function of `obj` in the emulator (a few runs, seeded by the case) and name each
/// wrong row by the function's shape.
pub fn emulate(obj: &[u8], case: u64, producer: &signature::Producer) -> Result<Emulated, String> {
    let oracle = sframe_oracle::Oracle::new(obj).map_err(|e| e.to_string())?;
    let opts = sframe_oracle::Options {
        runs: 2,
        extra_runs: 2,
        seed: case,
        jobs: 1,
        ..sframe_oracle::Options::default()
    };
    let report = oracle.check_all(&opts).map_err(|e| e.to_string())?;
    let mismatches = report
        .mismatches()
        .map(|m| {
            let shape = pattern::shape_of(&m.function);
            let sig = m.signature_as(producer, report.abi, shape);
            let info = SigInfo::new(
                case,
                m.offset,
                format!("{:?}", m.seen.expected),
                format!("{:?} (row {:?})", m.seen.got, m.seen.row),
                None,
            );
            (sig, info)
        })
        .collect();
    Ok(Emulated {
        functions: report.functions.len() as u64,
        pcs: report.functions.iter().map(|f| f.rows_checked).sum(),
        mismatches,
    })
}
