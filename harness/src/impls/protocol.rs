//! The JSON-lines protocol between the harness and an implementation in another process.
//!
//! One request per line on the program's stdin, one response per line on its stdout, in
//! order. Section bytes travel as lowercase hex. `sframe-worker` speaks it for the
//! implementations it hosts (GNU libsframe through `dlopen`, or any in-library adapter), and
//! so may any external program (the README documents it; `harness/examples/external-adapter.py`
//! is an example). Requests:
//!
//! ```text
//! {"op":"hello"}
//! {"op":"decode","data":"e2de0201..."}
//! {"op":"find_fre","data":"e2de0201...","pcs":[0,4,16]}
//! {"op":"decode_find","data":"e2de0201...","pcs":[0,4,16]}           (sframe-worker)
//! {"op":"decode_find","data":"...","pcs":[...],"compact":true}         (sframe-worker)
//! {"op":"encode","model":{...sframe_spec::Section as JSON...}}        (optional)
//! {"op":"bench","data":"...","pcs":[...],"rounds":10}                  (optional)
//! ```
//!
//! Every response is an [`Outcome`]: `{"status":"ok","value":...}`,
//! `{"status":"rejected","class":"...","detail":"..."}` or
//! `{"status":"unsupported","reason":"..."}`. The value of `hello` is a [`Hello`]; of `decode`
//! a [`Decoded`]; of `find_fre` an array with one `Outcome<Found | null>` per PC; of
//! `decode_find` a [`DecodeFind`], both answers at once (asked of `sframe-worker` only:
//! an external program is asked `decode` and `find_fre`); of `encode`
//! the section's bytes as hex; of `bench` a [`BenchTiming`]. A server whose hello says
//! `"compact":true` (`sframe-worker`) is sent `decode_find` requests with `"compact":true`,
//! answered in the [`compact`] form when both halves are plain answers.

use super::{compact, BenchTiming, Decoded, Found, Implementation, Outcome, UnsupportedReason};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use sframe_gen::hex;
use sframe_spec::{Section, Version};
use std::io::{BufRead, Write};

/// A request.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Request {
    Hello,
    Decode {
        data: String,
    },
    FindFre {
        data: String,
        pcs: Vec<i64>,
    },
    DecodeFind {
        data: String,
        pcs: Vec<i64>,
        /// Answer in the compact form ([`compact`]) when both halves are plain answers
        /// (asked of a worker whose hello says `compact`).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        compact: bool,
    },
    Encode {
        model: Section,
    },
    Bench {
        data: String,
        pcs: Vec<i64>,
        rounds: u32,
    },
}

/// The value of a `hello` response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hello {
    pub name: String,
    pub version: String,
    /// SFrame format versions the implementation reads.
    pub versions: Vec<u8>,
    /// It answers `decode_find` requests that ask for it in the compact form ([`compact`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub compact: bool,
}

/// The value of a `decode_find` response: what `decode` and `find_fre` would answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DecodeFind {
    pub decode: Outcome<Decoded>,
    pub finds: Outcome<Vec<Outcome<Option<Found>>>>,
}

/// A `decode_find` request line as the `decode` and the `find_fre` request lines it stands
/// for (a server that answers them one at a time, as `sframe-worker` does); `None` for any
/// other request.
pub fn split_decode_find(line: &str) -> Option<(String, String)> {
    match serde_json::from_str::<Request>(line) {
        Ok(Request::DecodeFind { data, pcs, .. }) => {
            let find = json(&Request::FindFre {
                data: data.clone(),
                pcs,
            });
            Some((json(&Request::Decode { data }), find))
        }
        _ => None,
    }
}

/// The `decode_find` response made of the `decode` and `find_fre` responses (JSON texts,
/// taken as written; one that is not JSON makes the whole a protocol error): compact when
/// either is, the other (a crash, a half asked alone: small) rewritten in the compact form,
/// else JSON. A compact `decode` half is about a tenth of its JSON, so one crashed half does
/// not cost the other's JSON, written here and read back in the harness.
pub fn join_decode_find(decode: &str, finds: &str) -> String {
    use serde_json::value::RawValue;
    match (compact::is_compact(decode), compact::is_compact(finds)) {
        (true, true) => return format!("{decode}{finds}"),
        (false, false) => {}
        (true, false) => {
            return match serde_json::from_str::<Outcome<Vec<Outcome<Option<Found>>>>>(finds) {
                Ok(o) => format!("{decode}{}", compact::finds_half(&o)),
                Err(e) => json(&protocol_error::<()>(&e, finds)),
            }
        }
        (false, true) => {
            return match serde_json::from_str::<Outcome<Decoded>>(decode) {
                Ok(o) => format!("{}{finds}", compact::decode_half(&o)),
                Err(e) => json(&protocol_error::<()>(&e, decode)),
            }
        }
    }
    #[derive(Serialize)]
    struct Halves<'a> {
        decode: &'a RawValue,
        finds: &'a RawValue,
    }
    let raw = |text| {
        serde_json::from_str::<&RawValue>(text).map_err(|e| json(&protocol_error::<()>(&e, text)))
    };
    match (raw(decode), raw(finds)) {
        (Ok(decode), Ok(finds)) => json(&Outcome::ok(Halves { decode, finds })),
        (Err(bad), _) | (_, Err(bad)) => bad,
    }
}

/// A `find_fre` request line of more than one PC, as its section (hex) and PCs: what
/// [`finds_one_at_a_time`] asks again PC by PC when the request fails as a whole; `None` for
/// any other request.
pub fn split_find(line: &str) -> Option<(String, Vec<i64>)> {
    match serde_json::from_str::<Request>(line) {
        Ok(Request::FindFre { data, pcs }) if pcs.len() > 1 => Some((data, pcs)),
        _ => None,
    }
}

/// The `find_fre` request line of the section `hex` at `pc` alone.
pub fn find_line(hex: &str, pc: i64) -> String {
    json(&Request::FindFre {
        data: hex.to_string(),
        pcs: vec![pc],
    })
}

/// One outcome per PC, each asked alone with `ask` (the answer to a `find_fre` request of
/// that PC), after a request for all of `pcs` failed as a whole (a crash or a hang): the
/// failing PCs are found, giving up after three failures. The harness does this for an
/// external program, `sframe-worker` for the library it hosts (in one exchange with the
/// harness).
pub fn finds_one_at_a_time(
    pcs: &[i64],
    mut ask: impl FnMut(i64) -> FindResponse,
) -> Vec<Outcome<Option<Found>>> {
    let mut failures = 0;
    pcs.iter()
        .map(|&pc| {
            if failures >= 3 {
                return Outcome::Unsupported {
                    reason: UnsupportedReason::NotAsked,
                };
            }
            match ask(pc).map(|mut v| v.pop()) {
                Outcome::Ok { value: Some(o) } => o,
                Outcome::Ok { value: None } => Outcome::unsupported("empty answer"),
                other => {
                    if other.is_failure() {
                        failures += 1;
                    }
                    other.map(|_| None)
                }
            }
        })
        .collect()
}

/// A `decode_find` answer line, compact or JSON, read back; `Err` says why it is not one.
pub fn read_decode_find(text: &str) -> Result<Outcome<DecodeFind>, String> {
    if compact::is_compact(text) {
        let (decode, finds) = compact::read_decode_find(text)?;
        return Ok(Outcome::ok(DecodeFind { decode, finds }));
    }
    serde_json::from_str(text).map_err(|e| e.to_string())
}

/// An answer line read back as `T`; a line that is not one is a protocol error.
pub fn parse_answer<T: DeserializeOwned>(text: &str) -> Outcome<T> {
    serde_json::from_str::<Outcome<T>>(text).unwrap_or_else(|e| protocol_error(&e, text))
}

/// The outcome of an answer line `text` that could not be read: `e`, and how it begins.
pub fn protocol_error<T>(e: &impl std::fmt::Display, text: &str) -> Outcome<T> {
    let head: String = text.chars().take(200).collect();
    Outcome::protocol_error(format!("{e}: {head}"))
}

/// Answer one request with `imp`, as a JSON line (without the newline).
pub fn answer(imp: &dyn Implementation, line: &str) -> String {
    match serde_json::from_str(line) {
        Ok(req) => answer_request(imp, req),
        Err(e) => json(&Outcome::<()>::unsupported(format!("unknown request: {e}"))),
    }
}

/// The answer to a request already parsed: [`answer`]'s.
pub fn answer_request(imp: &dyn Implementation, req: Request) -> String {
    match req {
        Request::Hello => json(&Outcome::ok(Hello {
            name: imp.name(),
            version: imp.version(),
            versions: Version::ALL
                .into_iter()
                .filter(|v| imp.supports(*v))
                .map(Version::number)
                .collect(),
            compact: true,
        })),
        Request::Decode { data } => match hex::decode(&data) {
            Some(d) => json(&imp.decode(&d)),
            None => json(&bad_hex()),
        },
        Request::FindFre { data, pcs } => match hex::decode(&data) {
            Some(d) => json(&Outcome::ok(imp.find_fres(&d, &pcs))),
            None => json(&bad_hex()),
        },
        Request::DecodeFind { data, pcs, compact } => match hex::decode(&data) {
            Some(d) if compact => {
                let (decode, finds) = imp.decode_and_find(&d, &pcs);
                let mut a = compact::decode_half(&decode);
                a.push_str(&compact::finds_half(&Outcome::ok(finds)));
                a
            }
            Some(d) => {
                let (decode, finds) = imp.decode_and_find(&d, &pcs);
                json(&Outcome::ok(DecodeFind {
                    decode,
                    finds: Outcome::ok(finds),
                }))
            }
            None => json(&bad_hex()),
        },
        Request::Encode { model } => json(&imp.encode(&model).map(|b| hex::encode(&b))),
        Request::Bench { data, pcs, rounds } => match hex::decode(&data) {
            Some(d) => json(&imp.bench_find(&d, &pcs, rounds)),
            None => json(&bad_hex()),
        },
    }
}

fn bad_hex() -> Outcome<()> {
    Outcome::rejected("protocol", Some("data is not hex".into()))
}

/// The answers to the `decode` and `find_fre` halves of a `decode_find` request on `data`
/// (hex) at `pcs`, each what [`answer`] gives that request ([`split_decode_find`]), the hex
/// decoded once, each in the compact form when `compact` (see [`join_decode_find`]).
/// `decode_done` is given the `decode` half before the `find_fre` half is asked (a server
/// says or records it first, so that a crash on the second half finds it said).
pub fn answer_decode_find(
    imp: &dyn Implementation,
    data: &str,
    pcs: &[i64],
    compact: bool,
    decode_done: impl FnOnce(&str),
) -> (String, String) {
    let Some(d) = hex::decode(data) else {
        let a = json(&bad_hex());
        decode_done(&a);
        return (a.clone(), a);
    };
    let decode = imp.decode(&d);
    let decode = if compact {
        compact::decode_half(&decode)
    } else {
        json(&decode)
    };
    decode_done(&decode);
    let finds = Outcome::ok(imp.find_fres(&d, pcs));
    let find = if compact {
        compact::finds_half(&finds)
    } else {
        json(&finds)
    };
    (decode, find)
}

/// Whether `line` is a `decode_find` request (its other fields unread).
pub fn is_decode_find(line: &str) -> bool {
    #[derive(Deserialize)]
    struct Op<'a> {
        #[serde(borrow)]
        op: &'a str,
    }
    serde_json::from_str::<Op>(line).is_ok_and(|o| o.op == "decode_find")
}

fn json<T: Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_else(|e| {
        let o = Outcome::<()>::rejected("protocol", Some(e.to_string()));
        // An outcome of strings always serializes; were it not to, the empty line is a
        // protocol error where it is read.
        serde_json::to_string(&o).unwrap_or_default()
    })
}

/// Serve requests from `input` until it ends.
pub fn serve(
    imp: &dyn Implementation,
    input: impl BufRead,
    output: impl Write,
) -> std::io::Result<()> {
    serve_with(input, output, |line| Ok(answer(imp, line)))
}

/// The protocol's loop: each non-blank request line of `input` answered by `respond` as one
/// line of `output`, flushed at once, until `input` ends.
pub fn serve_with(
    input: impl BufRead,
    mut output: impl Write,
    mut respond: impl FnMut(&str) -> std::io::Result<String>,
) -> std::io::Result<()> {
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let resp = respond(&line)?;
        output.write_all(resp.as_bytes())?;
        output.write_all(b"\n")?;
        output.flush()?;
    }
    Ok(())
}

/// Response types, for the client side.
pub type DecodeResponse = Outcome<Decoded>;
pub type FindResponse = Outcome<Vec<Outcome<Option<Found>>>>;
pub type BenchResponse = Outcome<BenchTiming>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signature::{CrashSite, Signal};

    #[test]
    fn a_decode_find_request_is_its_decode_and_find_fre_requests() {
        let line = r#"{"op":"decode_find","data":"e2de02","pcs":[0,-4]}"#;
        let (decode, find) = split_decode_find(line).unwrap();
        assert!(matches!(
            serde_json::from_str::<Request>(&decode).unwrap(),
            Request::Decode { data } if data == "e2de02"
        ));
        assert!(matches!(
            serde_json::from_str::<Request>(&find).unwrap(),
            Request::FindFre { data, pcs } if data == "e2de02" && pcs == [0, -4]
        ));
        assert!(split_decode_find(r#"{"op":"decode","data":"00"}"#).is_none());
        // The halves' answers joined: a decode_find answer, each half as it was.
        let joined = join_decode_find(
            r#"{"status":"crashed","signal":"SIGSEGV"}"#,
            r#"{"status":"ok","value":[{"status":"ok","value":null}]}"#,
        );
        let o: Outcome<DecodeFind> = serde_json::from_str(&joined).unwrap();
        let Outcome::Ok { value } = o else {
            panic!("not ok: {joined}")
        };
        assert!(
            matches!(value.decode, Outcome::Crashed { ref signal, .. } if *signal == Signal::Named("SIGSEGV".into()))
        );
        assert!(matches!(value.finds, Outcome::Ok { ref value } if value.len() == 1));
    }

    #[test]
    fn a_compact_half_beside_a_json_half_keeps_the_answer_compact() {
        let decoded = Outcome::ok(Decoded {
            functions: vec![Default::default()],
            ..Decoded::default()
        });
        let crash = r#"{"status":"crashed","signal":"SIGSEGV","site":"sframe_find_fre","repeated":true,"detail":"d"}"#;
        let finds: Outcome<Vec<Outcome<Option<Found>>>> = serde_json::from_str(crash).unwrap();
        // A decode half that ran, then a find_fre half that crashed.
        let joined = join_decode_find(&compact::decode_half(&decoded), crash);
        assert!(compact::is_compact(&joined), "{joined}");
        let Outcome::Ok { value } = read_decode_find(&joined).unwrap() else {
            panic!("not ok: {joined}")
        };
        assert_eq!((value.decode, value.finds), (decoded.clone(), finds));
        // A decode half that crashed, then a find_fre half that ran.
        let ran = Outcome::ok(vec![Outcome::ok(None)]);
        let decode: Outcome<Decoded> = serde_json::from_str(crash).unwrap();
        let joined = join_decode_find(crash, &compact::finds_half(&ran));
        assert!(compact::is_compact(&joined), "{joined}");
        let Outcome::Ok { value } = read_decode_find(&joined).unwrap() else {
            panic!("not ok: {joined}")
        };
        assert_eq!((value.decode, value.finds), (decode, ran));
        // A half that is not an answer makes the whole a protocol error, as in JSON.
        let bad = join_decode_find(&compact::decode_half(&decoded), "{");
        assert!(
            matches!(read_decode_find(&bad), Ok(o) if o.value().is_none()),
            "{bad}"
        );
    }

    #[test]
    fn outcome_json_shape_is_the_documented_one() {
        let o: Outcome<u8> = Outcome::rejected("X", None);
        assert_eq!(
            serde_json::to_string(&o).unwrap(),
            r#"{"status":"rejected","class":"X"}"#
        );
        // A rule travels as its ID (FDE-FRE-TYPE: the catalogue's ID for an undefined FRE
        // type), and reads back as that rule.
        let line = r#"{"status":"rejected","class":"FDE-FRE-TYPE"}"#;
        let o: Outcome<u8> = Outcome::rejected(sframe_spec::Rule::FdeFreType, None);
        assert_eq!(serde_json::to_string(&o).unwrap(), line);
        assert_eq!(serde_json::from_str::<Outcome<u8>>(line).unwrap(), o);
        // A crash: its signal and site by their names, whether it repeated; a line with
        // the signal alone is still read.
        let line = r#"{"status":"crashed","signal":"SIGSEGV","site":"sframe_decode","repeated":true,"detail":"d"}"#;
        let o: Outcome<u8> = serde_json::from_str(line).unwrap();
        assert_eq!(
            o,
            Outcome::Crashed {
                signal: Signal::Named("SIGSEGV".into()),
                site: Some(CrashSite::Function("sframe_decode".into())),
                repeated: Some(true),
                detail: Some("d".into()),
            }
        );
        assert_eq!(serde_json::to_string(&o).unwrap(), line);
        let o: Outcome<u8> =
            serde_json::from_str(r#"{"status":"crashed","signal":"exit 3"}"#).unwrap();
        assert_eq!(o, Outcome::crashed(Signal::Exit(3), None));
        let o: Outcome<Option<u8>> = Outcome::ok(None);
        assert_eq!(
            serde_json::to_string(&o).unwrap(),
            r#"{"status":"ok","value":null}"#
        );
    }

    #[test]
    fn function_types_travel_as_their_numbers() {
        use crate::impls::FunctionFacts;
        use sframe_spec::{FdeType, PcType, Stored};
        // The README's example function line, types as numbers; 7 is no FRE type.
        let line = r#"{"fre_type":7,"pc_type":1,"fde_type":0,"fres":[]}"#;
        let f: FunctionFacts = serde_json::from_str(line).unwrap();
        assert_eq!(f.fre_type, Some(Stored::Undefined(7)));
        assert_eq!(f.pc_type, Some(Stored::Defined(PcType::Mask)));
        assert_eq!(f.fde_type, Some(Stored::Defined(FdeType::Default)));
        assert_eq!(serde_json::to_string(&f).unwrap(), line);
        // A number that is no byte is refused, as before.
        assert!(serde_json::from_str::<FunctionFacts>(r#"{"pc_type":256}"#).is_err());
        assert!(serde_json::from_str::<FunctionFacts>(r#"{"pc_type":"Mask"}"#).is_err());
    }
}
