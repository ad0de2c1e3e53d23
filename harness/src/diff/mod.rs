//! The differential engine: every implementation against the reference, on every input.
//!
//! For each section the engine asks the reference (`sframe-spec`) and each foreign
//! implementation to decode it and to find the row for a set of PCs, validates it against
//! the rule catalogue, and classifies what it sees:
//!
//! | class | when | signature |
//! |---|---|---|
//! | crash | the implementation died (signal, abort, panic) | `crash:<impl>:<ver>:<op>:<signal>[:<site>]` |
//! | hang | it did not answer in time | `hang:<impl>:<ver>:<op>` |
//! | accepted-invalid | it decoded a section that breaks an error-severity rule (the first malformed-class one, else the first one, in section order) | `accepted-invalid:<impl>:<ver>:<class>:<RULE-ID>` |
//! | rejected-valid | it refused a section that breaks no error-severity rule | `rejected-valid:<impl>:<ver>:<op>:<error class>` |
//! | diff | on a valid section, a field it reports differs from the reference's | `diff:<impl>:<ver>:<op>:<field>` |
//!
//! `<ver>` is the section's format version (`v1`, `v2`, `v3`, or `v?` when the preamble
//! names none), with `-pcrel` when a v2/v3 header has `SFRAME_F_FDE_FUNC_START_PCREL` (the
//! start encoding: see [`version_tag`]): most behaviours are version-specific, and a ledger
//! entry can cover all of one version with a trailing `*`. `<op>` is `decode`, `find_fre` or `encode`. A crash's
//! `<site>` is the failed C assertion's function or the panic's source location, when the
//! process says. `<class>` is the rule's class: `malformed` (the bytes cannot be read as the
//! header says: an implementation that reads on reads what is not there) or `invalid`. Look-up
//! fields in a PC-mask function are prefixed `mask.`, at a PC that does not fit 32 bits (v3
//! starts are 64-bit, or one a 32-bit distance would put inside a function it is not in:
//! [`aliased_32`]) `far.` before that (after `wide.` for a function with AArch64 FREs of
//! more than three data words), at a PC inside overlapping functions (see
//! [`overlap_zones`]) `overlap.` before everything. A look-up that finds no row where the reference
//! finds one is field `missing` (`missing.unsorted` when the header lacks
//! `SFRAME_F_FDE_SORTED`), one that finds a row where the reference finds none `extra`. Values are compared only on valid sections: on
//! a section that breaks a rule, what each implementation makes of it is the rule's business
//! (accepted-invalid), not a value disagreement. "Unsupported" answers are counted as such and
//! never as agreement. Each signature is looked up in the findings ledger; new ones make the
//! run fail and can be minimized ([`minimize`]) and recorded ([`record`]).

pub mod cmd;
pub mod compare;
pub mod explain;
pub mod minimize;
pub mod mutate;
pub mod producer;
pub mod record;
pub mod report;
pub mod seeds;

use crate::impls::reference::Reference;
use crate::impls::{section_version, Decoded, Found, Implementation, Outcome};
use crate::ledger::{Kind, Ledger};
use serde::Serialize;
use sframe_spec::rules::Severity;
use sframe_spec::validate;
use std::collections::BTreeSet;
use std::sync::Arc;

/// One input section.
#[derive(Debug, Clone)]
pub struct Case {
    /// Where it comes from (file path, or `generated:<seed>:<n>`).
    pub name: String,
    pub data: Vec<u8>,
}

/// The operation a discrepancy was seen in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    Decode,
    FindFre,
    Encode,
}

impl Op {
    pub fn name(self) -> &'static str {
        match self {
            Op::Decode => "decode",
            Op::FindFre => "find_fre",
            Op::Encode => "encode",
        }
    }
}

/// One observed discrepancy.
#[derive(Debug, Clone, Serialize)]
pub struct Discrepancy {
    pub signature: String,
    pub kind: Kind,
    pub implementation: String,
    pub op: Op,
    /// The field that differs (diff), the rule broken (accepted-invalid), the error class
    /// (rejected-valid) or the signal (crash).
    pub detail: String,
    pub function: Option<usize>,
    pub fre: Option<usize>,
    pub pc: Option<i64>,
    /// What the reference says.
    pub expected: String,
    /// What the implementation says.
    pub found: String,
    /// The findings whose quirks reproduce the implementation's answer here (see
    /// [`explain`]); empty when none does, or for classes that are not value answers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub explained_by: Vec<String>,
}

/// What one implementation did with one section.
#[derive(Debug, Clone, Serialize)]
pub struct ImplResult {
    pub implementation: String,
    /// `agree`, `unsupported` or `discrepant`.
    pub status: &'static str,
    pub discrepancies: Vec<Discrepancy>,
}

/// Everything about one section.
#[derive(Debug, Clone, Serialize)]
pub struct CaseResult {
    pub case: String,
    pub bytes: usize,
    pub version: Option<u8>,
    /// No error-severity rule broken.
    pub valid: bool,
    /// The first error-severity rule broken, if any.
    pub first_error: Option<String>,
    pub pcs: usize,
    pub results: Vec<ImplResult>,
}

impl CaseResult {
    pub fn discrepancies(&self) -> impl Iterator<Item = &Discrepancy> {
        self.results.iter().flat_map(|r| r.discrepancies.iter())
    }
}

/// Settings of a run.
#[derive(Debug, Clone)]
pub struct Settings {
    /// At most this many PCs are looked up per section.
    pub max_pcs: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { max_pcs: 256 }
    }
}

/// The engine: the reference and the implementations under comparison.
pub struct Engine {
    pub impls: Vec<Arc<dyn Implementation>>,
    pub settings: Settings,
    /// The quirks of the ledger's findings, to explain value discrepancies with.
    pub quirks: explain::QuirkTable,
}

/// The reference's verdict on a section, computed once.
pub struct Verdict {
    pub valid: bool,
    /// The header says `SFRAME_F_FDE_SORTED`.
    pub sorted: bool,
    /// `v1`, `v2`, `v3` or `v?`: the version part of signatures.
    pub tag: String,
    /// Starts of the PC-mask functions, per the reference.
    pub mask_starts: BTreeSet<i64>,
    /// PC ranges `[from, to)` inside two or more functions (per the reference), where a
    /// look-up's answer depends on which of them a reader picks: see [`overlap_zones`].
    pub overlap_zones: Vec<(i64, i64)>,
    /// `(start, size)` of every function, per the reference.
    pub function_ranges: Vec<(i64, u32)>,
    /// Starts of the functions with an AArch64 default-type FRE of more than three data
    /// words, per the reference.
    pub wide_starts: BTreeSet<i64>,
    pub first_error: Option<sframe_spec::Rule>,
    pub decoded: Outcome<Decoded>,
}

/// Where overlapping functions make the FDE for a PC a choice the texts do not make: every
/// `[start_j, e)` such that a function starting at or before `start_j` ends at `e >
/// start_j`. A PC there is inside an earlier function and at or after a later start, so
/// "the last FDE starting at or before the PC" (binary search) and "the first FDE
/// containing the PC" (linear search) differ. Functions sharing a start count as
/// overlapping over both their ranges (which one a binary search lands on depends on their
/// order in the FDE array). Computed by a sweep over `(start, size)` pairs in start order:
/// empty for a section whose functions do not overlap.
pub fn overlap_zones(functions: &[(i64, u32)]) -> Vec<(i64, i64)> {
    let mut by_start: Vec<(i64, i64)> = functions
        .iter()
        .map(|&(s, size)| (s, s.saturating_add(i64::from(size))))
        .collect();
    by_start.sort_unstable();
    let mut zones = Vec::new();
    let mut before: Option<(i64, i64)> = None; // (last start, largest end) so far
    for (start, end) in by_start {
        if let Some((last, e)) = before {
            if last == start {
                zones.push((start, e.max(end)));
            } else if start < e {
                zones.push((start, e));
            }
        }
        before = Some((start, before.map_or(end, |(_, e)| e.max(end))));
    }
    zones
}

/// The version part of signatures: `v1`, `v2`, `v3`, or `v?` when the preamble names no
/// version, with what look-ups depend on appended:
/// - `-pcrel` (v2/v3 with `SFRAME_F_FDE_FUNC_START_PCREL`): how function starts are encoded;
/// - `-aux` when the header has an auxiliary header (`sfh_auxhdr_len` is not 0): the
///   sub-section offsets count from its end (v3 §2.2);
/// - `-fdeoff` when the FDE sub-section does not start right after the header (`sfh_fdeoff`
///   is not 0): a PC-relative start is relative to its field, whose offset includes it, and
///   a reader that ignores the field reads FDEs from the wrong place;
/// - `-freoff` when the FRE sub-section does not start right after the FDEs (`sfh_freoff`
///   is not `sfh_fdeoff` plus the FDE sub-section's size): a reader that assumes the
///   packed layout reads FREs from the wrong place.
pub fn version_tag(data: &[u8]) -> String {
    match section_version(data) {
        None => "v?".to_string(),
        Some(v) => {
            let pcrel = v != sframe_spec::Version::V1
                && data
                    .get(3)
                    .is_some_and(|f| f & sframe_spec::constants::flags::FDE_FUNC_START_PCREL != 0);
            // The header's words: sfh_num_fdes at 8, sfh_fdeoff at 20, sfh_freoff at 24, in
            // the byte order of the magic (its first byte is 0xe2 in little-endian sections).
            let word = |at: usize| -> Option<u64> {
                let b: [u8; 4] = data.get(at..at + 4)?.try_into().ok()?;
                let le = data.first() == Some(&0xe2);
                Some(u64::from(if le {
                    u32::from_le_bytes(b)
                } else {
                    u32::from_be_bytes(b)
                }))
            };
            let aux = data.get(7).is_some_and(|&n| n != 0);
            let fdeoff = word(20).is_some_and(|o| o != 0);
            let freoff = match (word(8), word(20), word(24)) {
                (Some(n), Some(fde), Some(fre)) => fre != fde + n * v.fde_entry_size() as u64,
                _ => false,
            };
            format!(
                "{v}{}{}{}{}",
                if pcrel { "-pcrel" } else { "" },
                if aux { "-aux" } else { "" },
                if fdeoff { "-fdeoff" } else { "" },
                if freoff { "-freoff" } else { "" }
            )
        }
    }
}

/// Validate `data` and decode it with the reference.
pub fn verdict(data: &[u8]) -> Verdict {
    let violations = validate(data);
    let errors = || {
        violations
            .iter()
            .filter(|v| v.rule.info().severity == Severity::Error)
    };
    let first_error = errors()
        .find(|v| v.rule.info().class == sframe_spec::rules::Class::Malformed)
        .or_else(|| errors().next())
        .map(|v| v.rule);
    let sorted = data
        .get(3)
        .is_some_and(|f| f & sframe_spec::constants::flags::FDE_SORTED != 0);
    let tag = version_tag(data);
    let decoded = Reference.decode(data);
    let mask_starts = decoded
        .value()
        .map(|d| {
            d.functions
                .iter()
                .filter(|f| f.pc_type == Some(1))
                .filter_map(|f| f.start)
                .collect()
        })
        .unwrap_or_default();
    let function_ranges: Vec<(i64, u32)> = decoded
        .value()
        .map(|d| {
            d.functions
                .iter()
                .filter_map(|f| Some((f.start?, f.size?)))
                .collect()
        })
        .unwrap_or_default();
    let overlap_zones = overlap_zones(&function_ranges);
    // Functions with a default-type AArch64 FRE of more than three data words (the v3 text
    // allows up to 15; what readers make of the rest differs).
    let wide_starts = decoded
        .value()
        .map(|d| {
            violations
                .iter()
                .filter(|v| {
                    v.rule == sframe_spec::Rule::FreCountAarch64 && v.found.is_some_and(|n| n > 3)
                })
                .filter_map(|v| d.functions.get(v.function? as usize)?.start)
                .collect()
        })
        .unwrap_or_default();
    Verdict {
        valid: first_error.is_none(),
        sorted,
        tag,
        mask_starts,
        overlap_zones,
        function_ranges,
        wide_starts,
        first_error,
        decoded,
    }
}

/// `head`, then `: detail` when there is one.
fn with_detail(head: &str, detail: &Option<String>) -> String {
    match detail {
        Some(d) => format!("{head}: {d}"),
        None => head.to_string(),
    }
}

fn disc(kind: Kind, imp: &str, op: Op, detail: &str, signature: String) -> Discrepancy {
    Discrepancy {
        signature,
        kind,
        implementation: imp.to_string(),
        op,
        detail: detail.to_string(),
        function: None,
        fre: None,
        pc: None,
        expected: String::new(),
        found: String::new(),
        explained_by: Vec::new(),
    }
}

/// Where a crash happened, when the process said: the function of a failed C assertion
/// (`sframe.c:277: sframe_fre_start_addr_size: Assertion ...`), the nearest exported
/// libsframe symbol of a fault (`sframe-worker: fault in libsframe.so.3 sframe_decode`, from
/// the worker's crash reporter), or the source location of a Rust panic
/// (`at .../src/v3.rs:258: ...`, from the crate's `src/` on).
pub fn crash_site(signal: &str, detail: Option<&str>) -> Option<String> {
    let d = detail?;
    if d.starts_with("nondeterministic") {
        // A crash that does not repeat on a fresh process depends on the heap's state:
        // memory corruption, whatever the signal.
        return Some("nondeterministic".into());
    }
    if signal == "panic" {
        let at = d.strip_prefix("at ")?.split(": ").next()?;
        let at = at.rfind("/src/").map_or(at, |i| &at[i + 1..]);
        return (!at.is_empty()).then(|| at.to_string());
    }
    if let Some(l) = d
        .lines()
        .find_map(|l| l.strip_prefix("sframe-worker: fault in "))
    {
        // "<library> <nearest exported symbol>" from the worker's crash reporter. A fault in
        // a stripped static function is only an offset in the library, which differs from
        // one faulting instruction to the next: its site is `unsymbolized` (the offset stays
        // in the report's text).
        return l.split_whitespace().nth(1).map(|s| {
            if s.starts_with("+0x") {
                "unsymbolized".to_string()
            } else {
                s.to_string()
            }
        });
    }
    if d.contains("free(): ")
        || d.contains("malloc(): ")
        || d.contains("double free")
        || d.contains("corrupted")
    {
        // glibc's heap checks caught a write past an allocation.
        return Some("heap-corruption".into());
    }
    let line = d.lines().find(|l| l.contains(": Assertion"))?;
    let before = line.split(": Assertion").next()?;
    before
        .rsplit(": ")
        .next()
        .map(|f| f.trim().to_string())
        .filter(|f| !f.is_empty())
}

/// The crash/hang discrepancy of a failed outcome.
pub fn failure<T>(imp: &str, tag: &str, op: Op, o: &Outcome<T>) -> Option<Discrepancy> {
    match o {
        Outcome::Crashed { signal, detail } => {
            let site = crash_site(signal, detail.as_deref())
                .map(|s| format!(":{s}"))
                .unwrap_or_default();
            let mut d = disc(
                Kind::Crash,
                imp,
                op,
                signal,
                format!("crash:{imp}:{tag}:{}:{signal}{site}", op.name()),
            );
            d.found = with_detail(signal, detail);
            Some(d)
        }
        Outcome::Hung { timeout_ms } => {
            let mut d = disc(
                Kind::Hang,
                imp,
                op,
                "timeout",
                format!("hang:{imp}:{tag}:{}", op.name()),
            );
            d.found = format!("no answer in {timeout_ms} ms");
            Some(d)
        }
        _ => None,
    }
}

/// Classify one implementation's decode against the reference's verdict.
pub fn classify_decode(imp: &str, v: &Verdict, o: &Outcome<Decoded>) -> Vec<Discrepancy> {
    classify_decode_explained(imp, v, o, None)
}

/// [`classify_decode`], crediting the findings whose quirks reproduce each answer.
pub fn classify_decode_explained(
    imp: &str,
    v: &Verdict,
    o: &Outcome<Decoded>,
    explanation: Option<&explain::DecodeExplanation<'_>>,
) -> Vec<Discrepancy> {
    let explain =
        |field: Option<&str>| explanation.map(|e| e.explain(o, field)).unwrap_or_default();
    let tag = &v.tag;
    if let Some(d) = failure(imp, tag, Op::Decode, o) {
        return vec![d];
    }
    let mut out = Vec::new();
    match (o, v.valid) {
        (Outcome::Unsupported { .. }, _) => {}
        (Outcome::Ok { .. }, false) => {
            let rule = v.first_error.map(|r| r.id()).unwrap_or("?");
            let class = match v.first_error.map(|r| r.info().class) {
                Some(sframe_spec::rules::Class::Malformed) => "malformed",
                _ => "invalid",
            };
            let mut d = disc(
                Kind::AcceptedInvalid,
                imp,
                Op::Decode,
                rule,
                format!("accepted-invalid:{imp}:{tag}:{class}:{rule}"),
            );
            d.expected = format!("breaks {rule}");
            d.found = "decoded".into();
            out.push(d);
        }
        (Outcome::Rejected { .. }, false) => {}
        (Outcome::Rejected { class, detail }, true) => {
            let mut d = disc(
                Kind::RejectedValid,
                imp,
                Op::Decode,
                class,
                format!("rejected-valid:{imp}:{tag}:decode:{class}"),
            );
            d.expected = "valid".into();
            d.found = with_detail(class, detail);
            d.explained_by = explain(None);
            out.push(d);
        }
        (Outcome::Ok { value }, true) => {
            if let Outcome::Ok { value: reference } = &v.decoded {
                let mut seen = BTreeSet::new();
                for fd in compare::decoded(reference, value) {
                    if seen.insert(fd.field.clone()) {
                        let mut d = disc(
                            Kind::Disagreement,
                            imp,
                            Op::Decode,
                            &fd.field,
                            format!("diff:{imp}:{tag}:decode:{}", fd.field),
                        );
                        d.function = fd.function;
                        d.fre = fd.fre;
                        d.expected = fd.expected;
                        d.found = fd.found;
                        d.explained_by = explain(Some(&fd.field));
                        out.push(d);
                    }
                }
            }
        }
        (Outcome::Crashed { .. } | Outcome::Hung { .. }, _) => {}
    }
    out
}

/// Whether a 32-bit distance from some function's start would put `pc` inside that
/// function although it is not (the PC is 2^32 bytes or more away): `(pc - start) mod 2^32 <
/// size` while `pc - start` is outside `[0, size)`.
pub fn aliased_32(functions: &[(i64, u32)], pc: i64) -> bool {
    functions.iter().any(|&(start, size)| {
        let d = i128::from(pc) - i128::from(start);
        !(0..i128::from(size)).contains(&d) && (d.rem_euclid(1 << 32) as u64) < u64::from(size)
    })
}

/// Classify one implementation's look-ups against the reference's.
pub fn classify_finds(
    imp: &str,
    v: &Verdict,
    pcs: &[i64],
    reference: &[Outcome<Option<Found>>],
    found: &[Outcome<Option<Found>>],
) -> Vec<Discrepancy> {
    classify_finds_explained(imp, v, pcs, reference, found, &[])
}

/// [`classify_finds`], crediting at each PC the findings whose quirks reproduce the answer
/// there (`explained[i]` for `pcs[i]`; an empty slice credits none). An unexplained
/// discrepancy is never hidden behind an explained one with the same signature.
pub fn classify_finds_explained(
    imp: &str,
    v: &Verdict,
    pcs: &[i64],
    reference: &[Outcome<Option<Found>>],
    found: &[Outcome<Option<Found>>],
    explained: &[Vec<String>],
) -> Vec<Discrepancy> {
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    let tag = &v.tag;
    let none = Vec::new();
    for (i, ((pc, r), f)) in pcs.iter().zip(reference).zip(found).enumerate() {
        let by = explained.get(i).unwrap_or(&none);
        if let Some(mut d) = failure(imp, tag, Op::FindFre, f) {
            if seen.insert((d.signature.clone(), None)) {
                d.pc = Some(*pc);
                out.push(d);
            }
            continue;
        }
        if !v.valid {
            continue;
        }
        match (r, f) {
            (Outcome::Ok { value: a }, Outcome::Ok { value: b }) => {
                for fd in compare::found(a, b) {
                    // A row missing in a section without SFRAME_F_FDE_SORTED is its own
                    // signature: some implementations only search sorted sections.
                    let field = if fd.field == "missing" && !v.sorted {
                        "missing.unsorted".to_string()
                    } else {
                        fd.field.clone()
                    };
                    let in_mask = a
                        .as_ref()
                        .and_then(|x| x.function_start)
                        .is_some_and(|s| v.mask_starts.contains(&s));
                    let field = if in_mask {
                        format!("mask.{field}")
                    } else {
                        field
                    };
                    // A row of a function with FREs wider than three data words.
                    let wide = a
                        .as_ref()
                        .and_then(|x| x.function_start)
                        .is_some_and(|s| v.wide_starts.contains(&s));
                    let field = if wide { format!("wide.{field}") } else { field };
                    // A PC beyond 32 bits from the section, or one that a 32-bit distance
                    // would put inside a function it is not in: its own signature, since
                    // 32-bit distance arithmetic only fails there.
                    let field =
                        if i32::try_from(*pc).is_err() || aliased_32(&v.function_ranges, *pc) {
                            format!("far.{field}")
                        } else {
                            field
                        };
                    // A PC inside overlapping functions: which FDE is "the" FDE is open.
                    let overlapped = v.overlap_zones.iter().any(|&(a, b)| a <= *pc && *pc < b);
                    let field = if overlapped {
                        format!("overlap.{field}")
                    } else {
                        field
                    };
                    let sig = format!("diff:{imp}:{tag}:find_fre:{field}");
                    if seen.insert((sig.clone(), by.first().cloned())) {
                        let mut d = disc(Kind::Disagreement, imp, Op::FindFre, &field, sig);
                        d.pc = Some(*pc);
                        d.expected = fd.expected;
                        d.found = fd.found;
                        d.explained_by = by.clone();
                        out.push(d);
                    }
                }
            }
            (Outcome::Ok { value }, Outcome::Rejected { class, detail }) => {
                let sig = format!("rejected-valid:{imp}:{tag}:find_fre:{class}");
                if seen.insert((sig.clone(), by.first().cloned())) {
                    let mut d = disc(Kind::RejectedValid, imp, Op::FindFre, class, sig);
                    d.pc = Some(*pc);
                    d.expected = format!("{value:?}");
                    d.found = with_detail(class, detail);
                    d.explained_by = by.clone();
                    out.push(d);
                }
            }
            _ => {}
        }
    }
    out
}

/// PCs worth looking up in a section: around every function's bounds and every row's start
/// (at most `max`, spread evenly). PCs are section-relative.
pub fn pcs_for(data: &[u8], decoded: Option<&Decoded>, max: usize) -> Vec<i64> {
    let mut set = BTreeSet::new();
    // Start fields are arbitrary 64-bit values in v3: saturate rather than overflow.
    let at = |a: i64, b: i64| a.saturating_add(b);
    match decoded {
        Some(d) => {
            let n = d.functions.len();
            let step = n.div_ceil(64).max(1);
            for f in d.functions.iter().step_by(step) {
                let (Some(start), Some(size)) = (f.start, f.size) else {
                    continue;
                };
                let size = i64::from(size);
                set.extend([at(start, -1), start, at(start, size - 1), at(start, size)]);
                let rows = f.fres.len();
                let rstep = rows.div_ceil(16).max(1);
                for r in f.fres.iter().step_by(rstep) {
                    let Some(s) = r.start.map(i64::from) else {
                        continue;
                    };
                    if f.pc_type == Some(1) {
                        let rep = i64::from(f.rep_size.unwrap_or(0));
                        for k in 0..3 {
                            set.insert(at(start, k * rep + s));
                        }
                    } else {
                        set.extend([at(start, s), at(start, s - 1), at(start, s + 1)]);
                    }
                }
            }
        }
        None => {
            if let Ok(s) = sframe_spec::SectionRef::parse(data) {
                for i in 0..s.num_fdes().min(64) {
                    if let Some((start, size)) = s.fde_range(i) {
                        let size = i64::from(size);
                        set.extend([start, at(start, size / 2), at(start, size - 1)]);
                    }
                }
            }
            set.extend([0, 1, 16]);
        }
    }
    let all: Vec<i64> = set.into_iter().collect();
    if all.len() <= max {
        return all;
    }
    (0..max).map(|i| all[i * all.len() / max]).collect()
}

impl Engine {
    pub fn new(impls: Vec<Arc<dyn Implementation>>) -> Engine {
        Engine {
            impls,
            settings: Settings::default(),
            quirks: explain::QuirkTable::default(),
        }
    }

    /// Explain value discrepancies with the quirks of `ledger`'s findings.
    pub fn with_ledger(mut self, ledger: &Ledger) -> Engine {
        self.quirks = explain::QuirkTable::from_ledger(ledger);
        self
    }

    /// Run every implementation on one section.
    pub fn run_case(&self, case: &Case) -> CaseResult {
        let ctx = CaseContext::new(case, self.settings.max_pcs);
        let results = self
            .impls
            .iter()
            .filter(|i| i.name() != "reference")
            .map(|imp| ctx.run(imp.as_ref(), case, &self.quirks))
            .collect();
        ctx.result(case, results)
    }

    /// Run every implementation on one section, looking up exactly `pcs` (section-relative)
    /// instead of the PCs [`pcs_for`] would choose.
    pub fn run_case_at(&self, case: &Case, pcs: &[i64]) -> CaseResult {
        let ctx = CaseContext::with_pcs(case, pcs.to_vec());
        let results = self
            .impls
            .iter()
            .filter(|i| i.name() != "reference")
            .map(|imp| ctx.run(imp.as_ref(), case, &self.quirks))
            .collect();
        ctx.result(case, results)
    }

    /// Run one implementation (borrowed: it need not be `'static`) on one section.
    pub fn run_case_with(imp: &dyn Implementation, case: &Case, max_pcs: usize) -> CaseResult {
        Self::run_case_explained(imp, case, max_pcs, &explain::QuirkTable::default())
    }

    /// [`Engine::run_case_with`], explaining value discrepancies with `quirks`.
    pub fn run_case_explained(
        imp: &dyn Implementation,
        case: &Case,
        max_pcs: usize,
        quirks: &explain::QuirkTable,
    ) -> CaseResult {
        let ctx = CaseContext::new(case, max_pcs);
        let r = ctx.run(imp, case, quirks);
        ctx.result(case, vec![r])
    }

    /// The signatures one implementation shows on `data` (for minimization).
    pub fn signatures_of(
        imp: &dyn Implementation,
        data: &[u8],
        max_pcs: usize,
        with_finds: bool,
    ) -> BTreeSet<String> {
        Self::unexplained_signatures_of(
            imp,
            data,
            max_pcs,
            with_finds,
            &explain::QuirkTable::default(),
        )
    }

    /// The signatures of the discrepancies `quirks` does not explain (for minimizing a new
    /// one: the input must keep showing it unexplained).
    pub fn unexplained_signatures_of(
        imp: &dyn Implementation,
        data: &[u8],
        max_pcs: usize,
        with_finds: bool,
        quirks: &explain::QuirkTable,
    ) -> BTreeSet<String> {
        let v = verdict(data);
        let pcs = if with_finds {
            pcs_for(data, v.decoded.value(), max_pcs)
        } else {
            Vec::new()
        };
        let ctx = CaseContext::from_verdict(data, v, pcs);
        ctx.discrepancies(imp, data, quirks)
            .into_iter()
            .filter(|d| d.explained_by.is_empty())
            .map(|d| d.signature)
            .collect()
    }
}

/// What the reference says about a section, shared by every implementation's comparison.
struct CaseContext {
    verdict: Verdict,
    pcs: Vec<i64>,
    reference_finds: Vec<Outcome<Option<Found>>>,
    version: Option<sframe_spec::Version>,
}

impl CaseContext {
    fn new(case: &Case, max_pcs: usize) -> CaseContext {
        let verdict = verdict(&case.data);
        let pcs = pcs_for(&case.data, verdict.decoded.value(), max_pcs);
        Self::from_parts(case, verdict, pcs)
    }

    fn with_pcs(case: &Case, pcs: Vec<i64>) -> CaseContext {
        Self::from_parts(case, verdict(&case.data), pcs)
    }

    fn from_parts(case: &Case, verdict: Verdict, pcs: Vec<i64>) -> CaseContext {
        Self::from_verdict(&case.data, verdict, pcs)
    }

    fn from_verdict(data: &[u8], verdict: Verdict, pcs: Vec<i64>) -> CaseContext {
        let reference_finds = Reference.find_fres(data, &pcs);
        CaseContext {
            verdict,
            pcs,
            reference_finds,
            version: section_version(data),
        }
    }

    /// Decode and look up with `imp`, classify, and credit the findings whose quirks
    /// reproduce its answers. Also whether decode and look-up were unsupported.
    fn classify(
        &self,
        imp: &dyn Implementation,
        data: &[u8],
        quirks: &explain::QuirkTable,
    ) -> (Vec<Discrepancy>, bool, bool) {
        let name = imp.name();
        let causes = quirks.causes(&name);
        let decoded = imp.decode(data);
        let mut ds = classify_decode(&name, &self.verdict, &decoded);
        if ds.iter().any(value_discrepancy) {
            let explanation = explain::decode(causes, data);
            ds = classify_decode_explained(&name, &self.verdict, &decoded, explanation.as_ref());
        }
        let unsupported = matches!(decoded, Outcome::Unsupported { .. });
        let finds = imp.find_fres(data, &self.pcs);
        let find_supported = finds
            .iter()
            .any(|f| !matches!(f, Outcome::Unsupported { .. }));
        let mut fs = classify_finds(
            &name,
            &self.verdict,
            &self.pcs,
            &self.reference_finds,
            &finds,
        );
        if !causes.is_empty() && fs.iter().any(value_discrepancy) {
            let by = explain::finds(causes, data, &self.pcs, &finds);
            fs = classify_finds_explained(
                &name,
                &self.verdict,
                &self.pcs,
                &self.reference_finds,
                &finds,
                &by,
            );
        }
        ds.extend(fs);
        (ds, unsupported, find_supported)
    }

    fn discrepancies(
        &self,
        imp: &dyn Implementation,
        data: &[u8],
        quirks: &explain::QuirkTable,
    ) -> Vec<Discrepancy> {
        if let Some(ver) = self.version {
            if !imp.supports(ver) {
                return Vec::new();
            }
        }
        self.classify(imp, data, quirks).0
    }

    fn run(
        &self,
        imp: &dyn Implementation,
        case: &Case,
        quirks: &explain::QuirkTable,
    ) -> ImplResult {
        let name = imp.name();
        if let Some(ver) = self.version {
            if !imp.supports(ver) {
                return ImplResult {
                    implementation: name,
                    status: "unsupported",
                    discrepancies: Vec::new(),
                };
            }
        }
        let (ds, unsupported, find_supported) = self.classify(imp, &case.data, quirks);
        let status = if !ds.is_empty() {
            "discrepant"
        } else if unsupported && !find_supported {
            "unsupported"
        } else {
            "agree"
        };
        ImplResult {
            implementation: name,
            status,
            discrepancies: ds,
        }
    }

    fn result(&self, case: &Case, results: Vec<ImplResult>) -> CaseResult {
        CaseResult {
            case: case.name.clone(),
            bytes: case.data.len(),
            version: self.version.map(|v| v.number()),
            valid: self.verdict.valid,
            first_error: self.verdict.first_error.map(|r| r.id().to_string()),
            pcs: self.pcs.len(),
            results,
        }
    }
}

/// Whether a discrepancy is a value answer (a disagreement or a refusal of a valid section),
/// which only quirks explain.
fn value_discrepancy(d: &Discrepancy) -> bool {
    matches!(d.kind, Kind::Disagreement | Kind::RejectedValid)
}

/// The ID of the finding that explains a discrepancy, `untriaged` for one on the untriaged
/// list, `None` when it is new ([`Ledger::accounted`]).
pub fn known(ledger: &Ledger, d: &Discrepancy) -> Option<String> {
    ledger.accounted(d)
}

#[cfg(test)]
mod tests {
    use super::version_tag;

    /// A header as the spec's "SFrame Header" lays it out (28 bytes): preamble (magic 0xdee2,
    /// version, flags), ABI, fixed FP and RA offsets, aux length, then sfh_num_fdes,
    /// sfh_num_fres, sfh_fre_len, sfh_fdeoff, sfh_freoff as 32-bit words.
    fn header(
        big: bool,
        version: u8,
        flags: u8,
        num_fdes: u32,
        fdeoff: u32,
        freoff: u32,
    ) -> Vec<u8> {
        let w = |x: u32| {
            if big {
                x.to_be_bytes()
            } else {
                x.to_le_bytes()
            }
        };
        let mut h = if big {
            vec![0xde, 0xe2]
        } else {
            vec![0xe2, 0xde]
        };
        h.extend([version, flags, if big { 4 } else { 3 }, 0, 0xf8, 0]);
        for x in [num_fdes, 0, 0, fdeoff, freoff] {
            h.extend(w(x));
        }
        h
    }

    #[test]
    fn the_tag_names_version_start_encoding_and_sub_section_placement() {
        // FDE entry sizes from the texts: 17 bytes in v1 (sframe.h v1's packed
        // sframe_func_desc_entry), 20 in v2 ("SFrame FDE": 4+4+4+4+1+1+2), 16 in v3
        // (sframe_func_desc_idx: 8+4+4).
        for big in [false, true] {
            assert_eq!(version_tag(&header(big, 1, 0, 3, 0, 51)), "v1");
            assert_eq!(version_tag(&header(big, 2, 4, 3, 0, 60)), "v2-pcrel");
            assert_eq!(version_tag(&header(big, 2, 0, 3, 8, 68)), "v2-fdeoff");
            assert_eq!(version_tag(&header(big, 2, 4, 3, 0, 64)), "v2-pcrel-freoff");
            assert_eq!(version_tag(&header(big, 1, 4, 3, 4, 0)), "v1-fdeoff-freoff");
            assert_eq!(version_tag(&header(big, 7, 0, 0, 0, 0)), "v?");
            let mut aux = header(big, 3, 4, 3, 0, 48);
            aux[7] = 2; // sfh_auxhdr_len
            assert_eq!(version_tag(&aux), "v3-pcrel-aux");
        }
    }

    #[test]
    fn overlap_zones_are_where_binary_and_linear_search_can_disagree() {
        use super::overlap_zones;
        assert!(
            overlap_zones(&[(0, 16), (16, 16), (40, 1)]).is_empty(),
            "adjacent is not overlapping"
        );
        // 0..100 contains 10..20 and 50..150: PCs 10..100 have a later start at or before them
        // while still inside 0..100 (10..20 twice, and 20..50 after 10..20 ended but 0..100
        // goes on), then 100..150 belong to 50..150 alone.
        assert_eq!(
            overlap_zones(&[(50, 100), (0, 100), (10, 10)]),
            vec![(10, 100), (50, 100)]
        );
        assert_eq!(overlap_zones(&[(5, 0), (5, 8)]), vec![(5, 13)]);
        assert_eq!(overlap_zones(&[(5, 8), (5, 0)]), vec![(5, 13)]);
    }

    #[test]
    fn a_fault_names_the_exported_symbol_or_says_unsymbolized() {
        use super::crash_site;
        // The worker's crash reporter: "sframe-worker: fault in <library> <symbol or +0x..>".
        let at = |s: &str| {
            crash_site(
                "SIGSEGV",
                Some(&format!("sframe-worker: fault in libsframe.so.1 {s}")),
            )
        };
        assert_eq!(at("sframe_decode").as_deref(), Some("sframe_decode"));
        assert_eq!(at("+0x2a33").as_deref(), Some("unsymbolized"));
        assert_eq!(
            at("+0x2b0f"),
            at("+0x2a33"),
            "one site whatever the instruction"
        );
    }

    #[test]
    fn a_pc_aliases_a_function_only_at_a_distance_of_2_to_the_32() {
        use super::aliased_32;
        let f = [(0x1000_i64, 64_u32)];
        assert!(!aliased_32(&f, 0x1000), "inside is not aliased");
        assert!(!aliased_32(&f, 0x1040), "just past the end");
        assert!(aliased_32(&f, 0x1000 + (1 << 32) + 63));
        assert!(!aliased_32(&f, 0x1000 + (1 << 32) + 64));
        assert!(aliased_32(&f, 0x1000 - (1 << 32)));
        // The case fuzzing found: a function at 0xff000000ffffe000 and a PC at -8149.
        assert!(aliased_32(&[(0xff00_0000_ffff_e000_u64 as i64, 64)], -8149));
        assert!(
            !aliased_32(&[(i64::MIN, u32::MAX)], i64::MAX),
            "no overflow at the extremes"
        );
    }
}
