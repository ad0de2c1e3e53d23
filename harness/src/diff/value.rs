//! A compared field's value, one side of a [`super::compare::FieldDiff`] and of an
//! [`super::Answer::Value`]: a number, a recovery rule, a flag, a function's error, the row a
//! look-up found, or nothing. Its text ([`Value`]'s `Display`, also its JSON) is the one the
//! reports and `--json` have always carried (a rule or row as its Rust `Debug` form);
//! [`Value::read`] reads that text back for the field it belongs to, once, where a finding's
//! claim names a value (`claim.rs`).

use crate::impls::{Found, Row};
use crate::signature::{ErrorClass, FieldPath};
use serde::{Serialize, Serializer};
use sframe_spec::{Base, Loc};
use std::fmt;

/// One side's value of a compared field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// A header field, a count, an offset or size, a type field's stored number.
    Number(i64),
    /// A CFA, RA or FP recovery rule.
    Rule(Loc),
    /// A yes/no field (`ra_mangled`).
    Flag(bool),
    /// The error a reader gave reading one function.
    Error(ErrorClass),
    /// The row a look-up found (where the other side found none).
    Found(Found),
    /// Nothing on this side: no error, no row.
    None,
}

macro_rules! numbers {
    ($($t:ty),*) => {$(
        impl From<$t> for Value {
            fn from(n: $t) -> Value {
                Value::Number(n as i64)
            }
        }
    )*};
}
numbers!(u8, i8, u32, i64, usize);

impl From<Loc> for Value {
    fn from(l: Loc) -> Value {
        Value::Rule(l)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Flag(b)
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Number(n) => write!(f, "{n}"),
            Value::Rule(l) => write!(f, "{l:?}"),
            Value::Flag(b) => write!(f, "{b}"),
            Value::Error(e) => write!(f, "{e}"),
            Value::Found(row) => write!(f, "{row:?}"),
            Value::None => f.write_str("none"),
        }
    }
}

/// The JSON of a value is its text.
impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// What a value's text does not say, for the field it was read for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ValueError {
    /// Not a number (`header.flags`, `function.start`, ...).
    NotANumber(String),
    /// Not `true` or `false` (`fre.ra_mangled`).
    NotAFlag(String),
    /// Not a recovery rule as the engine prints it (`SameValue`, `Undefined`,
    /// `Expr { base: Reg(7), offset: 8, deref: false }`).
    NotARule(String),
    /// Not a look-up's row as the engine prints it (`Found { function_start: .., .. }`) nor
    /// `none`.
    NotARow(String),
}

impl fmt::Display for ValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValueError::NotANumber(s) => write!(f, "{s:?} is not a number"),
            ValueError::NotAFlag(s) => write!(f, "{s:?} is neither true nor false"),
            ValueError::NotARule(s) => write!(
                f,
                "{s:?} is not a rule (SameValue, Undefined, Expr {{ base: Cfa|Reg(N), offset: N, deref: B }})"
            ),
            ValueError::NotARow(s) => write!(
                f,
                "{s:?} is neither none nor a row (Found {{ function_start: .., fre_start: .., row: PartialRecovery {{ .. }} }})"
            ),
        }
    }
}

impl std::error::Error for ValueError {}

impl Value {
    /// The value `text` says for `path`: the inverse of `Display` for the values the
    /// comparison gives that field.
    pub fn read(path: FieldPath, text: &str) -> Result<Value, ValueError> {
        use FieldPath::*;
        let text = text.trim();
        match path {
            FunctionError => Ok(match text {
                "none" => Value::None,
                e => Value::Error(ErrorClass::named(e)),
            }),
            FreCfa | FreRa | FreFp | RowCfa | RowRa | RowFp => loc(&mut Debug::new(text))
                .map(Value::Rule)
                .ok_or_else(|| ValueError::NotARule(text.into())),
            FreRaMangled | RowRaMangled => match text {
                "true" => Ok(Value::Flag(true)),
                "false" => Ok(Value::Flag(false)),
                _ => Err(ValueError::NotAFlag(text.into())),
            },
            Missing | Extra => match text {
                "none" => Ok(Value::None),
                _ => found(&mut Debug::new(text))
                    .map(Value::Found)
                    .ok_or_else(|| ValueError::NotARow(text.into())),
            },
            HeaderVersion
            | HeaderFlags
            | HeaderAbi
            | HeaderCfaFixedFpOffset
            | HeaderCfaFixedRaOffset
            | HeaderNumFdes
            | HeaderNumFres
            | FunctionCount
            | FunctionStart
            | FunctionSize
            | FunctionFreType
            | FunctionPcType
            | FunctionFdeType
            | FunctionRepSize
            | FunctionNumFres
            | FreCount
            | FreStart
            | FoundFunctionStart
            | FoundFreStart => text
                .parse()
                .map(Value::Number)
                .map_err(|_| ValueError::NotANumber(text.into())),
        }
    }
}

/// A reader of Rust's `Debug` text of the row types: names, numbers and punctuation, with
/// spaces between them ignored. Each step returns `None` when the text says otherwise.
struct Debug<'a> {
    rest: &'a str,
}

impl<'a> Debug<'a> {
    fn new(text: &'a str) -> Debug<'a> {
        Debug { rest: text }
    }
    /// The next token: a run of letters, digits, `_` and a leading `-`, or one other
    /// character.
    fn token(&mut self) -> Option<&'a str> {
        self.rest = self.rest.trim_start();
        let first = self.rest.chars().next()?;
        let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
        let len = if word(first) || first == '-' {
            1 + self.rest[1..]
                .find(|c| !word(c))
                .unwrap_or(self.rest.len() - 1)
        } else {
            first.len_utf8()
        };
        let (t, rest) = self.rest.split_at(len);
        self.rest = rest;
        Some(t)
    }
    fn expect(&mut self, want: &str) -> Option<()> {
        (self.token()? == want).then_some(())
    }
    /// `name: `, the next field of a struct.
    fn field(&mut self, name: &str) -> Option<()> {
        self.expect(name)?;
        self.expect(":")
    }
    fn number<T: std::str::FromStr>(&mut self) -> Option<T> {
        self.token()?.parse().ok()
    }
    fn flag(&mut self) -> Option<bool> {
        self.token()?.parse().ok()
    }
    /// `Some(x)` or `None`, `x` read by `inner`.
    fn option<T>(&mut self, inner: impl FnOnce(&mut Self) -> Option<T>) -> Option<Option<T>> {
        match self.token()? {
            "None" => Some(None),
            "Some" => {
                self.expect("(")?;
                let x = inner(self)?;
                self.expect(")")?;
                Some(Some(x))
            }
            _ => None,
        }
    }
    fn end(&mut self) -> Option<()> {
        self.rest.trim().is_empty().then_some(())
    }
}

fn loc(d: &mut Debug<'_>) -> Option<Loc> {
    let l = loc_in(d)?;
    d.end()?;
    Some(l)
}

fn loc_in(d: &mut Debug<'_>) -> Option<Loc> {
    match d.token()? {
        "SameValue" => Some(Loc::SameValue),
        "Undefined" => Some(Loc::Undefined),
        "Expr" => {
            d.expect("{")?;
            d.field("base")?;
            let base = match d.token()? {
                "Cfa" => Base::Cfa,
                "Reg" => {
                    d.expect("(")?;
                    let r = d.number()?;
                    d.expect(")")?;
                    Base::Reg(r)
                }
                _ => return None,
            };
            d.expect(",")?;
            d.field("offset")?;
            let offset = d.number()?;
            d.expect(",")?;
            d.field("deref")?;
            let deref = d.flag()?;
            d.expect("}")?;
            Some(Loc::Expr {
                base,
                offset,
                deref,
            })
        }
        _ => None,
    }
}

fn found(d: &mut Debug<'_>) -> Option<Found> {
    d.expect("Found")?;
    d.expect("{")?;
    d.field("function_start")?;
    let function_start = d.option(|d| d.number())?;
    d.expect(",")?;
    d.field("fre_start")?;
    let fre_start = d.option(|d| d.number())?;
    d.expect(",")?;
    d.field("row")?;
    d.expect("PartialRecovery")?;
    d.expect("{")?;
    let rule = |d: &mut Debug<'_>, name: &str| {
        d.field(name)?;
        let l = d.option(loc_in)?;
        d.expect(",")?;
        Some(l)
    };
    let cfa = rule(d, "cfa")?;
    let ra = rule(d, "ra")?;
    let fp = rule(d, "fp")?;
    d.field("ra_mangled")?;
    let ra_mangled = d.option(|d| d.flag())?;
    d.expect("}")?;
    d.expect("}")?;
    d.end()?;
    Some(Found {
        function_start,
        fre_start,
        row: Row {
            cfa,
            ra,
            fp,
            ra_mangled,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The texts the reports and `--json` have always carried for each kind of value (as
    /// the findings' claims quote them), and each read back for its field.
    #[test]
    fn each_value_reads_as_before_and_back() {
        let row = Found {
            function_start: Some(3222),
            fre_start: Some(65535),
            row: Row {
                cfa: Some(Loc::Undefined),
                ra: Some(Loc::Undefined),
                fp: Some(Loc::SameValue),
                ra_mangled: Some(false),
            },
        };
        let cases: Vec<(FieldPath, Value, &str)> = vec![
            (FieldPath::HeaderFlags, Value::from(2u8), "2"),
            (FieldPath::FunctionStart, Value::from(-46932i64), "-46932"),
            (FieldPath::FunctionCount, Value::from(0usize), "0"),
            (FieldPath::FreRa, Value::from(Loc::SameValue), "SameValue"),
            (FieldPath::FreCfa, Value::from(Loc::Undefined), "Undefined"),
            (
                FieldPath::FreRa,
                Value::from(Loc::Expr {
                    base: Base::Cfa,
                    offset: -8,
                    deref: true,
                }),
                "Expr { base: Cfa, offset: -8, deref: true }",
            ),
            (
                FieldPath::RowCfa,
                Value::from(Loc::Expr {
                    base: Base::Reg(4294967281),
                    offset: 0,
                    deref: false,
                }),
                "Expr { base: Reg(4294967281), offset: 0, deref: false }",
            ),
            (FieldPath::FreRaMangled, Value::from(true), "true"),
            (
                FieldPath::FunctionError,
                Value::Error(ErrorClass::call("get_fre", -1)),
                "get_fre: -1",
            ),
            (FieldPath::FunctionError, Value::None, "none"),
            (FieldPath::Missing, Value::None, "none"),
            (
                FieldPath::Extra,
                Value::Found(row),
                "Found { function_start: Some(3222), fre_start: Some(65535), row: PartialRecovery { cfa: Some(Undefined), ra: Some(Undefined), fp: Some(SameValue), ra_mangled: Some(false) } }",
            ),
            (
                FieldPath::Missing,
                Value::Found(Found::default()),
                "Found { function_start: None, fre_start: None, row: PartialRecovery { cfa: None, ra: None, fp: None, ra_mangled: None } }",
            ),
        ];
        for (path, v, text) in cases {
            assert_eq!(v.to_string(), text, "{v:?}");
            assert_eq!(
                serde_json::to_value(&v).expect("JSON"),
                serde_json::json!(text)
            );
            assert_eq!(Value::read(path, text), Ok(v), "{path} {text}");
        }
    }

    #[test]
    fn text_of_another_kind_is_refused_for_the_field() {
        assert_eq!(
            Value::read(FieldPath::HeaderFlags, "SameValue"),
            Err(ValueError::NotANumber("SameValue".into()))
        );
        assert_eq!(
            Value::read(FieldPath::FreRa, "2"),
            Err(ValueError::NotARule("2".into()))
        );
        assert_eq!(
            Value::read(FieldPath::FreRa, "Expr { base: Cfa, offset: -8 }"),
            Err(ValueError::NotARule(
                "Expr { base: Cfa, offset: -8 }".into()
            ))
        );
        assert_eq!(
            Value::read(FieldPath::FreRa, "SameValue trailing"),
            Err(ValueError::NotARule("SameValue trailing".into()))
        );
        assert_eq!(
            Value::read(FieldPath::RowRaMangled, "yes"),
            Err(ValueError::NotAFlag("yes".into()))
        );
        assert_eq!(
            Value::read(FieldPath::Extra, "Found {"),
            Err(ValueError::NotARow("Found {".into()))
        );
    }
}
