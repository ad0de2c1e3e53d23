//! Whether a reader's crash triggers (`sframe_spec::triggers`) hold exactly when its ASan
//! build reports that bug's first bad access: each input is decoded, then looked up at the
//! PCs the differential engine uses, by the sanitizer build hosted in the worker
//! ([`crate::asan_triage`]), and each answer is set beside the model's verdict for the same
//! operation (and PC).
//!
//! A report is read as a trigger by its class and where it lies: for glibc's reader, a bad
//! read (heap overflow, unknown crash, `SEGV`/`SIGBUS` caused by a read) whose first frame in
//! the library's source is in `sysdeps/generic/sframe-read.c` is
//! [`Trigger::GlibcReadsOutsideSection`] (inside the section every byte is the worker's
//! copy, so any bad read of the reader's is outside it); an `FPE` is
//! [`Trigger::GlibcMaskRepSizeZero`]. An answer without a report is clean; a report read
//! otherwise is kept as its class and first frame ([`Verdict::Report`]) and can only disagree.
//!
//! A section whose `decode` already reported is not looked up (every look-up builds the same
//! decoder first, and a crashing PC costs two sanitizer children).

use crate::asan_triage::{hex, lookup_pcs, AsanWorker};
use crate::instrumented::InstrumentedBuild;
use serde::de::IgnoredAny;
use sframe_harness::impls::{Outcome, UnsupportedReason};
use sframe_harness::sanitizer::{self, Access, ErrorClass, Parsed};
use sframe_harness::signature::Signal;
use sframe_spec::triggers::{glibc, Evaluation};
use sframe_spec::Trigger;
use std::collections::BTreeMap;
use std::path::Path;

/// What one side says of one operation.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    Clean,
    Trigger(Trigger),
    /// A sanitizer report that names no modelled bug: its class and the first frame in the
    /// library's source.
    Report {
        error: ErrorClass,
        function: String,
        line: u32,
    },
    /// A crash without a sanitizer report.
    NoReport(Signal),
}

/// As the agreement table writes it: `clean`, the trigger's name,
/// `asan:CLASS:FUNCTION:LINE`, `crashed:SIGNAL:no-sanitizer-report`.
impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Verdict::Clean => f.write_str("clean"),
            Verdict::Trigger(t) => f.write_str(t.name()),
            Verdict::Report {
                error,
                function,
                line,
            } => write!(f, "asan:{error:?}:{function}:{line}"),
            Verdict::NoReport(signal) => write!(f, "crashed:{signal}:no-sanitizer-report"),
        }
    }
}

/// One operation of one input on which the two sides differ.
#[derive(Debug, Clone)]
pub struct Disagreement {
    pub input: String,
    /// `decode` or `find_fre@PC`.
    pub operation: String,
    pub model: Verdict,
    pub asan: Verdict,
    /// The sanitizer's report, trimmed.
    pub report: Option<String>,
}

/// The agreement table: per (model, ASan) verdict pair, how many operations.
#[derive(Debug, Clone, Default)]
pub struct Agreement {
    pub inputs: usize,
    pub table: BTreeMap<(Verdict, Verdict), usize>,
    pub disagreements: Vec<Disagreement>,
    /// Inputs not looked up because their decode reported.
    pub lookups_skipped: usize,
    /// Look-ups not compared: answered "unsupported" (a PC beyond `int32_t`, or not asked
    /// again after [`REASK`] PCs of a section that crashed three times).
    pub unasked: BTreeMap<UnsupportedReason, usize>,
}

impl Agreement {
    fn add(
        &mut self,
        input: &str,
        operation: String,
        model: Verdict,
        asan: Verdict,
        report: Option<String>,
    ) {
        if model != asan {
            self.disagreements.push(Disagreement {
                input: input.to_string(),
                operation,
                model: model.clone(),
                asan: asan.clone(),
                report,
            });
        }
        *self.table.entry((model, asan)).or_default() += 1;
    }

    /// The operations compared, and those on which the sides agree.
    pub fn counts(&self) -> (usize, usize) {
        let all = self.table.values().sum();
        let agree = self
            .table
            .iter()
            .filter(|((m, a), _)| m == a)
            .map(|(_, n)| n)
            .sum();
        (all, agree)
    }

    /// The table as Markdown rows: model verdict, ASan verdict, operations.
    pub fn markdown(&self) -> String {
        let (all, agree) = self.counts();
        let mut s = format!(
            "{} inputs, {all} operations compared (decode, and look-ups at the engine's PCs; {} inputs not looked up after their decode reported, {} look-ups not run): {agree} agree, {} disagree\n\n| model | ASan | operations |\n|---|---|---|\n",
            self.inputs,
            self.lookups_skipped,
            self.unasked.values().sum::<usize>(),
            all - agree
        );
        for ((m, a), n) in &self.table {
            s.push_str(&format!("| {m} | {a} | {n} |\n"));
        }
        for (why, n) in &self.unasked {
            s.push_str(&format!("\nnot run: {n} look-ups: {why}"));
        }
        s
    }
}

/// A glibc reader's report as a trigger.
pub fn glibc_verdict(p: &Parsed) -> Verdict {
    let bad_read = matches!(
        p.error,
        ErrorClass::HeapBufferOverflow
            | ErrorClass::UnknownCrash
            | ErrorClass::Segv
            | ErrorClass::Bus
    ) && p.access == Some(Access::Read);
    match p.error {
        ErrorClass::Fpe => Verdict::Trigger(Trigger::GlibcMaskRepSizeZero),
        _ if bad_read && p.file == "sysdeps/generic/sframe-read.c" => {
            Verdict::Trigger(Trigger::GlibcReadsOutsideSection)
        }
        error => Verdict::Report {
            error,
            function: p.function.clone(),
            line: p.line,
        },
    }
}

/// One answer of the worker (`decode`'s, or one PC's) as a verdict, with its report.
fn answered<T>(o: &Outcome<T>, read: fn(&Parsed) -> Verdict) -> (Verdict, Option<String>) {
    let Outcome::Crashed { signal, detail, .. } = o else {
        return (Verdict::Clean, None);
    };
    let detail = detail.as_deref().unwrap_or("");
    match sanitizer::parse(detail) {
        Some(p) => (read(&p), Some(sanitizer::trim(detail))),
        None => (Verdict::NoReport(signal.clone()), Some(detail.to_string())),
    }
}

fn model(e: Evaluation) -> Verdict {
    match e {
        Evaluation::Triggered(t) => Verdict::Trigger(t),
        Evaluation::Clean => Verdict::Clean,
    }
}

/// Compare glibc's model with `build` (an ASan build of glibc's reader) on every input.
pub fn glibc(
    worker: &Path,
    build: &InstrumentedBuild,
    inputs: &[(String, Vec<u8>)],
) -> std::io::Result<Agreement> {
    let mut w = AsanWorker::start(worker, build)?;
    let mut out = Agreement::default();
    for (name, data) in inputs {
        out.inputs += 1;
        let a: Outcome<IgnoredAny> =
            w.answer(&serde_json::json!({"op": "decode", "data": hex(data)}))?;
        let (asan, report) = answered(&a, glibc_verdict);
        let decode_reported = asan != Verdict::Clean;
        let m = model(glibc::first_trigger(data, glibc::Call::Decode));
        out.add(name, "decode".into(), m, asan, report);
        if decode_reported {
            out.lookups_skipped += 1;
            continue;
        }
        let pcs = lookup_pcs(data);
        let a: Outcome<Vec<Answer>> =
            w.answer(&serde_json::json!({"op": "find_fre", "data": hex(data), "pcs": pcs}))?;
        let per_pc: Vec<Answer> = match a {
            Outcome::Ok { value } if value.len() == pcs.len() => value,
            // The request as a whole failed: every PC has its answer.
            a => vec![a.map(|_| IgnoredAny); pcs.len()],
        };
        let mut reasked = 0;
        for (pc, v) in pcs.iter().zip(per_pc) {
            let v = if not_asked(&v) && reasked < REASK {
                // The worker stops asking after three crashes on a section: ask alone.
                reasked += 1;
                let a: Outcome<Vec<Answer>> = w.answer(
                    &serde_json::json!({"op": "find_fre", "data": hex(data), "pcs": [pc]}),
                )?;
                match a {
                    Outcome::Ok { mut value } if !value.is_empty() => value.swap_remove(0),
                    a => a.map(|_| IgnoredAny),
                }
            } else {
                v
            };
            if let Outcome::Unsupported { reason } = v {
                // Not asked, or a PC beyond glibc's `int32_t`: nothing ran to compare.
                *out.unasked.entry(reason).or_default() += 1;
                continue;
            }
            let (asan, report) = answered(&v, glibc_verdict);
            let m = model(glibc::first_trigger(data, glibc::Call::Lookup(*pc)));
            out.add(name, format!("find_fre@{pc}"), m, asan, report);
        }
    }
    Ok(out)
}

/// One PC's answer, its row not read: only whether and how it failed counts here.
type Answer = Outcome<IgnoredAny>;

/// At most this many PCs of a section are asked again alone after the worker stopped
/// asking (each crash costs two sanitizer children).
const REASK: usize = 8;

/// `finds_one_at_a_time`'s answer for a PC after three crashes on the section.
fn not_asked(v: &Answer) -> bool {
    matches!(
        v,
        Outcome::Unsupported {
            reason: UnsupportedReason::NotAsked
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use sframe_harness::impls::protocol::finds_one_at_a_time;

    /// The per-PC answers of a look-up on which the worker crashed three times, as the
    /// worker writes them (`finds_one_at_a_time`, then JSON), read back here: the crashes
    /// are crashes with their signal, the PC after them is "not asked" (asked alone again),
    /// and an unsupported answer in other words is not.
    #[test]
    fn the_worker_s_not_asked_answer_is_read_as_such() {
        let crashed = || Outcome::crashed(Signal::named("SIGSEGV"), Some("no report".into()));
        let answers = finds_one_at_a_time(&[1, 2, 3, 4], |_| crashed());
        let line = serde_json::to_string(&Outcome::ok(answers)).expect("JSON");
        let read: Outcome<Vec<Answer>> = serde_json::from_str(&line).expect("an answer");
        let Outcome::Ok { value } = read else {
            panic!("not ok: {line}")
        };
        let asked: Vec<bool> = value.iter().map(|v| !not_asked(v)).collect();
        assert_eq!(asked, [true, true, true, false]);
        assert_eq!(
            answered(&value[0], glibc_verdict).0,
            Verdict::NoReport(Signal::named("SIGSEGV"))
        );
        let other: Answer = serde_json::from_str(
            r#"{"status":"unsupported","reason":"the PC does not fit __sframe_find_fre's int32_t"}"#,
        )
        .expect("an answer");
        assert!(!not_asked(&other));
    }
}
