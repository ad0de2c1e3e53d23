//! The engine: runs every implementation on a section and classifies what it sees
//! ([`Engine`]), choosing the PCs to look up ([`pcs_for`]).

use super::case::{Case, CaseResult, Discrepancy, ImplResult, Status};
use super::classify::{
    classify_decode, classify_decode_explained, classify_finds, classify_finds_explained,
    value_discrepancy,
};
use super::explain;
use super::reference_view::{reference_view, ReferenceView};
use crate::impls::reference::Reference;
use crate::impls::{section_version, Decoded, Found, Hosting, Implementation, Outcome};
use crate::ledger::Ledger;
use crate::signature::{Signature, ToolName};
use std::collections::BTreeSet;
use std::sync::Arc;

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
                    if f.is_pc_mask() {
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
        self.run_in(CaseContext::new(case, self.settings.max_pcs), case)
    }

    /// [`Engine::run_case`] on each of many sections. Text tools read them all in one go
    /// ([`Implementation::decode_many`]: a process per section cost more than its dump);
    /// every answer is the one a run per section gets.
    pub fn run_cases(&self, cases: &[Case]) -> Vec<CaseResult> {
        let impls: Vec<&Arc<dyn Implementation>> = self
            .impls
            .iter()
            .filter(|i| i.name() != "reference")
            .collect();
        // Per text tool, its decode of each section it is asked to read.
        let mut decoded: Vec<Vec<Option<Outcome<Decoded>>>> = impls
            .iter()
            .map(|imp| {
                let mut out: Vec<Option<Outcome<Decoded>>> = vec![None; cases.len()];
                if imp.hosting() != Hosting::Text {
                    return out;
                }
                let asked: Vec<usize> = (0..cases.len())
                    .filter(|&k| section_version(&cases[k].data).is_none_or(|v| imp.supports(v)))
                    .collect();
                let inputs: Vec<&[u8]> = asked.iter().map(|&k| cases[k].data.as_slice()).collect();
                for (k, d) in asked.into_iter().zip(imp.decode_many(&inputs)) {
                    out[k] = Some(d);
                }
                out
            })
            .collect();
        // Each section's requests are sent to the implementations in other processes one
        // section ahead, before the answers of the one before are read: a worker goes on to
        // the next request at once instead of waiting to be asked.
        let read: Vec<Vec<bool>> = decoded
            .iter()
            .map(|d| d.iter().map(Option::is_some).collect())
            .collect();
        let begun = |k: usize| {
            let ctx = CaseContext::new(&cases[k], self.settings.max_pcs);
            for (imp, read) in impls.iter().zip(read.iter()) {
                if !read[k] {
                    ctx.begin(imp.as_ref(), &cases[k]);
                }
            }
            ctx
        };
        let mut next = (!cases.is_empty()).then(|| begun(0));
        let mut results = Vec::with_capacity(cases.len());
        for (k, case) in cases.iter().enumerate() {
            let Some(ctx) = next.take() else { break };
            next = (k + 1 < cases.len()).then(|| begun(k + 1));
            let r = impls
                .iter()
                .zip(decoded.iter_mut())
                .map(|(imp, d)| ctx.run_decoded(imp.as_ref(), case, &self.quirks, d[k].take()))
                .collect();
            results.push(ctx.result(case, r));
        }
        results
    }

    /// Run every implementation on one section, looking up exactly `pcs` (section-relative)
    /// instead of the PCs [`pcs_for`] would choose.
    pub fn run_case_at(&self, case: &Case, pcs: &[i64]) -> CaseResult {
        self.run_in(CaseContext::with_pcs(case, pcs.to_vec()), case)
    }

    /// Every implementation but the reference, in `ctx`: those in other processes are all
    /// asked before any answer is read, so that they work at the same time.
    fn run_in(&self, ctx: CaseContext, case: &Case) -> CaseResult {
        let impls: Vec<&Arc<dyn Implementation>> = self
            .impls
            .iter()
            .filter(|i| !i.tool().is(ToolName::Reference))
            .collect();
        for imp in &impls {
            ctx.begin(imp.as_ref(), case);
        }
        let results = impls
            .iter()
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
    ) -> BTreeSet<Signature> {
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
    ) -> BTreeSet<Signature> {
        let v = reference_view(data);
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
    verdict: ReferenceView,
    pcs: Vec<i64>,
    reference_finds: Vec<Outcome<Option<Found>>>,
    version: Option<sframe_spec::Version>,
}

impl CaseContext {
    fn new(case: &Case, max_pcs: usize) -> CaseContext {
        let verdict = reference_view(&case.data);
        let pcs = pcs_for(&case.data, verdict.decoded.value(), max_pcs);
        Self::from_parts(case, verdict, pcs)
    }

    fn with_pcs(case: &Case, pcs: Vec<i64>) -> CaseContext {
        Self::from_parts(case, reference_view(&case.data), pcs)
    }

    fn from_parts(case: &Case, verdict: ReferenceView, pcs: Vec<i64>) -> CaseContext {
        Self::from_verdict(&case.data, verdict, pcs)
    }

    fn from_verdict(data: &[u8], verdict: ReferenceView, pcs: Vec<i64>) -> CaseContext {
        let reference_finds = Reference.find_fres(data, &pcs);
        CaseContext {
            verdict,
            pcs,
            reference_finds,
            version: section_version(data),
        }
    }

    /// Send `imp` what [`CaseContext::run`] will ask of it, when it will be asked and
    /// answers from another process ([`impls::begin`](crate::impls::begin)).
    fn begin(&self, imp: &dyn Implementation, case: &Case) {
        if self.version.is_none_or(|v| imp.supports(v)) {
            crate::impls::begin(imp, &case.data, &self.pcs);
        }
    }

    /// Decode and look up with `imp`, classify, and credit the findings whose quirks
    /// reproduce its answers. Also whether decode and look-up were unsupported.
    fn classify(
        &self,
        imp: &dyn Implementation,
        data: &[u8],
        quirks: &explain::QuirkTable,
        decoded: Option<Outcome<Decoded>>,
    ) -> (Vec<Discrepancy>, bool, bool) {
        let name = imp.name();
        let tool = imp.tool();
        let causes = quirks.causes(&name);
        // Decoded already (in a batch), or decoded and looked up in one go.
        let (decoded, finds) = match decoded {
            Some(d) => (d, imp.find_fres(data, &self.pcs)),
            None => crate::impls::end(imp, data, &self.pcs),
        };
        let mut ds = classify_decode(&tool, &self.verdict, &decoded);
        if ds.iter().any(value_discrepancy) {
            let explanation = explain::decode(causes, data, &decoded);
            ds = classify_decode_explained(&tool, &self.verdict, &decoded, explanation.as_ref());
        }
        let unsupported = matches!(decoded, Outcome::Unsupported { .. });
        let find_supported = finds
            .iter()
            .any(|f| !matches!(f, Outcome::Unsupported { .. }));
        let mut fs = classify_finds(
            &tool,
            &self.verdict,
            &self.pcs,
            &self.reference_finds,
            &finds,
        );
        if !causes.is_empty() && fs.iter().any(value_discrepancy) {
            let by = explain::finds(causes, data, &self.pcs, &finds);
            fs = classify_finds_explained(
                &tool,
                &self.verdict,
                &self.pcs,
                &self.reference_finds,
                &finds,
                &by,
            );
        }
        ds.extend(fs);
        quirks.triggers.explain(data, &mut ds);
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
        self.classify(imp, data, quirks, None).0
    }

    fn run(
        &self,
        imp: &dyn Implementation,
        case: &Case,
        quirks: &explain::QuirkTable,
    ) -> ImplResult {
        self.run_decoded(imp, case, quirks, None)
    }

    /// [`CaseContext::run`] with `imp`'s decode of the section when it has it already.
    fn run_decoded(
        &self,
        imp: &dyn Implementation,
        case: &Case,
        quirks: &explain::QuirkTable,
        decoded: Option<Outcome<Decoded>>,
    ) -> ImplResult {
        let name = imp.name();
        if let Some(ver) = self.version {
            if !imp.supports(ver) {
                return ImplResult {
                    implementation: name,
                    status: Status::Unsupported,
                    discrepancies: Vec::new(),
                };
            }
        }
        let (ds, unsupported, find_supported) = self.classify(imp, &case.data, quirks, decoded);
        let status = if !ds.is_empty() {
            Status::Discrepant
        } else if unsupported && !find_supported {
            Status::Unsupported
        } else {
            Status::Agree
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
