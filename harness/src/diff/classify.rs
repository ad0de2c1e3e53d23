//! Classifying one implementation's answers against the reference's view: crashes and
//! hangs, accepted-invalid and rejected-valid sections, and value disagreements with their
//! look-up context, each with its [`Signature`].

use super::answer::Answer;
use super::case::Discrepancy;
use super::judge::{judge, Judgement};
use super::reference_view::{aliased_32, ReferenceView};
use super::{compare, explain};
use crate::impls::{Decoded, Found, Outcome};
use crate::signature::{
    CrashSite, ErrorClass, Field, FieldPath, LayoutTag, Op, RuleClass, Signature, Tool,
};
use std::collections::BTreeSet;

/// A refusal's answer.
fn refused(class: &ErrorClass, detail: &Option<String>) -> Answer {
    Answer::Refused {
        class: class.clone(),
        detail: detail.clone(),
    }
}

/// The crash/hang discrepancy of a failed outcome.
pub fn failure<T>(imp: &Tool, tag: LayoutTag, op: Op, o: &Outcome<T>) -> Option<Discrepancy> {
    match o {
        Outcome::Crashed {
            signal,
            site,
            repeated,
            detail,
        } => {
            let mut d = Discrepancy::new(Signature::Crash {
                imp: imp.clone(),
                tag,
                op,
                signal: signal.clone(),
                site: CrashSite::of_crash(site.as_ref(), *repeated),
            });
            d.found = Answer::Died {
                signal: signal.clone(),
                detail: detail.clone(),
            };
            Some(d)
        }
        Outcome::Hung { timeout_ms } => {
            let mut d = Discrepancy::new(Signature::Hang {
                imp: imp.clone(),
                tag,
                op,
            });
            d.found = Answer::NoAnswerIn {
                timeout_ms: *timeout_ms,
            };
            Some(d)
        }
        _ => None,
    }
}

/// Classify one implementation's decode against the reference's view.
pub fn classify_decode(imp: &Tool, v: &ReferenceView, o: &Outcome<Decoded>) -> Vec<Discrepancy> {
    classify_decode_explained(imp, v, o, None)
}

/// [`classify_decode`], crediting the findings whose quirks reproduce each answer.
pub fn classify_decode_explained(
    imp: &Tool,
    v: &ReferenceView,
    o: &Outcome<Decoded>,
    explanation: Option<&explain::DecodeExplanation<'_>>,
) -> Vec<Discrepancy> {
    let explain =
        |field: Option<FieldPath>| explanation.map(|e| e.explain(o, field)).unwrap_or_default();
    let tag = v.tag;
    let mut out = Vec::new();
    match judge(o, v.valid) {
        Judgement::Failed => out.extend(failure(imp, tag, Op::Decode, o)),
        Judgement::Unsupported | Judgement::RefusedInvalid => {}
        Judgement::AcceptedInvalid => {
            // Not valid: some error-severity rule is broken.
            let Some(rule) = v.first_error else {
                return out;
            };
            let mut d = Discrepancy::new(Signature::AcceptedInvalid {
                imp: imp.clone(),
                tag,
                class: RuleClass::of(rule),
                rule,
            });
            d.expected = Answer::Breaks(rule);
            d.found = Answer::Decoded;
            out.push(d);
        }
        Judgement::RejectedValid { class, detail } => {
            let mut d = Discrepancy::new(Signature::RejectedValid {
                imp: imp.clone(),
                tag,
                op: Op::Decode,
                error: class.clone(),
            });
            d.expected = Answer::Valid;
            d.found = refused(class, detail);
            d.explained_by = explain(None);
            out.push(d);
        }
        Judgement::Answered(value) => {
            if let Outcome::Ok { value: reference } = &v.decoded {
                let mut seen = BTreeSet::new();
                for fd in compare::decoded(reference, value) {
                    if seen.insert(fd.field) {
                        let mut d = Discrepancy::new(Signature::Diff {
                            imp: imp.clone(),
                            tag,
                            op: Op::Decode,
                            field: Field::plain(fd.field),
                        });
                        d.function = fd.function;
                        d.fre = fd.fre;
                        d.expected = Answer::Value(fd.expected);
                        d.found = Answer::Value(fd.found);
                        d.explained_by = explain(Some(fd.field));
                        out.push(d);
                    }
                }
            }
        }
    }
    out
}

/// Classify one implementation's look-ups against the reference's.
pub fn classify_finds(
    imp: &Tool,
    v: &ReferenceView,
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
    imp: &Tool,
    v: &ReferenceView,
    pcs: &[i64],
    reference: &[Outcome<Option<Found>>],
    found: &[Outcome<Option<Found>>],
    explained: &[Vec<String>],
) -> Vec<Discrepancy> {
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    let tag = v.tag;
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
        // Only where the reference answered: its row (or its "none") is the expected one.
        let Outcome::Ok { value: a } = r else {
            continue;
        };
        match judge(f, v.valid) {
            Judgement::Answered(b) => {
                for fd in compare::found(a, b) {
                    let start = a.as_ref().and_then(|x| x.function_start);
                    let field = Field {
                        // A PC inside overlapping functions: which FDE is "the" FDE is open.
                        overlap: v.overlap_zones.iter().any(|&(a, b)| a <= *pc && *pc < b),
                        // A PC beyond 32 bits from the section, or one that a 32-bit
                        // distance would put inside a function it is not in: its own
                        // signature, since 32-bit distance arithmetic only fails there.
                        far: i32::try_from(*pc).is_err() || aliased_32(&v.function_ranges, *pc),
                        // A row of a function with FREs wider than three data words.
                        wide: start.is_some_and(|s| v.wide_starts.contains(&s)),
                        mask: start.is_some_and(|s| v.mask_starts.contains(&s)),
                        path: fd.field,
                        // A row missing in a section without SFRAME_F_FDE_SORTED is its own
                        // signature: some implementations only search sorted sections.
                        unsorted: fd.field == FieldPath::Missing && !v.sorted,
                    };
                    let sig = Signature::Diff {
                        imp: imp.clone(),
                        tag,
                        op: Op::FindFre,
                        field,
                    };
                    if seen.insert((sig.clone(), by.first().cloned())) {
                        let mut d = Discrepancy::new(sig);
                        d.pc = Some(*pc);
                        d.expected = Answer::Value(fd.expected);
                        d.found = Answer::Value(fd.found);
                        d.explained_by = by.clone();
                        out.push(d);
                    }
                }
            }
            Judgement::RejectedValid { class, detail } => {
                let sig = Signature::RejectedValid {
                    imp: imp.clone(),
                    tag,
                    op: Op::FindFre,
                    error: class.clone(),
                };
                if seen.insert((sig.clone(), by.first().cloned())) {
                    let mut d = Discrepancy::new(sig);
                    d.pc = Some(*pc);
                    d.expected = Answer::Row(a.clone());
                    d.found = refused(class, detail);
                    d.explained_by = by.clone();
                    out.push(d);
                }
            }
            _ => {}
        }
    }
    out
}

/// Whether a discrepancy is a value answer (a disagreement or a refusal of a valid section),
/// which only quirks explain.
pub(super) fn value_discrepancy(d: &Discrepancy) -> bool {
    matches!(
        d.signature,
        Signature::Diff { .. } | Signature::RejectedValid { .. }
    )
}
