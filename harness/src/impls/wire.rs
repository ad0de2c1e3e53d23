//! Reading an [`Outcome`] from its wire form without buffering it: the derived reader of an
//! internally tagged enum (`"status"` beside the variant's fields) first copies the whole
//! answer into serde's generic content tree, then reads the value from that copy; it was
//! about a third of the differential harness's own time on a fuzzer's inputs. Here the
//! answer is read in one pass into a flat record of every variant's fields, then checked
//! against its `status`. The form is the derived writer's (`#[serde(tag = "status")]` on
//! [`Outcome`]); fields that are not the status's are ignored, as the derived reader does.
//!
//! Rows ([`FreFacts`], [`Found`]) are read the same way: the derived reader of a struct with
//! a `#[serde(flatten)]` field (the row's rules beside the entry's own fields) also copies
//! every entry into that content tree first, and a decode answer holds one per row. Here the
//! entry's fields and the row's are read into one flat record, and each rule ([`Loc`],
//! tagged by its `"rule"` field) into another.

use super::{Found, FreFacts, Outcome, Row, UnsupportedReason};
use crate::signature::{CrashSite, ErrorClass, Signal};
use serde::{Deserialize, Deserializer};
use sframe_spec::{Base, Loc};

/// The statuses, as written.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum Status {
    Ok,
    Rejected,
    Unsupported,
    Crashed,
    Hung,
}

/// Every variant's fields, each present or not.
#[derive(Deserialize)]
#[serde(bound = "T: Deserialize<'de>")]
struct Flat<T> {
    status: Status,
    /// Present (`Some`) whenever written, even as `null` (an `Outcome<()>`'s value).
    #[serde(default, deserialize_with = "present")]
    value: Option<T>,
    #[serde(default)]
    class: Option<ErrorClass>,
    #[serde(default)]
    detail: Option<String>,
    #[serde(default)]
    reason: Option<UnsupportedReason>,
    #[serde(default)]
    signal: Option<Signal>,
    #[serde(default)]
    site: Option<CrashSite>,
    #[serde(default)]
    repeated: Option<bool>,
    #[serde(default)]
    timeout_ms: Option<u64>,
}

fn present<'de, T: Deserialize<'de>, D: Deserializer<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Outcome<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let f = Flat::<T>::deserialize(d)?;
        let missing = |field: &'static str| D::Error::missing_field(field);
        Ok(match f.status {
            Status::Ok => Outcome::Ok {
                value: f.value.ok_or_else(|| missing("value"))?,
            },
            Status::Rejected => Outcome::Rejected {
                class: f.class.ok_or_else(|| missing("class"))?,
                detail: f.detail,
            },
            Status::Unsupported => Outcome::Unsupported {
                reason: f.reason.ok_or_else(|| missing("reason"))?,
            },
            Status::Crashed => Outcome::Crashed {
                signal: f.signal.ok_or_else(|| missing("signal"))?,
                site: f.site,
                repeated: f.repeated,
                detail: f.detail,
            },
            Status::Hung => Outcome::Hung {
                timeout_ms: f.timeout_ms.ok_or_else(|| missing("timeout_ms"))?,
            },
        })
    }
}

/// A row entry's fields and its row's ([`Row`]), flat: what `FreFacts` and `Found` write.
#[derive(Deserialize)]
struct FlatRow {
    #[serde(default)]
    start: Option<u32>,
    #[serde(default)]
    function_start: Option<i64>,
    #[serde(default)]
    fre_start: Option<u32>,
    #[serde(default)]
    cfa: Option<WireLoc>,
    #[serde(default)]
    ra: Option<WireLoc>,
    #[serde(default)]
    fp: Option<WireLoc>,
    #[serde(default)]
    ra_mangled: Option<bool>,
}

/// The rules, as written.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum Rule {
    Expr,
    SameValue,
    Undefined,
}

/// Every rule's fields, each present or not (see the module docs).
#[derive(Deserialize)]
struct FlatLoc {
    rule: Rule,
    #[serde(default)]
    base: Option<Base>,
    #[serde(default)]
    offset: Option<i64>,
    #[serde(default)]
    deref: Option<bool>,
}

/// A [`Loc`] read in one pass.
struct WireLoc(Loc);

impl<'de> Deserialize<'de> for WireLoc {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let f = FlatLoc::deserialize(d)?;
        let missing = |field: &'static str| D::Error::missing_field(field);
        Ok(WireLoc(match f.rule {
            Rule::Expr => Loc::Expr {
                base: f.base.ok_or_else(|| missing("base"))?,
                offset: f.offset.ok_or_else(|| missing("offset"))?,
                deref: f.deref.ok_or_else(|| missing("deref"))?,
            },
            Rule::SameValue => Loc::SameValue,
            Rule::Undefined => Loc::Undefined,
        }))
    }
}

impl FlatRow {
    fn row(&self) -> Row {
        let loc = |l: &Option<WireLoc>| l.as_ref().map(|l| l.0);
        Row {
            cfa: loc(&self.cfa),
            ra: loc(&self.ra),
            fp: loc(&self.fp),
            ra_mangled: self.ra_mangled,
        }
    }
}

impl<'de> Deserialize<'de> for FreFacts {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let f = FlatRow::deserialize(d)?;
        Ok(FreFacts {
            start: f.start,
            row: f.row(),
        })
    }
}

impl<'de> Deserialize<'de> for Found {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let f = FlatRow::deserialize(d)?;
        Ok(Found {
            function_start: f.function_start,
            fre_start: f.fre_start,
            row: f.row(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The wire form of each status, written by hand from the protocol's description
    /// (`protocol`'s module docs), and what it reads as.
    #[test]
    fn every_status_reads_as_written_and_a_missing_field_is_an_error() {
        let read = |s: &str| serde_json::from_str::<Outcome<Vec<u8>>>(s);
        assert_eq!(
            read(r#"{"status":"ok","value":[1,2]}"#).unwrap(),
            Outcome::ok(vec![1, 2])
        );
        assert_eq!(
            read(r#"{"value":[],"status":"ok","detail":"ignored"}"#).unwrap(),
            Outcome::ok(vec![])
        );
        assert_eq!(
            serde_json::from_str::<Outcome<()>>(r#"{"status":"ok","value":null}"#).unwrap(),
            Outcome::ok(())
        );
        assert_eq!(
            read(r#"{"status":"rejected","class":"SFRAME_ERR_BUF_INVAL"}"#).unwrap(),
            Outcome::rejected(ErrorClass::from("SFRAME_ERR_BUF_INVAL"), None)
        );
        assert_eq!(
            read(r#"{"status":"unsupported","reason":"v9"}"#).unwrap(),
            Outcome::unsupported("v9")
        );
        assert_eq!(
            read(r#"{"status":"crashed","signal":"SIGSEGV","repeated":true,"detail":"d"}"#)
                .unwrap(),
            Outcome::Crashed {
                signal: Signal::named("SIGSEGV"),
                site: None,
                repeated: Some(true),
                detail: Some("d".into())
            }
        );
        assert_eq!(
            read(r#"{"status":"hung","timeout_ms":7}"#).unwrap(),
            Outcome::Hung { timeout_ms: 7 }
        );
        for bad in [
            r#"{"status":"ok"}"#,
            r#"{"status":"rejected"}"#,
            r#"{"status":"crashed"}"#,
            r#"{"status":"hung"}"#,
            r#"{"status":"gone","value":[]}"#,
            r#"{"value":[]}"#,
        ] {
            assert!(read(bad).is_err(), "{bad}");
        }
    }

    /// A row as the README's protocol section writes it, by hand, read as written; a rule
    /// missing a field of its own is an error, as with the derived reader.
    #[test]
    fn rows_and_rules_read_as_the_readme_writes_them() {
        let fre: FreFacts = serde_json::from_str(
            r#"{"start":4,"cfa":{"rule":"expr","base":{"reg":7},"offset":8,"deref":false},
               "ra":{"rule":"expr","base":"cfa","offset":-8,"deref":true},
               "fp":{"rule":"same_value"},"ra_mangled":false,"other":[1]}"#,
        )
        .unwrap();
        let expected = FreFacts {
            start: Some(4),
            row: Row {
                cfa: Some(Loc::Expr {
                    base: Base::Reg(7),
                    offset: 8,
                    deref: false,
                }),
                ra: Some(Loc::Expr {
                    base: Base::Cfa,
                    offset: -8,
                    deref: true,
                }),
                fp: Some(Loc::SameValue),
                ra_mangled: Some(false),
            },
        };
        assert_eq!(fre, expected);
        let found: Found = serde_json::from_str(
            r#"{"function_start":-4448,"fre_start":0,"ra":{"rule":"undefined"},"fp":null}"#,
        )
        .unwrap();
        assert_eq!(
            found,
            Found {
                function_start: Some(-4448),
                fre_start: Some(0),
                row: Row {
                    ra: Some(Loc::Undefined),
                    ..Row::default()
                },
            }
        );
        assert_eq!(
            serde_json::from_str::<Found>("{}").unwrap(),
            Found::default()
        );
        for bad in [
            r#"{"cfa":{"rule":"expr","base":"cfa","deref":true}}"#,
            r#"{"cfa":{"base":"cfa","offset":1,"deref":true}}"#,
            r#"{"cfa":{"rule":"register"}}"#,
            r#"{"start":-1}"#,
        ] {
            assert!(serde_json::from_str::<FreFacts>(bad).is_err(), "{bad}");
        }
    }
}
