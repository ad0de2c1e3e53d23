//! Report: per-function coverage, rows checked and mismatches, a summary, throughput, and
//! the stable signatures the findings ledger matches.
//!
//! # Signatures
//!
//! `oracle:<producer>:<abi>:<function>:<kind>`, where `producer` names what wrote the
//! section (the caller's choice: a corpus manifest's producer, else the file's stem),
//! `abi` is the SFrame ABI name (`amd64`, `aarch64`, `aarch64-be`, `s390x`), `function` the
//! function's symbol (or `fde<N>@<addr>`, PLTs by section name), and `kind` one of
//! `cfa`, `ra`, `fp`, `ra-dead-slot`, `fp-dead-slot`, `no-row`, `step-error` for the executing
//! frame, or the same with a `stack-` prefix for a caller frame of a whole-stack walk. PCs are
//! deliberately not part of it: a finding covers a function's rows whatever the build's
//! addresses.

use crate::checker::{OracleKind, RowUsed, Values};
use crate::emu::DropReason;
use crate::image::{Function, FunctionKind, SkipReason};
use crate::snapshot::StackSnapshot;
use serde::Serialize;
use sframe_findings::signature::{OracleMismatch, Producer, Signature};
use sframe_spec::Abi;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// What was seen wrong at one PC and frame level: the kind, the row used, the values.
#[derive(Debug, Clone, Serialize)]
pub struct Sighting {
    /// 0: the executing frame; k: the k-th caller of a whole-stack walk.
    pub frame: usize,
    pub kind: OracleKind,
    /// The FDE and FRE used and their recovery rules (when a row was found).
    pub row: Option<RowUsed>,
    pub expected: Values,
    pub got: Option<Values>,
    /// Why the row could not be applied.
    pub error: Option<String>,
    /// How many times it was seen.
    pub count: u64,
}

/// One wrong row, as first seen.
#[derive(Debug, Clone, Serialize)]
pub struct Mismatch {
    /// The function whose row is wrong.
    pub function: String,
    pub pc: u64,
    /// `pc` minus the function's start.
    pub offset: u64,
    /// The instruction at `pc` (disassembled, or its bytes).
    pub insn: String,
    #[serde(flatten)]
    pub seen: Sighting,
    /// Function under test and run of the first sighting (to reproduce it).
    pub under_test: String,
    pub run: u32,
}

impl Mismatch {
    /// The `kind` part of the signature: `stack-` before it when a caller's frame is wrong.
    pub fn kind(&self) -> OracleMismatch {
        OracleMismatch {
            stack: self.seen.frame != 0,
            kind: self.seen.kind,
        }
    }

    /// The ledger signature (see the module documentation), naming the function by
    /// `function` (its symbol, or a shape standing for it).
    pub fn signature_as(&self, producer: &Producer, abi: Abi, function: &str) -> Signature {
        Signature::oracle(producer, abi.into(), function, self.kind())
    }

    /// The ledger signature (see the module documentation).
    pub fn signature(&self, producer: &Producer, abi: Abi) -> Signature {
        self.signature_as(producer, abi, &self.function)
    }
}

/// One function's results.
#[derive(Debug, Clone, Serialize)]
pub struct FunctionReport {
    /// The function: name, range, FDE, kind, whether it lies outside the code.
    #[serde(flatten)]
    pub function: Function,
    /// Instruction starts, padding excluded.
    pub instructions: usize,
    /// Unreachable alignment padding.
    pub padding: usize,
    /// Executed instruction starts (padding excluded).
    pub executed: usize,
    /// Offsets of the first (at most 32) instructions never executed.
    pub uncovered: Vec<u64>,
    /// PCs checked against their row (every execution counts).
    pub rows_checked: u64,
    /// Executions at rows that declare the outermost frame.
    pub outermost_rows: u64,
    /// Why no run started here (its rows are still checked where other runs reach it).
    pub skipped: Option<SkipReason>,
    /// Runs with this function under test, and how they ended.
    pub runs: u32,
    pub outcomes: BTreeMap<String, u32>,
    /// Its runs that left the program's control flow, by reason (also in `outcomes`):
    /// nothing after that point was judged.
    pub dropped: BTreeMap<DropReason, u32>,
    /// Whole-stack walks done in its runs, and the deepest stack seen.
    pub stack_walks: u64,
    pub max_depth: usize,
    /// Caller frames of this function whose return address lay past its end (after a call
    /// to a `noreturn` function) and were looked up at `pc - 1`.
    pub ra_past_end: u64,
    /// Caller frames of this function where a walk stopped by design: a rule needing a
    /// register other than SP and FP below the topmost frame.
    pub stack_stopped: u64,
    pub mismatches: Vec<Mismatch>,
}

impl FunctionReport {
    pub fn coverage(&self) -> f64 {
        if self.instructions == 0 {
            1.0
        } else {
            self.executed as f64 / self.instructions as f64
        }
    }
}

/// Totals over the functions with an FDE (the ones that have rows to check).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    pub functions: usize,
    pub functions_with_fde: usize,
    /// Functions (symbols) no FDE covers: nothing to check, listed for the producer.
    pub functions_without_fde: Vec<String>,
    pub instructions: usize,
    pub executed: usize,
    /// `executed / instructions`, in percent.
    pub coverage_percent: f64,
    pub rows_checked: u64,
    pub outermost_rows: u64,
    pub stack_walks: u64,
    /// Distinct mismatches (PC, frame level, kind).
    pub mismatches: usize,
    pub functions_with_mismatches: usize,
    /// Functions no run started at, by reason (over every function with an FDE).
    pub skipped: BTreeMap<SkipReason, usize>,
    /// Runs dropped, by reason.
    pub dropped: BTreeMap<DropReason, u64>,
}

/// Throughput.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Stats {
    pub elapsed_secs: f64,
    pub runs: u64,
    pub emulated_instructions: u64,
    /// Rows checked per second of wall time.
    pub checked_per_sec: f64,
    pub jobs: usize,
}

/// The oracle's verdict on one file.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub abi: Abi,
    pub version: u8,
    pub file_kind: String,
    /// The compiler identification of `.comment`, if any.
    pub compiler: Option<String>,
    /// Relocation types left unapplied (TLS and the like), with counts.
    pub unapplied_relocations: BTreeMap<u32, usize>,
    pub functions: Vec<FunctionReport>,
    pub summary: Summary,
    pub stats: Stats,
    /// The deepest stack of each function under test's runs (when asked for).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub snapshots: Vec<StackSnapshot>,
}

impl Report {
    /// Every mismatch of every function.
    pub fn mismatches(&self) -> impl Iterator<Item = &Mismatch> {
        self.functions.iter().flat_map(|f| f.mismatches.iter())
    }

    /// The function named `name`.
    pub fn function(&self, name: &str) -> Option<&FunctionReport> {
        self.functions.iter().find(|f| f.function.name == name)
    }

    pub(crate) fn summarize(&mut self) {
        let mut s = Summary {
            functions: self.functions.len(),
            ..Summary::default()
        };
        for f in &self.functions {
            if f.function.fde.is_none() {
                s.functions_without_fde.push(f.function.name.clone());
                continue;
            }
            s.functions_with_fde += 1;
            if let Some(why) = f.skipped {
                *s.skipped.entry(why).or_default() += 1;
            }
            for (why, n) in &f.dropped {
                *s.dropped.entry(*why).or_default() += u64::from(*n);
            }
            if f.function.outside_code || f.function.kind == FunctionKind::SignalTrampoline {
                continue;
            }
            s.instructions += f.instructions;
            s.executed += f.executed;
            s.rows_checked += f.rows_checked;
            s.outermost_rows += f.outermost_rows;
            s.stack_walks += f.stack_walks;
            s.mismatches += f.mismatches.len();
            s.functions_with_mismatches += usize::from(!f.mismatches.is_empty());
        }
        s.coverage_percent = if s.instructions == 0 {
            100.0
        } else {
            100.0 * s.executed as f64 / s.instructions as f64
        };
        self.summary = s;
    }

    /// A readable report: one line per function, the mismatches, the summary and, with
    /// `stats`, the throughput.
    pub fn render_text(&self, stats: bool) -> String {
        let mut o = String::new();
        let _ = writeln!(
            o,
            "{:<40} {:>6} {:>6} {:>7} {:>9} {:>5}  runs ended",
            "function", "insns", "exec", "cover", "rows", "bad"
        );
        for f in &self.functions {
            let fde = if f.function.fde.is_none() {
                " (no FDE)".to_string()
            } else {
                f.skipped
                    .map_or(String::new(), |why| format!(" (skip: {why})"))
            };
            let fde = fde.as_str();
            let outcomes: Vec<String> =
                f.outcomes.iter().map(|(k, v)| format!("{k}:{v}")).collect();
            let _ = writeln!(
                o,
                "{:<40} {:>6} {:>6} {:>6.1}% {:>9} {:>5}  {}",
                format!("{}{fde}", truncate(&f.function.name, 40 - fde.len())),
                f.instructions,
                f.executed,
                100.0 * f.coverage(),
                f.rows_checked,
                f.mismatches.len(),
                outcomes.join(" ")
            );
        }
        for m in self.mismatches() {
            let _ = writeln!(
                o,
                "\nmismatch: {} at {:#x} ({}+{:#x}) `{}`",
                m.kind(),
                m.pc,
                m.function,
                m.offset,
                m.insn
            );
            if let Some(r) = &m.seen.row {
                let _ = writeln!(
                    o,
                    "  row: FDE {} FRE {}: {}",
                    r.fde,
                    r.fre,
                    describe_rules(&r.rules)
                );
            }
            let _ = writeln!(
                o,
                "  expected: cfa={:#x} ra={:#x} fp={:#x}",
                m.seen.expected.cfa, m.seen.expected.ra, m.seen.expected.fp
            );
            match (&m.seen.got, &m.seen.error) {
                (Some(g), _) => {
                    let _ = writeln!(
                        o,
                        "  got:      cfa={:#x} ra={:#x} fp={:#x}",
                        g.cfa, g.ra, g.fp
                    );
                }
                (None, Some(e)) => {
                    let _ = writeln!(o, "  error:    {e}");
                }
                _ => {}
            }
            let _ = writeln!(
                o,
                "  seen {} times (first: {} run {}, frame {})",
                m.seen.count, m.under_test, m.run, m.seen.frame
            );
        }
        let s = &self.summary;
        let _ = writeln!(
            o,
            "\nsummary: {} functions ({} with FDE, {} without), {}/{} instructions executed ({:.1}%), {} rows checked, {} outermost, {} stack walks, {} mismatches in {} functions",
            s.functions,
            s.functions_with_fde,
            s.functions_without_fde.len(),
            s.executed,
            s.instructions,
            s.coverage_percent,
            s.rows_checked,
            s.outermost_rows,
            s.stack_walks,
            s.mismatches,
            s.functions_with_mismatches
        );
        let by_reason = |m: Vec<String>| {
            if m.is_empty() {
                "none".to_string()
            } else {
                m.join(", ")
            }
        };
        let _ = writeln!(
            o,
            "skipped functions (no run starts there): {}",
            by_reason(s.skipped.iter().map(|(k, v)| format!("{k} {v}")).collect())
        );
        let _ = writeln!(
            o,
            "dropped runs (left the program's control flow): {}",
            by_reason(s.dropped.iter().map(|(k, v)| format!("{k} {v}")).collect())
        );
        if stats {
            let t = &self.stats;
            let _ = writeln!(
                o,
                "stats: {:.2}s, {} runs, {} instructions emulated, {:.0} checked instructions/s ({} jobs)",
                t.elapsed_secs, t.runs, t.emulated_instructions, t.checked_per_sec, t.jobs
            );
        }
        o
    }
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
        t.push('~');
        t
    }
}

/// `cfa=r7+16 ra=*(cfa-8) fp=*(cfa-16)` (the [`Display`](std::fmt::Display) of the rules).
pub fn describe_rules(r: &sframe_spec::Recovery) -> String {
    r.to_string()
}
