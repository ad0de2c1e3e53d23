//! Reading an [`Outcome`] from its wire form without buffering it: the derived reader of an
//! internally tagged enum (`"status"` beside the variant's fields) first copies the whole
//! answer into serde's generic content tree, then reads the value from that copy; it was
//! about a third of the differential harness's own time on a fuzzer's inputs. Here the
//! answer is read in one pass into a flat record of every variant's fields, then checked
//! against its `status`. The form is the derived writer's (`#[serde(tag = "status")]` on
//! [`Outcome`]); fields that are not the status's are ignored, as the derived reader does.

use super::{Outcome, UnsupportedReason};
use crate::signature::{CrashSite, ErrorClass, Signal};
use serde::{Deserialize, Deserializer};

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
}
