//! # sframe-oracle
//!
//! The ground truth no table-only tool has: run the real machine code of an ELF file in the
//! Unicorn emulator and decide, instruction by instruction, whether the SFrame row for that
//! PC recovers the caller's true CFA, return address and frame pointer.
//!
//! ```no_run
//! let elf = std::fs::read("foo.o").unwrap();
//! let oracle = sframe_oracle::Oracle::new(&elf).unwrap();
//! let report = oracle.check_all(&sframe_oracle::Options::default()).unwrap();
//! let producer = sframe_findings::signature::Producer::named("my-producer");
//! for m in report.mismatches() {
//!     println!("{}", m.signature(&producer, report.abi));
//! }
//! ```
//!
//! Modules:
//! - [`image`]: the loader (linked files by segment, relocatable objects by section with
//!   their code relocated), and the functions (every FDE, every `STT_FUNC` symbol);
//! - [`arch`]: the CPU of each ABI, one file per architecture;
//! - [`disasm`]: instruction starts and control flow (Capstone sweep), for coverage;
//! - [`shadow`]: the shadow stack of true frames;
//! - [`checker`]: applying a row to the live state (through `sframe_spec`'s lookup and
//!   unwind step) and judging it; whole-stack walks;
//! - [`emu`]: the emulator, its runs and hooks;
//! - [`snapshot`]: machine state plus true frames, for other unwinders;
//! - [`report`]: coverage, mismatches, signatures, throughput.
//!
//! What is true: at function entry, CFA = SP + the ABI's adjustment (AMD64 8, AArch64 0,
//! s390x 160), the return address is where the call left it and the frame pointer is the
//! caller's; these stay the truth for every PC of the frame.

pub mod arch;
pub mod checker;
pub mod disasm;
pub mod emu;
pub mod error;
pub mod image;
pub mod report;
pub mod shadow;
pub mod snapshot;

pub use emu::{DropReason, RunEnd};
pub use error::OracleError;
pub use image::{Function, FunctionKind, Image, SkipReason};
pub use report::{FunctionReport, Mismatch, Report, Stats, Summary};
pub use snapshot::StackSnapshot;

use checker::OracleKind;
use emu::{Ctx, Emulator, FnAcc, FunctionCode, WorkerResult};
use sframe_spec::SectionRef;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// How hard to try. The defaults check a typical object file in well under a second.
#[derive(Debug, Clone)]
pub struct Options {
    /// Runs per function under test with fresh random inputs.
    pub runs: u32,
    /// Further runs that force conditional branches to uncovered sides, while they find new
    /// instructions (stopping after six that find none).
    pub extra_runs: u32,
    /// Seed of every random choice: same seed, same report.
    pub seed: u64,
    /// Instructions per run.
    pub budget: u64,
    /// Deepest shadow stack; calls beyond it return at once.
    pub max_depth: usize,
    /// Pages mapped on demand per run for wild pointers.
    pub page_limit: usize,
    /// Worker threads (0: the machine's parallelism).
    pub jobs: usize,
    /// Keep a [`StackSnapshot`] of the deepest point of each function's runs.
    pub snapshots: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            runs: 8,
            extra_runs: 24,
            seed: 0,
            budget: 20_000,
            max_depth: 16,
            page_limit: 256,
            jobs: 0,
            snapshots: false,
        }
    }
}

/// A file ready to be checked: its image, functions and their instructions.
#[derive(Debug)]
pub struct Oracle {
    image: Image,
    code: Vec<FunctionCode>,
}

impl Oracle {
    /// Load an ELF file (executable, shared object or relocatable object of x86-64, AArch64
    /// or s390x) with a `.sframe` section.
    pub fn new(elf: &[u8]) -> Result<Oracle, OracleError> {
        let image = Image::load(elf)?;
        Oracle::from_image(image)
    }

    /// Load an ELF file but check `section` (the bytes of a `.sframe` for the same code, at
    /// the same address) instead of its own: for planted errors and rewritten sections.
    pub fn with_section(elf: &[u8], section: Vec<u8>) -> Result<Oracle, OracleError> {
        let mut image = Image::load(elf)?;
        let sref = SectionRef::parse(&section).map_err(OracleError::Section)?;
        if sref.abi() != image.abi {
            return Err(OracleError::AbiMismatch {
                section: sref.abi(),
                machine: image.abi,
            });
        }
        image.version = sref.version();
        image.section = section;
        Oracle::from_image(image)
    }

    fn from_image(image: Image) -> Result<Oracle, OracleError> {
        let cs = image
            .cpu
            .capstone()
            .map_err(|e| OracleError::Emulator(format!("capstone: {e}")))?;
        let code = image
            .functions
            .iter()
            .map(|f| {
                let len = f.end.saturating_sub(f.start);
                match image.read(f.start, len) {
                    Some(bytes) if !f.outside_code => FunctionCode::new(
                        disasm::sweep(image.cpu, &cs, bytes, f.start),
                        f.start,
                        len,
                    ),
                    _ => FunctionCode::default(),
                }
            })
            .collect();
        Ok(Oracle { image, code })
    }

    pub fn image(&self) -> &Image {
        &self.image
    }
    pub fn functions(&self) -> &[Function] {
        &self.image.functions
    }
    /// The instructions of function `f`.
    pub fn instructions(&self, f: usize) -> &[disasm::Insn] {
        &self.code[f].insns
    }
    /// The section being checked.
    pub fn section(&self) -> SectionRef<'_> {
        SectionRef::parse(&self.image.section).expect("checked when loaded")
    }
    /// Index of the function named `name`.
    pub fn function_index(&self, name: &str) -> Option<usize> {
        self.image.functions.iter().position(|f| f.name == name)
    }

    /// Check every function.
    pub fn check_all(&self, opts: &Options) -> Result<Report, OracleError> {
        let all: Vec<usize> = (0..self.image.functions.len()).collect();
        self.check_functions(&all, opts, &|| {})
    }

    /// Check one function (the report covers every function its runs reached).
    pub fn check_function(&self, f: usize, opts: &Options) -> Result<Report, OracleError> {
        self.check_functions(&[f], opts, &|| {})
    }

    /// Check the functions `which` as functions under test; `done` is called after each.
    pub fn check_functions(
        &self,
        which: &[usize],
        opts: &Options,
        done: &(dyn Fn() + Sync),
    ) -> Result<Report, OracleError> {
        let t0 = Instant::now();
        let ctx = Ctx {
            image: &self.image,
            code: &self.code,
            opts,
            section: self.section(),
        };
        let jobs = match opts.jobs {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        }
        .clamp(1, which.len().max(1));
        let next = AtomicUsize::new(0);
        let results: Vec<Result<WorkerResult, OracleError>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..jobs)
                .map(|_| {
                    s.spawn(|| {
                        let mut emulator = Emulator::new(&ctx)?;
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            let Some(&f) = which.get(i) else { break };
                            emulator.check_function(f);
                            done();
                        }
                        Ok(emulator.finish())
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err(OracleError::Emulator("worker panicked".into())))
                })
                .collect()
        });
        let mut acc: Vec<FnAcc> = self
            .code
            .iter()
            .map(|c| FnAcc {
                executed: vec![0; c.insns.len()],
                ..FnAcc::default()
            })
            .collect();
        let (mut emulated, mut runs) = (0, 0);
        for r in results {
            let r = r?;
            emulated += r.emulated;
            runs += r.runs;
            for (a, b) in acc.iter_mut().zip(r.acc) {
                a.merge(b);
            }
        }
        Ok(self.report(acc, emulated, runs, jobs, t0.elapsed().as_secs_f64()))
    }

    fn report(&self, acc: Vec<FnAcc>, emulated: u64, runs: u64, jobs: usize, secs: f64) -> Report {
        let cs = self.image.cpu.capstone().ok();
        let mut snapshots = Vec::new();
        let functions = self
            .image
            .functions
            .iter()
            .zip(&self.code)
            .zip(acc)
            .map(|((f, code), mut a)| {
                if let Some(s) = a.snapshot.take() {
                    snapshots.push(s);
                }
                let executions = |pc: u64| code.at(f.start, pc).map_or(0, |i| a.executed[i]);
                let mismatches = a
                    .mismatches
                    .into_values()
                    // A dead slot that is not dead every time the PC runs depends on the
                    // inputs (a negative `alloca` size lifts the SP over the save area): not
                    // the row's fault.
                    .filter(|m| {
                        !(matches!(m.seen.kind, OracleKind::RaDeadSlot | OracleKind::FpDeadSlot)
                            && m.seen.count < executions(m.pc))
                    })
                    .map(|m| {
                        let bytes = self.image.read_upto(m.pc, 16);
                        let insn = match &cs {
                            Some(cs) => disasm::describe(cs, bytes, m.pc),
                            None => format!("{bytes:02x?}"),
                        };
                        Mismatch {
                            function: f.name.clone(),
                            pc: m.pc,
                            offset: m.pc - f.start,
                            insn,
                            seen: m.seen,
                            under_test: self.image.functions[m.origin.0].name.clone(),
                            run: m.origin.1,
                        }
                    })
                    .collect();
                let real = |i: &(usize, &disasm::Insn)| !i.1.padding;
                FunctionReport {
                    function: f.clone(),
                    instructions: code.insns.iter().enumerate().filter(real).count(),
                    padding: code.insns.iter().filter(|i| i.padding).count(),
                    executed: code
                        .insns
                        .iter()
                        .enumerate()
                        .filter(real)
                        .filter(|(i, _)| a.executed[*i] > 0)
                        .count(),
                    uncovered: code
                        .insns
                        .iter()
                        .enumerate()
                        .filter(real)
                        .filter(|(i, _)| a.executed[*i] == 0)
                        .map(|(_, n)| n.addr - f.start)
                        .take(32)
                        .collect(),
                    rows_checked: a.rows_checked,
                    outermost_rows: a.outermost_rows,
                    skipped: f.skip_reason(),
                    runs: a.runs,
                    dropped: a.dropped,
                    outcomes: a
                        .outcomes
                        .into_iter()
                        .map(|(k, v)| (k.to_string(), v))
                        .collect(),
                    stack_walks: a.stack_walks,
                    max_depth: a.max_depth,
                    ra_past_end: a.ra_past_end,
                    stack_stopped: a.stack_stopped,
                    mismatches,
                }
            })
            .collect();
        let mut report = Report {
            abi: self.image.abi,
            version: self.image.version.number(),
            file_kind: format!("{:?}", self.image.kind).to_lowercase(),
            compiler: self.image.comment.clone(),
            unapplied_relocations: self.image.unapplied_relocations.clone(),
            functions,
            summary: Summary::default(),
            stats: Stats::default(),
            snapshots,
        };
        report.summarize();
        report.stats = Stats {
            elapsed_secs: secs,
            runs,
            emulated_instructions: emulated,
            checked_per_sec: if secs > 0.0 {
                report.summary.rows_checked as f64 / secs
            } else {
                0.0
            },
            jobs,
        };
        report
    }
}
