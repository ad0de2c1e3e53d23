//! What one side of a [`crate::check::Mismatch`] says: the CFI's rules (`expected`) or the
//! SFrame section's row (`found`), or the function-level fact each gives, built where
//! [`crate::check`] observes it. Its text (`Display`, which is also its JSON) is the one the
//! crosscheck and produce reports have always printed.

use crate::check::Expected;
use serde::{Serialize, Serializer};
use sframe_spec::constants::PauthKey;
use sframe_spec::{Recovery, Rule, Violation};
use std::fmt;

/// One side's answer in a producer check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Said {
    /// The rules the CFI gives at the PC.
    Rules(Expected),
    /// The rules the SFrame row gives at the PC.
    Row(Recovery),
    /// The section has no row for the PC.
    NoRow,
    /// The section has no FDE for the function.
    NoFde,
    /// The section could not be read there.
    Unreadable(Violation),
    /// The row's rules could not be applied: the rule they break.
    Breaks(Rule),
    /// The FDE's signal-frame bit (v3), or the CFI's `S` augmentation.
    Signal(bool),
    /// The key that signs the return addresses (AArch64).
    PauthKey(PauthKey),
    /// What the CFI of a function asks of the section: an FDE from its start.
    AnFdeFromStart,
    /// What the CFI of a function asks of the section: an FDE that can be read.
    AReadableFde,
}

impl fmt::Display for Said {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Said::Rules(e) => write!(f, "{e:?}"),
            Said::Row(r) => write!(f, "{r:?}"),
            Said::NoRow => f.write_str("no row"),
            Said::NoFde => f.write_str("none"),
            Said::Unreadable(v) => write!(f, "{v:?}"),
            Said::Breaks(rule) => write!(f, "breaks {rule:?}"),
            Said::Signal(s) => write!(f, "signal = {s}"),
            Said::PauthKey(k) => write!(f, "pauth_key = {k:?}"),
            Said::AnFdeFromStart => f.write_str("an FDE from the function's start"),
            Said::AReadableFde => f.write_str("a readable FDE"),
        }
    }
}

/// The JSON of a side is its text.
impl Serialize for Said {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sframe_spec::Loc;

    /// The texts the crosscheck and produce reports (and their `--json`) have always
    /// carried, one per side.
    #[test]
    fn each_side_reads_as_before() {
        let row = Recovery {
            cfa: Loc::Undefined,
            ra: Loc::SameValue,
            fp: Loc::SameValue,
            ra_mangled: false,
        };
        let cases: Vec<(Said, &str)> = vec![
            (
                Said::Rules(Expected::default()),
                "PartialRecovery { cfa: None, ra: None, fp: None, ra_mangled: None }",
            ),
            (
                Said::Row(row),
                "Recovery { cfa: Undefined, ra: SameValue, fp: SameValue, ra_mangled: false }",
            ),
            (Said::NoRow, "no row"),
            (Said::NoFde, "none"),
            (
                Said::Unreadable(Violation::new(Rule::PreambleMagic, 0)),
                "Violation { rule: PreambleMagic, offset: 0, function: None, fre: None, found: None, expected: None }",
            ),
            (Said::Breaks(Rule::FdeFreType), "breaks FdeFreType"),
            (Said::Signal(true), "signal = true"),
            (Said::Signal(false), "signal = false"),
            (Said::PauthKey(PauthKey::B), "pauth_key = B"),
            (Said::AnFdeFromStart, "an FDE from the function's start"),
            (Said::AReadableFde, "a readable FDE"),
        ];
        for (said, text) in cases {
            assert_eq!(said.to_string(), text, "{said:?}");
            assert_eq!(
                serde_json::to_value(said).expect("JSON"),
                serde_json::json!(text)
            );
        }
    }
}
