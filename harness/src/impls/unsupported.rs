//! Why an implementation did not answer a question ([`super::Outcome::Unsupported`]): a
//! reason the harness itself acts on, or one in the implementation's own words. Its text
//! (`Display`, also its wire and JSON form) is what was always written; reading it back
//! (`FromStr`) names the reasons the harness acts on by their whole text, and keeps any
//! other text as it is.

use std::fmt;
use std::str::FromStr;

/// Why a question was not answered.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum UnsupportedReason {
    /// Not asked: the implementation failed three times on this section
    /// ([`super::protocol::finds_one_at_a_time`]), so the question may be asked alone again.
    NotAsked,
    /// Any other reason, as the implementation or its adapter says it (a version it does
    /// not read, a PC beyond its `int32_t`, an operation it does not have, ...).
    Other(String),
}

impl UnsupportedReason {
    const NOT_ASKED: &'static str =
        "not asked: the implementation failed three times on this section";
}

impl fmt::Display for UnsupportedReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UnsupportedReason::NotAsked => f.write_str(Self::NOT_ASKED),
            UnsupportedReason::Other(s) => f.write_str(s),
        }
    }
}

/// A reason in words: [`UnsupportedReason::Other`].
impl From<&str> for UnsupportedReason {
    fn from(s: &str) -> Self {
        UnsupportedReason::Other(s.to_string())
    }
}

/// A reason in words: [`UnsupportedReason::Other`].
impl From<String> for UnsupportedReason {
    fn from(s: String) -> Self {
        UnsupportedReason::Other(s)
    }
}

impl FromStr for UnsupportedReason {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(if s == Self::NOT_ASKED {
            UnsupportedReason::NotAsked
        } else {
            UnsupportedReason::Other(s.to_string())
        })
    }
}

// Written as its text, read from it.
sframe_findings::serde_as_text!(UnsupportedReason, str::parse::<UnsupportedReason>);

#[cfg(test)]
mod tests {
    use super::*;

    /// The worker's "not asked" answer, as `sframe-worker` writes it on the wire (the
    /// protocol's text, written out here by hand), reads as [`UnsupportedReason::NotAsked`]
    /// and writes back the same; any other text stays words.
    #[test]
    fn not_asked_is_read_from_the_wire_and_other_reasons_stay_words() {
        let line = r#""not asked: the implementation failed three times on this section""#;
        let r: UnsupportedReason = serde_json::from_str(line).expect("a reason");
        assert_eq!(r, UnsupportedReason::NotAsked);
        assert_eq!(serde_json::to_string(&r).expect("JSON"), line);
        for words in [
            "the PC does not fit __sframe_find_fre's int32_t",
            "not asked",
            "libsframe-2.40 does not read SFrame v3",
        ] {
            let r: UnsupportedReason =
                serde_json::from_value(serde_json::json!(words)).expect("a reason");
            assert_eq!(r, UnsupportedReason::Other(words.into()));
            assert_eq!(r.to_string(), words);
        }
    }
}
