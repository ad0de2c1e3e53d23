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
            (Some(v), Some(e)) => write!(f, " (found {v}, expected {e})"),
            (Some(v), None) => write!(f, " (found {v})"),
            _ => Ok(()),
        }
    }
}

impl std::error::Error for Violation {}
