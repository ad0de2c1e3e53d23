//! A producer check's CFI shape: where a file's SFrame rows and its own CFI disagree (the
//! CFI's rule and the row's), and why no SFrame row can say what the CFI says, when none can.
//! It is a crosscheck signature's shape part and, in `produce`, an oracle signature's
//! function part.

use super::{named, text_serde, ParseError};
use std::fmt;
use std::str::FromStr;

named! {
    /// Why no SFrame row can give a CFI row, by the spec crate's model (a producer must then
    /// leave the function out).
    pub enum Unexpressible {
        /// RA undefined (the outermost frame): v1 has no such row.
        RaUndefinedV1 = "ra-undefined-v1",
        /// The CFA is a DWARF expression that does not reduce to register + offset.
        CfaExpression = "cfa-expression",
        /// The CFA is based on a register other than SP and FP (before v3's flexible FDEs).
        CfaBaseNotSpFp = "cfa-base-not-sp-fp",
        /// The CFA is the word at an address (before v3's flexible FDEs).
        CfaDeref = "cfa-deref",
        /// s390x: a CFA offset that is not a multiple of 8 has no encoding.
        CfaOffsetUnalignedS390x = "cfa-offset-unaligned-s390x",
        FpUndefined = "fp-undefined",
        FpExpression = "fp-expression",
        FpNotInCfaSlot = "fp-not-in-cfa-slot",
        RaExpression = "ra-expression",
        /// AMD64 before v3: the RA is always at CFA - 8.
        RaNotAtCfa8 = "ra-not-at-cfa-8",
        RaNotInCfaSlot = "ra-not-in-cfa-slot",
        /// AMD64 has no mangled return addresses.
        RaMangledAmd64 = "ra-mangled-amd64",
        /// Not the CFI's: the object has no `.sframe` section at all (`produce`'s count).
        NoSframeSection = "no-sframe-section",
    }
}

/// A disagreement's CFI shape: `[plt-]<rule>[@unexpressible-<why>][@fre-start-not-code-aligned]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Shape {
    /// In a PLT section.
    pub plt: bool,
    /// The CFI's rule against the row's (`cfi-cfa-sp-offset`, `cfi-fde-without-fres`).
    pub rule: String,
    /// Why no SFrame row can give the CFI there, if none can.
    pub unexpressible: Option<Unexpressible>,
    /// An SFrame row of the function starts where the CFI's code alignment factor puts no
    /// row.
    pub unaligned: bool,
}

const PLT: &str = "plt-";
const UNEXPRESSIBLE: &str = "@unexpressible-";
const UNALIGNED: &str = "@fre-start-not-code-aligned";

impl Shape {
    /// The shape of `rule`, with why no row can give it.
    pub fn new(rule: impl Into<String>, unexpressible: Option<Unexpressible>) -> Shape {
        Shape {
            plt: false,
            rule: rule.into(),
            unexpressible,
            unaligned: false,
        }
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.plt {
            f.write_str(PLT)?;
        }
        f.write_str(&self.rule)?;
        if let Some(why) = self.unexpressible {
            write!(f, "{UNEXPRESSIBLE}{why}")?;
        }
        if self.unaligned {
            f.write_str(UNALIGNED)?;
        }
        Ok(())
    }
}

impl FromStr for Shape {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Shape, ParseError> {
        if s.is_empty() {
            return Err(ParseError::Empty("shape"));
        }
        let (s, unaligned) = match s.strip_suffix(UNALIGNED) {
            Some(rest) => (rest, true),
            None => (s, false),
        };
        let (s, unexpressible) = match s.split_once(UNEXPRESSIBLE) {
            Some((rest, why)) => (
                rest,
                Some(
                    Unexpressible::from_name(why)
                        .ok_or_else(|| ParseError::UnknownUnexpressible(why.into()))?,
                ),
            ),
            None => (s, None),
        };
        let (rule, plt) = match s.strip_prefix(PLT) {
            Some(rest) => (rest, true),
            None => (s, false),
        };
        if rule.is_empty() || rule.contains('@') {
            return Err(ParseError::BadShape(s.into()));
        }
        Ok(Shape {
            plt,
            rule: rule.into(),
            unexpressible,
            unaligned,
        })
    }
}

text_serde!(Shape);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shape_names_its_parts_and_prints_back() {
        let s: Shape =
            "plt-cfi-cfa-reg-sp@unexpressible-cfa-base-not-sp-fp@fre-start-not-code-aligned"
                .parse()
                .unwrap();
        assert!(s.plt && s.unaligned);
        assert_eq!(s.rule, "cfi-cfa-reg-sp");
        assert_eq!(s.unexpressible, Some(Unexpressible::CfaBaseNotSpFp));
        assert_eq!(
            s.to_string(),
            "plt-cfi-cfa-reg-sp@unexpressible-cfa-base-not-sp-fp@fre-start-not-code-aligned"
        );
        assert_eq!(
            "cfi-fp-cfa-slot-offset".parse(),
            Ok(Shape::new("cfi-fp-cfa-slot-offset", None))
        );
        assert!("cfi-x@unexpressible-why-not".parse::<Shape>().is_err());
        assert!("plt-".parse::<Shape>().is_err());
        assert!("cfi-x@other".parse::<Shape>().is_err());
    }
}
