//! A refusal's error class: the rule the reference names, or a foreign implementation's own
//! name for what it refused.

use super::ParseError;
use sframe_spec::Rule;
use std::fmt;
use std::str::FromStr;

/// Why an implementation refused a section (`Outcome::Rejected::class`, the error part of a
/// `rejected-valid` signature). Compared as this type, never as text.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ErrorClass {
    /// A rule of the catalogue: the reference's refusals (and any implementation's class
    /// that is a rule ID).
    Rule(Rule),
    /// A foreign implementation's own class: libsframe's `SFRAME_ERR_BUF_INVAL`, a
    /// simple-frame-rs error variant, a text tool's message class, a downstream parser's.
    Named(String),
    /// A library call that failed, with the error code it returned (libsframe's
    /// `sframe_decoder_get_fre` as `get_fre: -1`): written `CALL: CODE`.
    Call { call: String, code: i32 },
}

impl ErrorClass {
    /// The class `s` names: the rule with that ID, else a foreign class of that name.
    pub fn named(s: &str) -> ErrorClass {
        if let Some(r) = Rule::from_id(s) {
            return ErrorClass::Rule(r);
        }
        let call =
            |c: &str| !c.is_empty() && c.bytes().all(|b| b.is_ascii_lowercase() || b == b'_');
        match s.split_once(": ") {
            Some((c, code)) if call(c) && !code.starts_with('+') => match code.parse() {
                Ok(code) => ErrorClass::Call {
                    call: c.to_string(),
                    code,
                },
                Err(_) => ErrorClass::Named(s.to_string()),
            },
            _ => ErrorClass::Named(s.to_string()),
        }
    }

    /// The failed library call `call` that returned `code`.
    pub fn call(call: &str, code: i32) -> ErrorClass {
        ErrorClass::Call {
            call: call.to_string(),
            code,
        }
    }

    /// The rule, when the class is one.
    pub fn rule(&self) -> Option<Rule> {
        match self {
            ErrorClass::Rule(r) => Some(*r),
            ErrorClass::Named(_) | ErrorClass::Call { .. } => None,
        }
    }
}

impl From<Rule> for ErrorClass {
    fn from(r: Rule) -> ErrorClass {
        ErrorClass::Rule(r)
    }
}

impl From<&str> for ErrorClass {
    fn from(s: &str) -> ErrorClass {
        ErrorClass::named(s)
    }
}

impl From<String> for ErrorClass {
    fn from(s: String) -> ErrorClass {
        ErrorClass::named(&s)
    }
}

impl fmt::Display for ErrorClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorClass::Rule(r) => f.write_str(r.id()),
            ErrorClass::Named(s) => f.write_str(s),
            ErrorClass::Call { call, code } => write!(f, "{call}: {code}"),
        }
    }
}

/// A signature's error part: not empty.
impl FromStr for ErrorClass {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<ErrorClass, ParseError> {
        if s.is_empty() {
            return Err(ParseError::Empty("error class"));
        }
        Ok(ErrorClass::named(s))
    }
}

// Serialized as its name (the rule's ID for a rule): the protocol's `class`; any text is a
// class (an external program's, however it spells it).
serde_as_text!(ErrorClass, |s: &str| Ok::<_, ParseError>(
    ErrorClass::named(s)
));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_id_is_the_rule_and_anything_else_a_foreign_class() {
        // FDE-FRE-TYPE: the catalogue's ID for an FDE's undefined FRE type; SFRAME_ERR_BUF_INVAL:
        // libsframe's error code name (sframe-api.h).
        assert_eq!(
            ErrorClass::named("FDE-FRE-TYPE"),
            ErrorClass::Rule(Rule::FdeFreType)
        );
        let foreign = ErrorClass::named("SFRAME_ERR_BUF_INVAL");
        assert_eq!(foreign, ErrorClass::Named("SFRAME_ERR_BUF_INVAL".into()));
        // sframe_decoder_get_fre returning SFRAME_ERR (-1, sframe-api.h) as the libsframe
        // adapter names it; a class with `: ` and no number stays a name.
        let call = ErrorClass::named("get_fre: -1");
        assert_eq!(call, ErrorClass::call("get_fre", -1));
        assert_eq!(
            ErrorClass::named("get_fre: SFRAME_ERR_FRE_INVAL"),
            ErrorClass::Named("get_fre: SFRAME_ERR_FRE_INVAL".into())
        );
        for c in [ErrorClass::Rule(Rule::FdeFreType), foreign, call] {
            let json = serde_json::to_string(&c).unwrap();
            assert_eq!(json, format!("\"{c}\""));
            assert_eq!(serde_json::from_str::<ErrorClass>(&json).unwrap(), c);
            assert_eq!(c.to_string().parse::<ErrorClass>().unwrap(), c);
        }
        assert_eq!(
            "".parse::<ErrorClass>(),
            Err(ParseError::Empty("error class"))
        );
    }
}
