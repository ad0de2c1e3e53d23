//! The reference's side of a comparison: its view of a section (validity, the first
//! error, its decode) and the look-up context signatures name (layout tag, PC-mask, wide,
//! overlapping and 32-bit-aliased functions).

use crate::impls::reference::Reference;
use crate::impls::{Decoded, Implementation, Outcome};
use crate::signature::LayoutTag;
use sframe_spec::rules::Severity;
use sframe_spec::validate;
use sframe_spec::Violation;
use std::collections::BTreeSet;

/// The reference's view of a section, computed once (not a finding's [`crate::ledger::Verdict`]).
pub struct ReferenceView {
    pub valid: bool,
    /// The header says `SFRAME_F_FDE_SORTED`.
    pub sorted: bool,
    /// The layout part of signatures.
    pub tag: LayoutTag,
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

/// The layout tag of signatures ([`LayoutTag`]) as text: `v1`, `v2-pcrel-aux`, `v?`, ...
pub fn version_tag(data: &[u8]) -> String {
    LayoutTag::of(data).to_string()
}

/// Validate `data` and decode it with the reference.
pub fn reference_view(data: &[u8]) -> ReferenceView {
    reference_view_of(data, &validate(data))
}

/// The reference's view of `data`, whose violations of the rule catalogue are `violations`
/// (what [`validate`] reports on it), for a caller that keeps them.
pub fn reference_view_of(data: &[u8], violations: &[Violation]) -> ReferenceView {
    let errors = || {
        violations
            .iter()
            .filter(|v| v.rule.info().severity == Severity::Error)
    };
    let first_error = errors()
        .find(|v| v.rule.info().class == sframe_spec::rules::Class::Malformed)
        .or_else(|| errors().next())
        .map(|v| v.rule);
    let sorted = sframe_spec::layout::RawHeader::of(data)
        .flags()
        .is_some_and(|f| f & sframe_spec::constants::flags::FDE_SORTED != 0);
    let tag = LayoutTag::of(data);
    let decoded = Reference.decode(data);
    let mask_starts = decoded
        .value()
        .map(|d| {
            d.functions
                .iter()
                .filter(|f| f.is_pc_mask())
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
    ReferenceView {
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

/// Whether a 32-bit distance from some function's start would put `pc` inside that
/// function although it is not (the PC is 2^32 bytes or more away): `(pc - start) mod 2^32 <
/// size` while `pc - start` is outside `[0, size)`.
pub fn aliased_32(functions: &[(i64, u32)], pc: i64) -> bool {
    functions.iter().any(|&(start, size)| {
        let d = i128::from(pc) - i128::from(start);
        !(0..i128::from(size)).contains(&d) && (d.rem_euclid(1 << 32) as u64) < u64::from(size)
    })
}
