//! `sframe-conform bench`: FRE look-ups per second of every implementation on the same
//! sections, and the reference's decode+validate throughput (zero-copy, and into the owned
//! model).
//!
//! Sections: a synthetic one per format version with `--functions` functions (64 bytes and
//! 3 rows each, AMD64, sorted), built as a model and written by `sframe_spec::encode`; and the
//! largest section of the corpus. The same pseudo-random PCs (all inside functions) are
//! looked up by each implementation in its own loop: in this process for the reference and
//! simple-frame-rs, inside the worker process for each libsframe (`sframe_find_fre` plus
//! reading the CFA offset, over a decoder made once), in turns: every implementation runs
//! once per turn, and each one's fastest of [`TURNS`] turns counts (a burst of other load on
//! the machine then slows one turn of each, not one implementation's whole measurement).
//! Results are look-ups per second and the ratio to the newest libsframe reading that
//! version. The reference looks up through a
//! [`SectionIndex`] built before the timing, asking [`SectionIndex::find_fre`] for the row as
//! `sframe_find_fre` is asked; its row also gives the rate with one build counted in.
//!
//! No libsframe release reads every version (2.40: v1; 2.44: v1, v2; sid: v2, v3), and 2.44
//! predates `SFRAME_F_FDE_FUNC_START_PCREL` while sid's look-up always resolves starts
//! relative to the field: the v2 section is written without the flag for 2.44 and with it for
//! sid (same functions, same size). Every implementation is asked to find every PC; a count
//! of found rows below the PC count is printed, since a fast wrong answer is no answer.

use serde::Serialize;
use serde_json::json;
use sframe_gen::rng::SplitMix64;
use sframe_harness::impls::{BenchTiming, Implementation, Outcome};
use sframe_harness::input::{corpus_cases, corpus_dir};
use sframe_harness::signature::{Tool, ToolName};
use sframe_impls::registry::{Options, Registry};
use sframe_spec::constants::flags;
use sframe_spec::{
    decode, encode, validate, Abi, BaseReg, DataWordSize, Fre, Function, Section, SectionIndex,
    Version,
};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A section to look PCs up in, in the variants implementations need.
struct BenchSection {
    name: String,
    version: Version,
    /// Without `SFRAME_F_FDE_FUNC_START_PCREL` (v1, v2) / with it (v2, v3).
    plain: Option<Vec<u8>>,
    pcrel: Option<Vec<u8>>,
    pcs: Vec<i64>,
}

/// A synthetic section of `n` AMD64 functions.
pub fn synthetic(version: Version, n: u32, pcrel: bool) -> Section {
    let mut s = Section::new(version, Abi::Amd64);
    s.flags = flags::FDE_SORTED
        | if pcrel {
            flags::FDE_FUNC_START_PCREL
        } else {
            0
        };
    let fre = |start: u32, words: &[i32]| Fre {
        start,
        base_reg: BaseReg::Sp,
        mangled_ra: false,
        dataword_size: DataWordSize::B1,
        datawords: words.to_vec(),
    };
    s.functions = (0..n)
        .map(|i| {
            let mut f = Function::new(-0x4000_0000 + i64::from(i) * 64, 64);
            f.fres = vec![fre(0, &[8]), fre(1, &[16, -16]), fre(60, &[8])];
            f
        })
        .collect();
    s
}

fn pcs_in(s: &Section, count: usize, seed: u64) -> Vec<i64> {
    let mut rng = SplitMix64::new(seed);
    (0..count)
        .filter_map(|_| {
            let f = &s.functions[rng.index(s.functions.len())];
            (f.size > 0).then(|| f.start + rng.index(f.size as usize) as i64)
        })
        .collect()
}

/// One measurement.
#[derive(Debug, Clone, Serialize)]
pub struct Measurement {
    pub section: String,
    pub implementation: String,
    pub version: String,
    pub lookups_per_sec: f64,
    pub found: u64,
    pub lookups: u64,
    /// Look-ups per second relative to the newest libsframe reading this section.
    pub ratio_to_libsframe: Option<f64>,
    /// The reference only: its look-ups run through a [`SectionIndex`] built once before
    /// the timing (as a user making many look-ups would); this is the rate with one build
    /// of the index counted in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lookups_per_sec_with_index_build: Option<f64>,
}

/// Time to build the reference's look-up index of `data` once (the best of a few builds).
fn index_build(data: &[u8]) -> Duration {
    (0..5)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(SectionIndex::parse(std::hint::black_box(data)).is_ok());
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn measure(
    imp: &dyn Implementation,
    data: &[u8],
    pcs: &[i64],
    target: Duration,
) -> Option<BenchTiming> {
    // Calibrate with one pass, then aim at `target`.
    let one = match imp.bench_find(data, pcs, 1) {
        Outcome::Ok { value } => value,
        _ => return None,
    };
    let per_pass = one.nanos.max(1);
    let rounds = (target.as_nanos() as u64 / per_pass).clamp(1, 200) as u32;
    match imp.bench_find(data, pcs, rounds) {
        Outcome::Ok { value } => Some(value),
        _ => Some(one),
    }
}

/// Decode into the owned model ([`decode`]: a `Vec` per function and per row) + validate
/// throughput of the reference on `data`, in MB/s.
pub fn decode_owned_validate_mb_s(data: &[u8], target: Duration) -> f64 {
    mb_s(data, target, |d| {
        let ok = decode(d).is_ok();
        ok as usize + validate(d).len()
    })
}

/// Decode+validate zero-copy ([`validate`]: every header, FDE and FRE field decoded in
/// place, every rule checked, memory O(input)), in MB/s.
pub fn validate_mb_s(data: &[u8], target: Duration) -> f64 {
    mb_s(data, target, |d| validate(d).len())
}

fn mb_s(data: &[u8], target: Duration, work: impl Fn(&[u8]) -> usize) -> f64 {
    let t = Instant::now();
    let mut rounds = 0u32;
    while t.elapsed() < target || rounds == 0 {
        std::hint::black_box(work(std::hint::black_box(data)));
        rounds += 1;
    }
    (data.len() as f64 * f64::from(rounds)) / t.elapsed().as_secs_f64() / 1e6
}

fn sections(functions: u32) -> Vec<BenchSection> {
    let mut out = Vec::new();
    for version in Version::ALL {
        let plain = (version != Version::V3).then(|| synthetic(version, functions, false));
        let pcrel = (version != Version::V1).then(|| synthetic(version, functions, true));
        let any = plain
            .as_ref()
            .or(pcrel.as_ref())
            .cloned()
            .unwrap_or_else(|| synthetic(version, 1, false));
        out.push(BenchSection {
            name: format!("synthetic {version} ({functions} functions)"),
            version,
            plain: plain.and_then(|s| encode(&s).ok()),
            pcrel: pcrel.and_then(|s| encode(&s).ok()),
            pcs: pcs_in(&any, 100_000, 1),
        });
    }
    if let Some(c) = corpus_cases(&corpus_dir())
        .into_iter()
        .max_by_key(|c| c.data.len())
    {
        if let Ok(s) = decode(&c.data) {
            if !s.functions.is_empty() {
                let pcrel = s.is_pcrel();
                out.push(BenchSection {
                    name: format!(
                        "largest corpus section: {} ({} bytes, {} functions)",
                        c.name,
                        c.data.len(),
                        s.functions.len()
                    ),
                    version: s.version,
                    pcs: pcs_in(&s, 100_000, 2),
                    plain: (!pcrel).then(|| c.data.clone()),
                    pcrel: pcrel.then(|| c.data.clone()),
                });
            }
        }
    }
    out
}

/// The variant of `s` for `imp`: sid's libsframe resolves starts relative to the field.
fn variant<'a>(imp: &dyn Implementation, s: &'a BenchSection) -> Option<&'a [u8]> {
    let wants_pcrel = imp.tool().is(ToolName::Libsframe)
        && !matches!(imp.name().as_str(), "libsframe-2.40" | "libsframe-2.44");
    let wants_plain = matches!(imp.name().as_str(), "libsframe-2.40" | "libsframe-2.44");
    match (wants_pcrel, wants_plain) {
        (true, _) => s.pcrel.as_deref().or(s.plain.as_deref()),
        (_, true) => s.plain.as_deref().or(s.pcrel.as_deref()),
        _ => s.plain.as_deref().or(s.pcrel.as_deref()),
    }
}

/// The reference's throughput on one section, in MB/s, beside a plain copy of its bytes
/// ([`Throughput::measure`]).
#[derive(Debug, Clone, Serialize)]
pub struct Throughput {
    pub section: String,
    /// [`validate_mb_s`].
    pub validate_mb_per_s: f64,
    /// [`decode_owned_validate_mb_s`].
    pub decode_owned_mb_per_s: f64,
    pub copy_mb_per_s: f64,
}

impl Throughput {
    /// Each figure the fastest of [`TURNS`] turns, the three measured in turns (as the
    /// look-ups are), for about `target` in all each.
    fn measure(section: &str, data: &[u8], target: Duration) -> Throughput {
        let turn = target / TURNS;
        let mut t = Throughput {
            section: section.to_string(),
            validate_mb_per_s: 0.0,
            decode_owned_mb_per_s: 0.0,
            copy_mb_per_s: 0.0,
        };
        for _ in 0..TURNS {
            t.validate_mb_per_s = t.validate_mb_per_s.max(validate_mb_s(data, turn));
            t.decode_owned_mb_per_s = t
                .decode_owned_mb_per_s
                .max(decode_owned_validate_mb_s(data, turn));
            t.copy_mb_per_s = t
                .copy_mb_per_s
                .max(crate::bench_summary::copy_mb_s(data, turn));
        }
        t
    }
}

/// How many corpus ELF files the oracle's pace is measured on.
const ORACLE_FILES: usize = 12;

/// How many turns each implementation's look-ups are timed in (the fastest counts).
const TURNS: u32 = 5;

/// Run every measurement, each for about `target`.
pub fn measurements(
    impls: &[Arc<dyn Implementation>],
    functions: u32,
    target: Duration,
) -> (Vec<Measurement>, Vec<Throughput>) {
    let mut out = Vec::new();
    let mut throughput = Vec::new();
    for s in sections(functions) {
        if let Some(d) = s.plain.as_deref().or(s.pcrel.as_deref()) {
            throughput.push(Throughput::measure(&s.name, d, target));
        }
        let mut rows = Vec::new();
        let text = |i: &Arc<dyn Implementation>| {
            i.tool().is(ToolName::Objdump) || i.tool().is(ToolName::LlvmReadobj)
        };
        let asked: Vec<(&Arc<dyn Implementation>, &[u8])> = impls
            .iter()
            .filter(|i| i.supports(s.version) && !text(i))
            .filter_map(|i| Some((i, variant(i.as_ref(), &s)?)))
            .collect();
        // Each implementation's fastest of a few runs, taken in turns, so that a burst of
        // other load on the machine slows one run of each, not one implementation.
        let mut best: Vec<Option<BenchTiming>> = vec![None; asked.len()];
        for _ in 0..TURNS {
            for ((imp, data), best) in asked.iter().zip(best.iter_mut()) {
                let Some(t) = measure(imp.as_ref(), data, &s.pcs, target / TURNS) else {
                    continue;
                };
                let rate = |t: &BenchTiming| t.lookups as f64 / t.nanos.max(1) as f64;
                if best.as_ref().is_none_or(|b| rate(&t) > rate(b)) {
                    *best = Some(t);
                }
            }
        }
        for ((imp, data), t) in asked.into_iter().zip(best) {
            if let Some(t) = t {
                let with_build = imp.tool().is(ToolName::Reference).then(|| {
                    let nanos = t.nanos as f64 + index_build(data).as_nanos() as f64;
                    t.lookups as f64 / (nanos.max(1.0) / 1e9)
                });
                rows.push(Measurement {
                    section: s.name.clone(),
                    implementation: imp.name(),
                    version: imp.version(),
                    lookups_per_sec: t.lookups as f64 / (t.nanos.max(1) as f64 / 1e9),
                    found: t.found,
                    lookups: t.lookups,
                    ratio_to_libsframe: None,
                    lookups_per_sec_with_index_build: with_build,
                });
            }
        }
        let base = rows
            .iter()
            .rfind(|m| Tool::named(&m.implementation).is(ToolName::Libsframe))
            .map(|m| m.lookups_per_sec);
        for m in &mut rows {
            m.ratio_to_libsframe = base.map(|b| m.lookups_per_sec / b);
        }
        out.extend(rows);
    }
    (out, throughput)
}

/// The run's [`Summary`](crate::bench_summary::Summary): look-up ratios and validation
/// throughput from the measurements, then the differential cost and the text adapters' pace.
fn summarize(
    impls: &[Arc<dyn Implementation>],
    rows: &[Measurement],
    throughput: &[Throughput],
) -> crate::bench_summary::Summary {
    use crate::bench_summary as b;
    let lookup_ratios = b::lookup_ratios(rows);
    let slowest = throughput
        .iter()
        .filter(|t| t.section.starts_with("synthetic"))
        .min_by(|a, b| a.validate_mb_per_s.total_cmp(&b.validate_mb_per_s));
    let differential = b::differential_cost(impls);
    let text = b::text_sections_per_s(impls);
    b::Summary {
        lookup_ratio_min: lookup_ratios.iter().map(|r| r.1).reduce(f64::min),
        lookup_ratios,
        validate_mb_s: slowest.map(|t| t.validate_mb_per_s),
        copy_mb_s: slowest.map(|t| t.copy_mb_per_s),
        validate_ratio_to_copy: slowest.map(|t| t.validate_mb_per_s / t.copy_mb_per_s),
        decode_owned_mb_s: throughput
            .iter()
            .filter(|t| t.section.starts_with("synthetic"))
            .map(|t| t.decode_owned_mb_per_s)
            .reduce(f64::min),
        differential_cost: differential.all,
        differential_cost_by_implementation: differential.by_implementation,
        differential_inputs: differential.inputs,
        text_sections_per_s: text.0,
        text_sections_per_s_by_tool: text.1,
        oracle_checked_per_s_per_core: b::oracle_checked_per_s_per_core(ORACLE_FILES),
    }
}

/// `sframe-conform bench [--json]`.
pub fn run(json_out: bool, functions: u32) -> Result<ExitCode, String> {
    let reg = Registry::discover(&Options {
        timeout: Duration::from_secs(120),
        objdump: true,
    });
    let (rows, throughput) =
        measurements(&reg.available, functions.max(1), Duration::from_millis(500));
    let summary = summarize(&reg.available, &rows, &throughput);
    if json_out {
        let v = json!({
            "lookups": rows,
            "decode_validate_mb_per_s": throughput,
            "unavailable": reg.unavailable.iter().map(|u| json!({"name": u.name, "reason": u.reason})).collect::<Vec<_>>(),
            "summary": summary,
        });
        crate::outln!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        return Ok(ExitCode::SUCCESS);
    }
    let mut last = String::new();
    for m in &rows {
        if m.section != last {
            crate::outln!("\n{}", m.section);
            crate::outln!(
                "  {:<18} {:>14} {:>10} {:>14}",
                "implementation",
                "look-ups/s",
                "ratio",
                "found/asked"
            );
            last = m.section.clone();
        }
        let ratio = m
            .ratio_to_libsframe
            .map_or_else(|| "-".to_string(), |r| format!("{r:.2}x"));
        crate::outln!(
            "  {:<18} {:>14.0} {:>10} {:>14}",
            m.implementation,
            m.lookups_per_sec,
            ratio,
            format!("{}/{}", m.found, m.lookups)
        );
    }
    crate::outln!(
        "\nreference decode+validate zero-copy, into the owned model (a plain copy of the same bytes):"
    );
    for t in &throughput {
        crate::outln!(
            "  {:>10.1} MB/s {:>10.1} MB/s ({:.0} MB/s)  {}",
            t.validate_mb_per_s,
            t.decode_owned_mb_per_s,
            t.copy_mb_per_s,
            t.section
        );
    }
    let show = |v: Option<f64>| v.map_or_else(|| "-".to_string(), |v| format!("{v:.4}"));
    crate::outln!("\nsummary:");
    crate::outln!(
        "  lookup_ratio_min        {}",
        show(summary.lookup_ratio_min)
    );
    crate::outln!("  validate_mb_s           {}", show(summary.validate_mb_s));
    crate::outln!(
        "  validate_ratio_to_copy  {}",
        show(summary.validate_ratio_to_copy)
    );
    crate::outln!(
        "  decode_owned_mb_s       {}",
        show(summary.decode_owned_mb_s)
    );
    crate::outln!(
        "  differential_cost       {} ({} corpus inputs)",
        show(summary.differential_cost),
        summary.differential_inputs
    );
    for (name, cost) in &summary.differential_cost_by_implementation {
        crate::outln!("    {name:<21} {cost:.1}");
    }
    crate::outln!(
        "  text_sections_per_s     {}",
        show(summary.text_sections_per_s)
    );
    for (name, rate) in &summary.text_sections_per_s_by_tool {
        crate::outln!("    {name:<21} {rate:.0}");
    }
    crate::outln!(
        "  oracle_checked_per_s_per_core {}",
        show(summary.oracle_checked_per_s_per_core)
    );
    for u in &reg.unavailable {
        crate::outln!("(unavailable: {}: {})", u.name, u.reason);
    }
    Ok(ExitCode::SUCCESS)
}
