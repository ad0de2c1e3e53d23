//! Crashes and hangs explained by the ledger's triggers.
//!
//! A crash or hang finding names, per implementation, the [`Trigger`]s that cause it
//! (`triggers` in `finding.json`). A crash or hang of an implementation is explained by the
//! finding whose trigger holds for its input as that release reads it
//! ([`sframe_spec::triggers::first_trigger`]), wherever it lands; when the ledger has
//! triggers for the implementation and none holds, it is new whatever its crash site.
//! `objdump-<release>` is read as that release's `objdump --sframe` reads the input
//! ([`Caller::Objdump`]: libsframe's decode, then its dump's calls in their order, with the
//! dump's own assertions). Where
//! no model reads the implementation's inputs or the ledger has no trigger
//! for the implementation, its crash site is matched against the findings' patterns, as
//! before triggers.

use super::case::{Discrepancy, TriggerCheck};
use crate::ledger::Ledger;
use crate::signature::Op;
use sframe_spec::triggers::{first_trigger, glibc, simple_frame, Caller, Evaluation, Release};
use sframe_spec::Trigger;
use std::collections::BTreeMap;

/// Every implementation's triggers, by implementation name, with the finding naming each.
#[derive(Debug, Clone, Default)]
pub struct TriggerTable {
    by_impl: BTreeMap<String, Vec<(Trigger, String)>>,
}

/// What the model of `implementation`'s reading says of `op` on `data` (a look-up at `pc`,
/// which glibc's and simple-frame-rs's models need: their look-ups read what the PC's
/// search probes).
fn evaluate(implementation: &str, op: Op, pc: Option<i64>, data: &[u8]) -> Option<Evaluation> {
    let objdump = |rel| match op {
        // objdump only dumps: its one operation is the decode (`ObjdumpImpl::decode`).
        Op::Decode => Some(first_trigger(data, rel, Caller::Objdump)),
        Op::FindFre | Op::Encode => None,
    };
    let rel = match implementation {
        "libsframe-2.40" => Release::Libsframe240,
        "libsframe-2.44" => Release::Libsframe244,
        "libsframe-2.47" => Release::Libsframe247,
        "objdump-2.40" => return objdump(Release::Libsframe240),
        "objdump-2.44" => return objdump(Release::Libsframe244),
        "objdump-2.47" => return objdump(Release::Libsframe247),
        "glibc-2.43" => {
            let call = match op {
                Op::Decode => glibc::Call::Decode,
                Op::FindFre => glibc::Call::Lookup(pc?),
                Op::Encode => return None,
            };
            return Some(glibc::first_trigger(data, call));
        }
        // In this process, built as this workspace is (its overflow checks included).
        "simple-frame-rs" => {
            let call = match op {
                Op::Decode => simple_frame::Call::Decode,
                Op::FindFre => simple_frame::Call::Lookup(pc?),
                Op::Encode => return None,
            };
            return Some(simple_frame::first_trigger(
                data,
                call,
                simple_frame::Build::THIS,
            ));
        }
        _ => return None,
    };
    let caller = match op {
        Op::Decode => Caller::Worker,
        Op::FindFre => Caller::Lookup,
        Op::Encode => return None,
    };
    Some(first_trigger(data, rel, caller))
}

impl TriggerTable {
    pub fn from_ledger(ledger: &Ledger) -> TriggerTable {
        let mut by_impl: BTreeMap<String, Vec<(Trigger, String)>> = BTreeMap::new();
        for f in &ledger.findings {
            for (imp, ts) in &f.triggers {
                let e = by_impl.entry(imp.clone()).or_default();
                e.extend(ts.iter().map(|t| (*t, f.id.clone())));
            }
        }
        TriggerTable { by_impl }
    }

    /// What the triggers say of a crash or hang of `implementation` in `op` on `data` (a
    /// look-up's at `pc`): `None` when they cannot say (no trigger for it in the ledger, or
    /// an implementation or operation no model reads).
    pub fn check(
        &self,
        implementation: &str,
        op: Op,
        pc: Option<i64>,
        data: &[u8],
    ) -> Option<TriggerCheck> {
        let known = self.by_impl.get(implementation)?;
        match evaluate(implementation, op, pc, data)? {
            Evaluation::Clean => Some(TriggerCheck::NoneHolds),
            Evaluation::Triggered(t) => Some(match known.iter().find(|(k, _)| *k == t) {
                Some((_, finding)) => TriggerCheck::Holds {
                    trigger: t,
                    finding: finding.clone(),
                },
                // The model knows the bug, the ledger does not name it yet.
                None => TriggerCheck::Unledgered { trigger: t },
            }),
        }
    }

    /// Credit every crash and hang of `ds` to the finding whose trigger holds on `data`.
    pub fn explain(&self, data: &[u8], ds: &mut [Discrepancy]) {
        for d in ds.iter_mut().filter(|d| d.is_failure()) {
            d.trigger = self.check(&d.implementation(), d.op(), d.pc, data);
            if let Some(TriggerCheck::Holds { finding, .. }) = &d.trigger {
                d.explained_by = vec![finding.clone()];
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.by_impl.is_empty()
    }
}
