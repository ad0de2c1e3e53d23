//! Violations: which rule was broken, where (byte offset into the section), and the value.
//!
//! The reader returns the first malformed-class violation as its error; the validator
//! returns all of them. Callers branch on [`Violation::rule`], never on text.

use crate::rules::Rule;
use core::fmt;

/// A broken rule at a byte offset of the section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Violation {
    pub rule: Rule,
    /// Byte offset into the section of the field (or record) at fault.
    pub offset: usize,
    /// Index of the function concerned, if any.
    pub function: Option<u32>,
    /// Index of the FRE within that function, if any.
    pub fre: Option<u32>,
    /// The offending value, where one number says it.
    pub found: Option<i64>,
    /// What the rule wanted instead, where one number says it.
    pub expected: Option<i64>,
}

/// The reader's error: the malformed-class rule that stopped decoding.
pub type Error = Violation;

impl Violation {
    pub fn new(rule: Rule, offset: usize) -> Violation {
        Violation {
            rule,
            offset,
            function: None,
            fre: None,
            found: None,
            expected: None,
        }
    }
    pub fn found(mut self, v: impl Into<i64>) -> Self {
        self.found = Some(v.into());
        self
    }
    pub fn expected(mut self, v: impl Into<i64>) -> Self {
        self.expected = Some(v.into());
        self
    }
    pub fn at_function(mut self, i: usize) -> Self {
        self.function = u32::try_from(i).ok();
        self
    }
    pub fn at_fre(mut self, i: usize) -> Self {
        self.fre = u32::try_from(i).ok();
        self
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at offset {:#x}", self.rule.id(), self.offset)?;
        if let Some(func) = self.function {
            write!(f, " (function {func}")?;
            if let Some(fre) = self.fre {
                write!(f, ", FRE {fre}")?;
            }
            f.write_str(")")?;
        }
        write!(f, ": {}", self.rule.info().summary)?;
        match (self.found, self.expected) {
            (Some(v), Some(e)) => match Relation::of(self.rule) {
                Relation::Exactly if v == e => write!(f, " (found {v})"),
                Relation::Exactly => write!(f, " (found {v}, expected {e})"),
                Relation::AtLeast => write!(f, " (found {v}, expected at least {e})"),
                Relation::AtMost => write!(f, " (found {v}, expected at most {e})"),
                Relation::StartPastEnd => write!(
                    f,
                    " (starts at {v:#x}, past the end of its function or repeated block, {e:#x} bytes long)"
                ),
                Relation::StartAtEnd => write!(
                    f,
                    " (starts at {v:#x}, where its function or repeated block, {e:#x} bytes long, ends)"
                ),
            },
            (Some(v), None) => write!(f, " (found {v})"),
            (None, Some(e)) => write!(f, " (expected {e})"),
            (None, None) => Ok(()),
        }
    }
}

impl std::error::Error for Violation {}

/// A violation as JSON reports list it: the rule's ID and severity, where, the values, and
/// the message the `Display` gives. One statement of that form for every report.
#[cfg(feature = "serde")]
impl serde::Serialize for Violation {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Violation", 8)?;
        st.serialize_field("rule", &self.rule)?;
        st.serialize_field("severity", &self.rule.info().severity)?;
        st.serialize_field("offset", &self.offset)?;
        st.serialize_field("function", &self.function)?;
        st.serialize_field("fre", &self.fre)?;
        st.serialize_field("found", &self.found)?;
        st.serialize_field("expected", &self.expected)?;
        st.serialize_field("message", &self.to_string())?;
        st.end()
    }
}

/// How a violation's `expected` value stands to its `found` value, as the message says it:
/// the one value a rule wants, or a bound the found value is on the wrong side of (so that
/// no message reads "found X, expected X").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Relation {
    /// `expected` is the value the rule wants.
    Exactly,
    /// The found value is below the least one allowed, `expected`.
    AtLeast,
    /// The found value is above the largest one allowed, `expected`.
    AtMost,
    /// An FRE start (found) past the end of its function or repeated block (`expected`, its
    /// size).
    StartPastEnd,
    /// An FRE start (found) equal to the size of its function or repeated block (`expected`).
    StartAtEnd,
}

impl Relation {
    fn of(rule: Rule) -> Relation {
        match rule {
            // Starts must increase: at least the previous start + 1 (FRE), at least the
            // previous start (FDE), at least the end of the function before (overlap).
            Rule::FreStartIncreasing | Rule::FdeSorted | Rule::FdeOverlap => Relation::AtLeast,
            // The header needs 28 bytes.
            Rule::HeaderFits => Relation::AtLeast,
            // What fits in the section, and the v1/v2 data-word maximum.
            Rule::HeaderAuxFits
            | Rule::HeaderFdeSubsectionFits
            | Rule::HeaderFreSubsectionFits
            | Rule::FreCountMax => Relation::AtMost,
            Rule::FreStartInFunction => Relation::StartPastEnd,
            Rule::FreStartAtEnd => Relation::StartAtEnd,
            _ => Relation::Exactly,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No rendered violation of any rule repeats its found value as its expected one, for
    /// equal values and for values on either side.
    #[test]
    fn no_message_says_found_x_expected_x() {
        let values = [-1i64, 0, 1, 2, 3, 6, 28, 0x1000, i64::from(u32::MAX)];
        for &rule in Rule::ALL {
            for &found in &values {
                for &expected in &values {
                    let v = Violation::new(rule, 0x44)
                        .at_function(0)
                        .at_fre(1)
                        .found(found)
                        .expected(expected);
                    let text = v.to_string();
                    // The values end the message: a repeated one reads "found X, expected X)".
                    for x in [found, expected] {
                        for same in [
                            format!("{x}, expected {x})"),
                            format!("{x:#x}, expected {x:#x})"),
                        ] {
                            assert!(!text.contains(&format!("found {same}")), "{text}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn fre_start_messages_say_what_the_rule_requires() {
        let at_end = Violation::new(Rule::FreStartAtEnd, 0x44)
            .at_function(0)
            .at_fre(1)
            .found(6)
            .expected(6);
        assert!(
            at_end.to_string().ends_with(
                "(starts at 0x6, where its function or repeated block, 0x6 bytes long, ends)"
            ),
            "{at_end}"
        );
        let past = Violation::new(Rule::FreStartInFunction, 0x44)
            .found(8)
            .expected(6);
        assert!(
            past.to_string().ends_with(
                "(starts at 0x8, past the end of its function or repeated block, 0x6 bytes long)"
            ),
            "{past}"
        );
        let order = Violation::new(Rule::FreStartIncreasing, 0x44)
            .found(4)
            .expected(5);
        assert!(
            order
                .to_string()
                .ends_with("(found 4, expected at least 5)"),
            "{order}"
        );
    }
}
