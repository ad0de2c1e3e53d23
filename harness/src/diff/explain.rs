//! Explaining discrepancies by executable causes.
//!
//! A reader finding of the ledger names *quirks* per implementation (see
//! [`sframe_spec::quirks`]): switches of the reference reader that reproduce a known
//! deviation. A discrepancy of an implementation is explained only when the reference with
//! the quirks of that implementation's findings on gives exactly the implementation's answer
//! on that input (the same decoded fields, the same row at that PC, or a refusal where it
//! refused). Any other discrepancy is new, whatever the implementation's name.
//!
//! The findings credited are those whose quirks are needed: the answer is no longer
//! reproduced with that finding's quirks off. Where no single finding is needed (two
//! findings' quirks each reproduce it), every finding with quirks on the implementation is
//! credited.

use super::compare;
use crate::impls::reference::Quirky;
use crate::impls::{Decoded, Found, Outcome};
use crate::ledger::Ledger;
use crate::signature::FieldPath;
use sframe_spec::Quirks;
use std::cell::OnceCell;
use std::collections::{BTreeMap, BTreeSet};

/// One finding's quirks for one implementation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cause {
    pub finding: String,
    pub quirks: Quirks,
}

/// Every implementation's quirks, by implementation name, from a ledger.
#[derive(Debug, Clone, Default)]
pub struct QuirkTable {
    by_impl: BTreeMap<String, Vec<Cause>>,
    /// The ledger's crash and hang triggers, which the engine applies beside the quirks.
    pub triggers: super::triggers::TriggerTable,
}

impl QuirkTable {
    pub fn from_ledger(ledger: &Ledger) -> QuirkTable {
        let mut by_impl: BTreeMap<String, Vec<Cause>> = BTreeMap::new();
        for f in &ledger.findings {
            for (imp, quirks) in &f.quirks {
                by_impl.entry(imp.clone()).or_default().push(Cause {
                    finding: f.id.clone(),
                    quirks: quirks.iter().copied().collect(),
                });
            }
        }
        QuirkTable {
            by_impl,
            triggers: super::triggers::TriggerTable::from_ledger(ledger),
        }
    }

    /// The causes known for an implementation (empty when none).
    pub fn causes(&self, implementation: &str) -> &[Cause] {
        self.by_impl.get(implementation).map_or(&[], Vec::as_slice)
    }

    pub fn is_empty(&self) -> bool {
        self.by_impl.is_empty() && self.triggers.is_empty()
    }
}

/// The quirk sets tried for one implementation: all of its findings' quirks, then all but
/// each finding's.
struct Variants<'a> {
    causes: &'a [Cause],
    all: Quirks,
}

impl<'a> Variants<'a> {
    fn new(causes: &'a [Cause]) -> Self {
        let all = causes.iter().fold(Quirks::NONE, |a, c| a.union(c.quirks));
        Variants { causes, all }
    }

    /// `all` first, then one set per cause with that cause's quirks off (those it shares with
    /// no other cause), then each cause's quirks alone.
    fn sets(&self) -> Vec<Quirks> {
        let mut v = vec![self.all];
        for (i, c) in self.causes.iter().enumerate() {
            let others = self
                .causes
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .fold(Quirks::NONE, |a, (_, o)| a.union(o.quirks));
            v.push(self.all.minus(c.quirks.minus(others)));
        }
        v.extend(self.causes.iter().map(|c| c.quirks));
        v
    }

    /// The findings credited, given whether each set reproduces the answer (`sets()` order).
    fn credit(&self, reproduces: &[bool]) -> Vec<String> {
        if !reproduces.first().copied().unwrap_or(false) {
            return Vec::new();
        }
        let n = self.causes.len();
        let without = reproduces.get(1..=n).unwrap_or_default();
        let alone = reproduces.get(n + 1..).unwrap_or_default();
        let needed: Vec<String> = self
            .causes
            .iter()
            .zip(without)
            .filter(|(_, &r)| !r)
            .map(|(c, _)| c.finding.clone())
            .collect();
        if !needed.is_empty() {
            return needed;
        }
        // No cause is needed: several reproduce it. The first that does alone, else all.
        match self.causes.iter().zip(alone).find(|(_, &r)| r) {
            Some((c, _)) => vec![c.finding.clone()],
            None => self.causes.iter().map(|c| c.finding.clone()).collect(),
        }
    }
}

/// What explains an implementation's decode of one section.
pub struct DecodeExplanation<'a> {
    variants: Variants<'a>,
    /// The quirky reference's decode under each set of [`Variants::sets`].
    answers: Vec<Outcome<Decoded>>,
    /// Per answer, the fields in which it differs from the implementation's decode: computed
    /// once, on the first [`DecodeExplanation::explain`], and asked once per differing field.
    differing: OnceCell<Vec<Option<BTreeSet<FieldPath>>>>,
}

impl DecodeExplanation<'_> {
    /// The findings explaining a decode discrepancy of `found`, the implementation's decode
    /// this explanation was prepared for: `field` for a differing field, `None` for a refusal
    /// of a valid section. Empty when nothing explains it.
    pub fn explain(&self, found: &Outcome<Decoded>, field: Option<FieldPath>) -> Vec<String> {
        let differing = self.differing.get_or_init(|| {
            self.answers
                .iter()
                .map(|a| match (a, found) {
                    (Outcome::Ok { value: a }, Outcome::Ok { value: b }) => {
                        Some(compare::decoded_fields(a, b))
                    }
                    _ => None,
                })
                .collect()
        });
        let reproduces: Vec<bool> = self
            .answers
            .iter()
            .zip(differing)
            .map(|(a, fields)| match (a, found, field) {
                (Outcome::Rejected { .. }, Outcome::Rejected { .. }, None) => true,
                (Outcome::Ok { .. }, Outcome::Ok { .. }, Some(field)) => {
                    fields.as_ref().is_some_and(|f| !f.contains(&field))
                }
                _ => false,
            })
            .collect();
        self.variants.credit(&reproduces)
    }
}

/// Whether the quirky reference's row for a PC is exactly the implementation's.
fn find_matches(quirky: &Outcome<Option<Found>>, found: &Outcome<Option<Found>>) -> bool {
    match (quirky, found) {
        (Outcome::Rejected { .. }, Outcome::Rejected { .. }) => true,
        (Outcome::Ok { value: a }, Outcome::Ok { value: b }) => compare::found(a, b).is_empty(),
        _ => false,
    }
}

/// Prepare the explanation of an implementation's decode, `found` (`None` when it has no
/// causes). The quirky reference keeps as many FREs as `found` holds (and at least four per
/// input byte), one more than that meaning it is not the implementation's answer.
pub fn decode<'a>(
    causes: &'a [Cause],
    data: &[u8],
    found: &Outcome<Decoded>,
) -> Option<DecodeExplanation<'a>> {
    if causes.is_empty() {
        return None;
    }
    let kept = found.value().map_or(0, |d| {
        d.functions.iter().map(|f| f.fres.len() + 1).sum::<usize>()
    });
    let max_fres = data.len().saturating_mul(4).max(kept);
    let variants = Variants::new(causes);
    let answers = variants
        .sets()
        .into_iter()
        .map(|q| Quirky(q).decode(data, max_fres))
        .collect();
    Some(DecodeExplanation {
        variants,
        answers,
        differing: OnceCell::new(),
    })
}

/// For each PC, the findings explaining the implementation's answer there (empty: none, or
/// the implementation has no causes).
pub fn finds(
    causes: &[Cause],
    data: &[u8],
    pcs: &[i64],
    found: &[Outcome<Option<Found>>],
) -> Vec<Vec<String>> {
    if causes.is_empty() {
        return vec![Vec::new(); pcs.len()];
    }
    let variants = Variants::new(causes);
    let answers: Vec<Vec<Outcome<Option<Found>>>> = variants
        .sets()
        .into_iter()
        .map(|q| Quirky(q).find_fres(data, pcs))
        .collect();
    (0..pcs.len())
        .map(|i| {
            let Some(f) = found.get(i) else {
                return Vec::new();
            };
            let reproduces: Vec<bool> = answers
                .iter()
                .map(|a| a.get(i).is_some_and(|q| find_matches(q, f)))
                .collect();
            variants.credit(&reproduces)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use sframe_spec::Quirk;

    fn cause(id: &str, qs: &[Quirk]) -> Cause {
        Cause {
            finding: id.into(),
            quirks: qs.iter().copied().collect(),
        }
    }

    #[test]
    fn the_needed_finding_is_credited_and_nothing_when_all_quirks_fail() {
        let cs = [
            cause("A", &[Quirk::PcDistance32]),
            cause("B", &[Quirk::AuxHeaderIgnored]),
        ];
        let v = Variants::new(&cs);
        // sets: all, all-but-A, all-but-B
        assert_eq!(v.credit(&[true, false, true]), vec!["A".to_string()]);
        assert_eq!(
            v.credit(&[true, false, false]),
            vec!["A".to_string(), "B".to_string()]
        );
        assert_eq!(
            v.credit(&[true, true, true]),
            vec!["A".to_string(), "B".to_string()]
        );
        assert!(v.credit(&[false, true, true]).is_empty());
    }

    #[test]
    fn a_quirk_two_findings_share_stays_on_when_one_is_removed() {
        let cs = [
            cause("A", &[Quirk::PcDistance32, Quirk::LookupRequiresSorted]),
            cause("B", &[Quirk::LookupRequiresSorted]),
        ];
        let sets = Variants::new(&cs).sets();
        assert!(sets[1].has(Quirk::LookupRequiresSorted) && !sets[1].has(Quirk::PcDistance32));
        assert!(sets[2].has(Quirk::LookupRequiresSorted) && sets[2].has(Quirk::PcDistance32));
    }
}
