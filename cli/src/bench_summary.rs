//! The `summary` of `sframe-conform bench`: the ratios the speed targets are stated in, all
//! measured in the same run, never an absolute time.
//!
//! - `lookup_ratio_min`: over the synthetic v1, v2 and v3 sections, the smallest of the
//!   reference's look-ups per second divided by the fastest libsframe release's on the same
//!   section.
//! - `validate_mb_s`: the smallest decode+validate throughput over those sections, zero-copy
//!   (`sframe_spec::validate` decodes every field in place and checks every rule, memory
//!   O(input)), and `validate_ratio_to_copy`: that section's throughput divided by a plain
//!   copy of the same bytes (the physical limit); `decode_owned_mb_s`: the smallest of
//!   decoding into the owned `Section` model (a `Vec` per function and per row) plus
//!   validating, for users of the model.
//! - `differential_cost`: the time per input of every in-process and worker implementation
//!   together (decode, then look-ups at up to 64 PCs; the workers asked at once and one
//!   input ahead, as the differential engine asks them), divided by the reference's alone, on the corpus's
//!   sections; `differential_cost_by_implementation`: each one's alone, where the time goes.
//! - `text_sections_per_s`: sections per second through the newest `objdump --sframe`, many
//!   sections per process; `text_sections_per_s_by_tool`: the same for every text adapter
//!   (objdump, llvm-readobj).
//! - `oracle_checked_per_s_per_core`: rows the emulator oracle checks per second on one core
//!   (one job), on a dozen corpus ELF files spread over it (`sframe-conform oracle corpus/
//!   --stats` gives the whole corpus's figure on every core).

use crate::bench::Measurement;
use serde::Serialize;
use sframe_harness::impls::section_version;
use sframe_harness::impls::Implementation;
use sframe_harness::input::{corpus_cases, corpus_dir};
use sframe_harness::signature::{Tool, ToolName};
use sframe_spec::decode;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// See the module docs. `None` where what it needs is not provisioned here.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub lookup_ratio_min: Option<f64>,
    /// Per synthetic section: the reference's look-ups/s over the fastest libsframe's.
    pub lookup_ratios: Vec<(String, f64)>,
    pub validate_mb_s: Option<f64>,
    pub copy_mb_s: Option<f64>,
    pub validate_ratio_to_copy: Option<f64>,
    /// The smallest throughput of decoding into the owned model plus validating, over the
    /// same sections.
    pub decode_owned_mb_s: Option<f64>,
    pub differential_cost: Option<f64>,
    /// Each implementation's own cost over the reference's (where the time goes).
    pub differential_cost_by_implementation: Vec<(String, f64)>,
    /// How many corpus sections the differential cost was measured on.
    pub differential_inputs: usize,
    pub text_sections_per_s: Option<f64>,
    /// Sections per second through each text adapter (llvm-readobj reads v2 only).
    pub text_sections_per_s_by_tool: Vec<(String, f64)>,
    pub oracle_checked_per_s_per_core: Option<f64>,
}

/// Copy throughput of `data` (MB/s), the bound decode+validate is compared with.
pub fn copy_mb_s(data: &[u8], target: Duration) -> f64 {
    let mut buf = vec![0u8; data.len()];
    let t = Instant::now();
    let mut rounds = 0u32;
    while t.elapsed() < target || rounds == 0 {
        buf.copy_from_slice(std::hint::black_box(data));
        std::hint::black_box(&buf);
        rounds += 1;
    }
    (data.len() as f64 * f64::from(rounds)) / t.elapsed().as_secs_f64() / 1e6
}

/// The reference's look-ups per second over the fastest libsframe's, per synthetic section.
pub fn lookup_ratios(rows: &[Measurement]) -> Vec<(String, f64)> {
    let mut sections: Vec<&str> = rows
        .iter()
        .map(|m| m.section.as_str())
        .filter(|s| s.starts_with("synthetic"))
        .collect();
    sections.dedup();
    sections
        .into_iter()
        .filter_map(|s| {
            let on = || rows.iter().filter(move |m| m.section == s);
            let reference = on()
                .find(|m| Tool::named(&m.implementation).is(ToolName::Reference))?
                .lookups_per_sec;
            let fastest = on()
                .filter(|m| Tool::named(&m.implementation).is(ToolName::Libsframe))
                .map(|m| m.lookups_per_sec)
                .fold(None, |a: Option<f64>, x| Some(a.map_or(x, |a| a.max(x))))?;
            Some((s.to_string(), reference / fastest))
        })
        .collect()
}

/// Up to 64 PCs inside the functions of `data`, as the reference reads them.
fn pcs_of(data: &[u8]) -> Vec<i64> {
    decode(data)
        .map(|s| {
            s.functions
                .iter()
                .filter(|f| f.size > 0)
                .take(64)
                .map(|f| f.start + i64::from(f.size / 2))
                .collect()
        })
        .unwrap_or_default()
}

/// Time of `imps` decoding and looking up every input, as the differential engine asks
/// them (`Engine::run_cases`): one `decode_and_find` per input of a version it reads, every
/// worker's sent before any answer is read, and one input ahead: an input's requests are
/// sent before the answers of the input before it are read.
fn time_all(imps: &[&Arc<dyn Implementation>], inputs: &[(Vec<u8>, Vec<i64>)]) -> Duration {
    let asked = |data: &[u8]| -> Vec<&&Arc<dyn Implementation>> {
        imps.iter()
            .filter(|i| section_version(data).is_none_or(|v| i.supports(v)))
            .collect()
    };
    let t = Instant::now();
    let begin = |(data, pcs): &(Vec<u8>, Vec<i64>)| {
        for imp in asked(data) {
            sframe_harness::impls::begin(imp.as_ref(), data, pcs);
        }
    };
    if let Some(first) = inputs.first() {
        begin(first);
    }
    for (k, (data, pcs)) in inputs.iter().enumerate() {
        if let Some(next) = inputs.get(k + 1) {
            begin(next);
        }
        for imp in asked(data) {
            std::hint::black_box(sframe_harness::impls::end(imp.as_ref(), data, pcs));
        }
    }
    t.elapsed()
}

/// The differential cost on the corpus ([`differential_cost`]).
#[derive(Debug, Clone, Default, Serialize)]
pub struct DifferentialCost {
    /// Every in-process and worker implementation together, over the reference alone.
    pub all: Option<f64>,
    /// Each implementation alone over the reference alone (where the time goes).
    pub by_implementation: Vec<(String, f64)>,
    /// How many corpus sections.
    pub inputs: usize,
}

/// Every in-process and worker implementation's time per corpus input over the
/// reference's alone, together and one by one.
pub fn differential_cost(impls: &[Arc<dyn Implementation>]) -> DifferentialCost {
    let inputs: Vec<(Vec<u8>, Vec<i64>)> = corpus_cases(&corpus_dir())
        .into_iter()
        .take(300)
        .map(|c| {
            let pcs = pcs_of(&c.data);
            (c.data, pcs)
        })
        .collect();
    let text = |i: &Arc<dyn Implementation>| {
        let t = i.tool();
        t.is(ToolName::Objdump) || t.is(ToolName::LlvmReadobj)
    };
    let all: Vec<&Arc<dyn Implementation>> = impls.iter().filter(|i| !text(i)).collect();
    let reference: Vec<&Arc<dyn Implementation>> = impls
        .iter()
        .filter(|i| i.tool().is(ToolName::Reference))
        .collect();
    if inputs.is_empty() || reference.is_empty() {
        return DifferentialCost {
            inputs: inputs.len(),
            ..DifferentialCost::default()
        };
    }
    // Warm the workers up (process start, first dlopen) before timing.
    time_all(&all, &inputs[..inputs.len().min(5)]);
    let t_ref = time_all(&reference, &inputs).as_secs_f64();
    let t_all = time_all(&all, &inputs).as_secs_f64();
    let ratio = |t: f64| (t_ref > 0.0).then(|| t / t_ref);
    DifferentialCost {
        all: ratio(t_all),
        by_implementation: all
            .iter()
            .filter(|i| !i.tool().is(ToolName::Reference))
            .filter_map(|i| Some((i.name(), ratio(time_all(&[*i], &inputs).as_secs_f64())?)))
            .collect(),
        inputs: inputs.len(),
    }
}

/// Sections per second through the text adapter `tool` (its decode), on up to 100 corpus
/// sections of versions it reads, read together as the differential engine has it read them.
fn sections_per_s(tool: &dyn Implementation) -> Option<f64> {
    let cases: Vec<_> = corpus_cases(&corpus_dir())
        .into_iter()
        .filter(|c| section_version(&c.data).is_none_or(|v| tool.supports(v)))
        .take(100)
        .collect();
    if cases.is_empty() {
        return None;
    }
    let inputs: Vec<&[u8]> = cases.iter().map(|c| c.data.as_slice()).collect();
    let t = Instant::now();
    std::hint::black_box(tool.decode_many(&inputs));
    Some(cases.len() as f64 / t.elapsed().as_secs_f64())
}

/// Sections per second through the newest provisioned `objdump --sframe` (the summary's
/// figure), and through every text adapter: the newest objdump and each llvm-readobj.
pub fn text_sections_per_s(impls: &[Arc<dyn Implementation>]) -> (Option<f64>, Vec<(String, f64)>) {
    let objdump = impls.iter().rfind(|i| i.tool().is(ToolName::Objdump));
    let readobjs = impls.iter().filter(|i| i.tool().is(ToolName::LlvmReadobj));
    let by_tool: Vec<(String, f64)> = objdump
        .into_iter()
        .chain(readobjs)
        .filter_map(|t| Some((t.name(), sections_per_s(t.as_ref())?)))
        .collect();
    let newest_objdump = objdump.and_then(|o| by_tool.iter().find(|(n, _)| *n == o.name()));
    (newest_objdump.map(|(_, r)| *r), by_tool)
}

/// Rows the emulator oracle checks per second with one job, on `files` ELF files of the corpus
/// spread over it (in path order); `None` without them or without the oracle.
pub fn oracle_checked_per_s_per_core(files: usize) -> Option<f64> {
    #[cfg(feature = "oracle")]
    {
        let paths = crate::oracle_cmd::expand(&[corpus_dir().join("elf")]).ok()?;
        let opts = sframe_oracle::Options {
            jobs: 1,
            ..sframe_oracle::Options::default()
        };
        let (mut rows, mut secs) = (0u64, 0f64);
        // Spread over the corpus: every producer and ABI, not only the first directory's.
        let step = (paths.len() / files.max(1)).max(1);
        for p in paths.iter().step_by(step).take(files) {
            let Ok(bytes) = std::fs::read(p) else {
                continue;
            };
            let Ok(oracle) = sframe_oracle::Oracle::new(&bytes) else {
                continue;
            };
            let all: Vec<usize> = (0..oracle.functions().len()).collect();
            if let Ok(r) = oracle.check_functions(&all, &opts, &|| {}) {
                rows += r.summary.rows_checked;
                secs += r.stats.elapsed_secs;
            }
        }
        (secs > 0.0).then(|| rows as f64 / secs)
    }
    #[cfg(not(feature = "oracle"))]
    {
        let _ = files;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(section: &str, implementation: &str, lookups_per_sec: f64) -> Measurement {
        Measurement {
            section: section.into(),
            implementation: implementation.into(),
            version: String::new(),
            lookups_per_sec,
            found: 1,
            lookups: 1,
            ratio_to_libsframe: None,
            lookups_per_sec_with_index_build: None,
        }
    }

    #[test]
    fn the_ratio_is_to_the_fastest_libsframe_on_each_synthetic_section() {
        let rows = [
            m("synthetic v2", "reference", 300.0),
            m("synthetic v2", "libsframe-2.44", 100.0),
            m("synthetic v2", "libsframe-2.47", 150.0),
            m("synthetic v3", "reference", 90.0),
            m("synthetic v3", "libsframe-2.47", 100.0),
            m("largest corpus section", "reference", 1.0),
            m("largest corpus section", "libsframe-2.47", 100.0),
        ];
        let r = lookup_ratios(&rows);
        assert_eq!(
            r,
            vec![
                ("synthetic v2".to_string(), 2.0),
                ("synthetic v3".to_string(), 0.9)
            ]
        );
    }
}
