//! The properties every generated section must have, as functions returning what went wrong:
//! used by the tests, the proptest properties and the fuzz drivers alike.

use crate::generate::Generated;
use crate::mutate::Mutated;
use sframe_spec::{decode, encode, is_malformed, validate, Rule};
use std::collections::BTreeSet;

/// A valid section: no violation at all, `decode` returns the model, and re-encoding the
/// decoded model gives the same bytes.
pub fn check_valid(g: &Generated) -> Result<(), String> {
    let violations = validate(&g.bytes);
    if !violations.is_empty() {
        let list: Vec<String> = violations.iter().map(|v| v.to_string()).collect();
        return Err(format!(
            "generated section breaks rules:\n  {}\nbytes: {}",
            list.join("\n  "),
            hex(&g.bytes)
        ));
    }
    if g.layout().len() != g.bytes.len() {
        return Err(format!(
            "layout length {} != encoded length {}",
            g.layout().len(),
            g.bytes.len()
        ));
    }
    let d = decode(&g.bytes).map_err(|e| {
        format!(
            "valid section does not decode: {e}\nbytes: {}",
            hex(&g.bytes)
        )
    })?;
    if d != g.section {
        return Err(format!(
            "decode(encode(m)) != m\n  model:   {:?}\n  decoded: {d:?}",
            g.section
        ));
    }
    let again = encode(&d).map_err(|e| format!("decoded model does not encode: {e}"))?;
    if again != g.bytes {
        return Err(format!(
            "encode(decode(b)) != b\n  b:     {}\n  again: {}",
            hex(&g.bytes),
            hex(&again)
        ));
    }
    Ok(())
}

/// Rules reported by the validator for `bytes`, as a set.
pub fn reported(bytes: &[u8]) -> BTreeSet<Rule> {
    validate(bytes).into_iter().map(|v| v.rule).collect()
}

/// A mutated section: `validate` reports at least the tagged rules (exactly them when
/// `exact`), and `decode` fails exactly when a malformed-class rule is reported.
pub fn check_mutated(m: &Mutated, exact: bool) -> Result<(), String> {
    let violations = validate(&m.bytes);
    let got: BTreeSet<Rule> = violations.iter().map(|v| v.rule).collect();
    let want: BTreeSet<Rule> = m.violates.iter().copied().collect();
    let ids = |s: &BTreeSet<Rule>| s.iter().map(|r| r.id()).collect::<Vec<_>>().join(", ");
    let context = || {
        format!(
            "mutation {} ({}): tagged [{}], reported [{}]\nbytes: {}",
            m.kind.name(),
            m.description,
            ids(&want),
            ids(&got),
            hex(&m.bytes)
        )
    };
    if let Some(r) = m.violates.iter().find(|r| !m.kind.rules().contains(r)) {
        return Err(format!(
            "tag {} is not among the rules of {}\n{}",
            r.id(),
            m.kind.name(),
            context()
        ));
    }
    if !want.is_subset(&got) {
        return Err(format!(
            "validate misses tagged rules [{}]\n{}",
            ids(&want.difference(&got).copied().collect()),
            context()
        ));
    }
    if exact && got != want {
        return Err(format!(
            "validate reports untagged rules [{}]\n{}",
            ids(&got.difference(&want).copied().collect()),
            context()
        ));
    }
    let decodes = decode(&m.bytes).is_ok();
    if decodes == is_malformed(&violations) {
        return Err(format!(
            "decode {} but is_malformed(validate) is {}\n{}",
            if decodes { "succeeds" } else { "fails" },
            !decodes,
            context()
        ));
    }
    Ok(())
}

/// Lower-case hex, for failure messages (long inputs shortened).
pub fn hex(b: &[u8]) -> String {
    crate::hex::excerpt(b, 512)
}

/// Look-ups on a valid section find what the model says: each function's first and last
/// byte select its FDE, and (PC-increment, and v2/v3 PC-mask within the function) each FRE's
/// start address selects that FRE.
pub fn check_lookups(g: &Generated) -> Result<(), String> {
    use sframe_spec::{PcType, SectionRef, Version};
    let s =
        SectionRef::parse(&g.bytes).map_err(|e| format!("valid section does not parse: {e}"))?;
    let err = |what: String| format!("{what}\nbytes: {}", hex(&g.bytes));
    for (i, f) in g.section.functions.iter().enumerate() {
        let last = f.start + i64::from(f.size) - 1;
        for pc in [f.start, last] {
            let found = s
                .find_fde(pc)
                .map_err(|e| err(format!("find_fde({pc}) fails: {e}")))?;
            if found.map(|d| d.index) != Some(i) {
                return Err(err(format!(
                    "find_fde({pc}) = {:?}, want function {i}",
                    found.map(|d| d.index)
                )));
            }
        }
        let by_block = f.pc_type == PcType::Mask && g.section.version != Version::V1;
        if f.pc_type == PcType::Mask && !by_block {
            continue; // v1 masks match by bitwise AND (D-V1-PCMASK-FORMULA): no simple oracle
        }
        for (k, r) in f.fres.iter().enumerate() {
            if by_block && u64::from(r.start) >= u64::from(f.size) {
                continue;
            }
            let pc = f.start + i64::from(r.start);
            let found = s
                .find(pc)
                .map_err(|e| err(format!("find({pc}) fails: {e}")))?;
            let got = found.map(|x| (x.fde.index, x.fre_index));
            if got != Some((i, k)) {
                return Err(err(format!(
                    "find({pc}) = {got:?}, want function {i} FRE {k}"
                )));
            }
        }
    }
    Ok(())
}
