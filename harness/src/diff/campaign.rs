//! A differential campaign, the work of `sframe-conform diff`: batches of sections through
//! the [`Engine`] into one [`Summary`]; optionally the sections foreign encoders write from
//! models ([`Campaign::check_producers`]); then each new signature minimized and recorded in
//! the ledger ([`Campaign::record_new`]), and the first input of every signature no finding
//! accounts for saved ([`Campaign::save_unexplained`]). The command around it chooses the
//! implementations and the inputs, draws progress and prints.

use super::report::Summary;
use super::{minimize, producer, record, seeds, Case, CaseResult, Engine, Op};
use crate::impls::reference::Reference;
use crate::impls::Implementation;
use crate::input::{corpus_cases, corpus_dir};
use crate::ledger::{Ledger, ToolVersion};
use crate::signature::ToolName;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// At most this many valid corpus sections serve as encoder models.
const CORPUS_MODELS: usize = 200;

/// One campaign: its implementations, the ledger it is judged by, and what it found so far.
pub struct Campaign<'l> {
    pub engine: Engine,
    ledger: &'l Ledger,
    pub summary: Summary,
}

impl<'l> Campaign<'l> {
    /// A campaign over `impls`, judged by `ledger`, looking up at most `max_pcs` PCs per
    /// section (0: the engine's default).
    pub fn new(impls: Vec<Arc<dyn Implementation>>, ledger: &'l Ledger, max_pcs: usize) -> Self {
        let mut engine = Engine::new(impls).with_ledger(ledger);
        if max_pcs > 0 {
            engine.settings.max_pcs = max_pcs;
        }
        Campaign {
            engine,
            ledger,
            summary: Summary::default(),
        }
    }

    /// Run one batch of sections; `on_result` sees each section's result in order, with the
    /// summary that counts it.
    pub fn run_batch(&mut self, batch: &[Case], mut on_result: impl FnMut(&CaseResult, &Summary)) {
        for (c, r) in batch.iter().zip(self.engine.run_cases(batch)) {
            self.summary.add(&r, &c.data, self.ledger);
            on_result(&r, &self.summary);
        }
    }

    /// Check the sections each libsframe's encoder writes from models (the built-in seeds
    /// and up to 200 valid corpus sections); `on_result` sees each model's result.
    pub fn check_producers(&mut self, mut on_result: impl FnMut(&CaseResult)) {
        let models = producer_models();
        let encoders: Vec<Arc<dyn Implementation>> = self
            .engine
            .impls
            .iter()
            .filter(|i| i.tool().is(ToolName::Libsframe))
            .cloned()
            .collect();
        for imp in encoders {
            for (k, m) in models.iter().enumerate() {
                let ds = producer::check(imp.as_ref(), m);
                let r = producer::case_result(
                    format!("producer:{}:model {k}", imp.name()),
                    format!("{} (encoder)", imp.name()),
                    m,
                    ds,
                );
                let bytes = sframe_spec::encode(m).unwrap_or_default();
                self.summary.add(&r, &bytes, self.ledger);
                on_result(&r);
            }
        }
    }

    /// Minimize the first input of every new signature (an encoder's input as it is) and
    /// record it in the ledger; the directories written.
    pub fn record_new(&self) -> Result<Vec<PathBuf>, String> {
        let mut recorded = Vec::new();
        for s in self.summary.new_signatures() {
            let Some(input) = &s.input else { continue };
            let d = &s.example;
            let name = d.implementation();
            let Some(imp) = self.engine.impls.iter().find(|i| i.name() == name) else {
                continue;
            };
            let minimized = if d.op() == Op::Encode {
                input.clone()
            } else {
                let with_finds = d.op() == Op::FindFre;
                let max_pcs = self.engine.settings.max_pcs.min(64);
                minimize::minimize(input, 300, &mut |b: &[u8]| {
                    Engine::unexplained_signatures_of(
                        imp.as_ref(),
                        b,
                        max_pcs,
                        with_finds,
                        &self.engine.quirks,
                    )
                    .contains(&s.signature)
                })
            };
            let dir = record::record(
                self.ledger,
                d,
                &minimized,
                self.tools_of(&name),
                &s.first_case,
            )
            .map_err(|e| format!("cannot record {}: {e}", s.signature))?;
            recorded.push(dir);
        }
        Ok(recorded)
    }

    /// The reference's version and `name`'s, as a finding records them.
    fn tools_of(&self, name: &str) -> Vec<ToolVersion> {
        let mut v = vec![ToolVersion {
            name: "reference".into(),
            version: Reference.version(),
        }];
        v.extend(
            self.engine
                .impls
                .iter()
                .filter(|i| i.name() == name)
                .map(|i| ToolVersion {
                    name: i.name(),
                    version: i.version(),
                }),
        );
        v
    }

    /// Write the first input of each signature no finding accounts for (new, or on the
    /// untriaged list) to `dir`, with a JSON index (`index.json`: signature, file, count,
    /// first case, example discrepancy).
    pub fn save_unexplained(&self, dir: &Path) -> Result<(), String> {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let mut index = Vec::new();
        for s in self.summary.signatures.values() {
            let accounted = s.finding.finding().is_some();
            let Some(input) = s.input.as_ref().filter(|_| !accounted) else {
                continue;
            };
            let name = format!("{}.sframe", file_name_of(&s.signature.to_string()));
            let path = dir.join(&name);
            std::fs::write(&path, input).map_err(|e| format!("{}: {e}", path.display()))?;
            index.push(json!({
                "signature": s.signature,
                "file": name,
                "count": s.count,
                "first_case": s.first_case,
                "example": s.example,
            }));
        }
        let path = dir.join("index.json");
        std::fs::write(
            &path,
            serde_json::to_string_pretty(&index).unwrap_or_default() + "\n",
        )
        .map_err(|e| format!("{}: {e}", path.display()))
    }
}

/// The models foreign encoders are given: the built-in seeds' and up to
/// [`CORPUS_MODELS`] valid corpus sections'.
fn producer_models() -> Vec<sframe_spec::Section> {
    let mut models: Vec<sframe_spec::Section> = seeds::builtin()
        .iter()
        .filter_map(|c| sframe_spec::decode(&c.data).ok())
        .collect();
    for c in corpus_cases(&corpus_dir()).iter().take(CORPUS_MODELS) {
        if let Ok(m) = sframe_spec::decode(&c.data) {
            if sframe_spec::is_valid(&sframe_spec::validate(&c.data)) {
                models.push(m);
            }
        }
    }
    models
}

/// A portable file name for a signature (or any name made of its parts): its characters
/// outside `[A-Za-z0-9._-]` replaced by `_` (`:` of the parts, `?` of an unknown version).
pub fn file_name_of(signature: &str) -> String {
    signature
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}
