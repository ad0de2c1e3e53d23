//! The compact form of a `decode_find` answer between `sframe-worker` and the harness: the
//! same [`Outcome`]s as the JSON form, in a little-endian binary record carried on the
//! protocol's line as base64 behind a `~`. A `decode` answer's JSON is about ten times the
//! section it describes (every rule of every row spelled out), and writing it in the worker
//! and reading it here was most of a worker request's own CPU time.
//!
//! A worker whose hello says `compact` is sent `decode_find` requests with `"compact":true`;
//! it answers those whose halves are both plain answers as `~DECODE~FINDS` (each half its
//! own base64 record), and every other (a crash, a half asked alone) in JSON, as before: the
//! harness reads either ([`read_decode_find`]). `SFRAME_ANSWERS=json` in the harness's
//! environment asks for JSON always (debugging; `process`).
//!
//! The record: an outcome is a byte, 0 for `ok` followed by its value, 1 for any other
//! status followed by that outcome's JSON text (length-prefixed; rare, and so exactly what
//! the JSON form says). Integers are LEB128 (signed ones zigzag), each optional field's
//! presence a bit of a leading mask, a list its length then its items, an error class its
//! JSON text, a look-up's outcome that is not `ok` and the previous look-up's the byte 2. A
//! rule is one byte (kind, `deref`, base `cfa`) then its register and offset.

use super::{Decoded, Found, FreFacts, FunctionFacts, HeaderFacts, Outcome, Row};
use crate::signature::ErrorClass;
use serde::Serialize;
use sframe_spec::{Base, Loc, Stored, TypeCode};

/// A look-up's outcome that is not `ok` and is the previous look-up's (a section that is
/// refused is refused at every PC).
const SAME: u8 = 2;

/// What begins a compact answer or half (base64 never has it; JSON begins with `{`).
pub const MARK: char = '~';

/// The answers of a `decode_find` request.
pub type Halves = (Outcome<Decoded>, Outcome<Vec<Outcome<Option<Found>>>>);

/// The compact `decode` half.
pub fn decode_half(o: &Outcome<Decoded>) -> String {
    let mut w = Writer::default();
    w.outcome(o, |w, d| w.decoded(d));
    w.text()
}

/// The compact `find_fre` half.
pub fn finds_half(o: &Outcome<Vec<Outcome<Option<Found>>>>) -> String {
    let mut w = Writer::default();
    w.outcome(o, |w, finds| {
        w.uint(finds.len() as u64);
        for (k, f) in finds.iter().enumerate() {
            if k > 0 && f.value().is_none() && finds[k - 1] == *f {
                w.byte(SAME);
                continue;
            }
            w.outcome(f, |w, f| match f {
                None => w.byte(0),
                Some(f) => {
                    w.byte(1);
                    w.found(f);
                }
            });
        }
    });
    w.text()
}

/// Whether `text` is a compact answer or half.
pub fn is_compact(text: &str) -> bool {
    text.starts_with(MARK)
}

/// The `decode` half `text` (compact) as its outcome.
pub fn read_decode_half(text: &str) -> Result<Outcome<Decoded>, String> {
    let bytes = unmark(text)?;
    let mut r = Reader::new(&bytes);
    let o = r.outcome(|r| r.decoded())?;
    r.end()?;
    Ok(o)
}

/// The `find_fre` half `text` (compact) as its outcome.
pub fn read_finds_half(text: &str) -> Result<Outcome<Vec<Outcome<Option<Found>>>>, String> {
    let bytes = unmark(text)?;
    let mut r = Reader::new(&bytes);
    let o = r.outcome(|r| {
        let n = r.uint()?;
        let mut v: Vec<Outcome<Option<Found>>> = Vec::with_capacity(r.room(n));
        for _ in 0..n {
            if r.peek() == Some(SAME) {
                r.at += 1;
                match v.last() {
                    Some(last) if last.value().is_none() => v.push(last.clone()),
                    _ => return Err("a repeat of no failed look-up".into()),
                }
                continue;
            }
            v.push(r.outcome(|r| match r.byte()? {
                0 => Ok(None),
                1 => r.found().map(Some),
                b => Err(format!("option byte {b}")),
            })?);
        }
        Ok(v)
    })?;
    r.end()?;
    Ok(o)
}

/// A compact `decode_find` answer (`~DECODE~FINDS`) as its two halves.
pub fn read_decode_find(text: &str) -> Result<Halves, String> {
    let rest = text.strip_prefix(MARK).ok_or("not a compact answer")?;
    let i = rest
        .find(MARK)
        .ok_or("a compact answer without its find_fre half")?;
    Ok((read_decode_half(&text[..=i])?, read_finds_half(&rest[i..])?))
}

fn unmark(text: &str) -> Result<Vec<u8>, String> {
    let b64 = text.strip_prefix(MARK).ok_or("not a compact answer")?;
    base64_decode(b64).ok_or_else(|| "a compact answer that is not base64".to_string())
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Base64 (RFC 4648 §4 alphabet, no padding).
fn base64_encode(bytes: &[u8], out: &mut String) {
    out.reserve(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for k in 0..=chunk.len() {
            out.push(B64[(n >> (18 - 6 * k) & 63) as usize] as char);
        }
    }
}

fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let mut six = [0xffu8; 256];
    for (i, &c) in B64.iter().enumerate() {
        six[c as usize] = i as u8;
    }
    let t = text.as_bytes();
    if t.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(t.len() / 4 * 3 + 2);
    for chunk in t.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            let v = six[c as usize];
            if v == 0xff {
                return None;
            }
            n |= u32::from(v) << (18 - 6 * i);
        }
        for k in 0..chunk.len() - 1 {
            out.push((n >> (16 - 8 * k)) as u8);
        }
    }
    Some(out)
}

#[derive(Default)]
struct Writer {
    buf: Vec<u8>,
}

impl Writer {
    fn text(&self) -> String {
        let mut s = String::from(MARK);
        base64_encode(&self.buf, &mut s);
        s
    }
    fn byte(&mut self, b: u8) {
        self.buf.push(b);
    }
    fn uint(&mut self, mut v: u64) {
        loop {
            let low = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                self.buf.push(low);
                return;
            }
            self.buf.push(low | 0x80);
        }
    }
    fn int(&mut self, v: i64) {
        self.uint(((v << 1) ^ (v >> 63)) as u64);
    }
    fn bytes(&mut self, b: &[u8]) {
        self.uint(b.len() as u64);
        self.buf.extend_from_slice(b);
    }
    fn outcome<T: Serialize>(&mut self, o: &Outcome<T>, value: impl FnOnce(&mut Writer, &T)) {
        match o {
            Outcome::Ok { value: v } => {
                self.byte(0);
                value(self, v);
            }
            other => {
                self.byte(1);
                // Without a value: what `Outcome<()>` writes, and reads back.
                let json = serde_json::to_string(other).unwrap_or_default();
                self.bytes(json.as_bytes());
            }
        }
    }
    fn decoded(&mut self, d: &Decoded) {
        let h = &d.header;
        let mask = bits(&[
            h.version.is_some(),
            h.flags.is_some(),
            h.abi.is_some(),
            h.cfa_fixed_fp_offset.is_some(),
            h.cfa_fixed_ra_offset.is_some(),
            h.num_fdes.is_some(),
            h.num_fres.is_some(),
        ]);
        self.byte(mask);
        for b in [h.version, h.flags, h.abi].into_iter().flatten() {
            self.byte(b);
        }
        for b in [h.cfa_fixed_fp_offset, h.cfa_fixed_ra_offset]
            .into_iter()
            .flatten()
        {
            self.byte(b as u8);
        }
        for n in [h.num_fdes, h.num_fres].into_iter().flatten() {
            self.uint(n.into());
        }
        self.uint(d.functions.len() as u64);
        for f in &d.functions {
            self.function(f);
        }
    }
    fn function(&mut self, f: &FunctionFacts) {
        self.byte(bits(&[
            f.start.is_some(),
            f.size.is_some(),
            f.fre_type.is_some(),
            f.pc_type.is_some(),
            f.fde_type.is_some(),
            f.rep_size.is_some(),
            f.num_fres.is_some(),
            f.error.is_some(),
        ]));
        if let Some(s) = f.start {
            self.int(s);
        }
        if let Some(s) = f.size {
            self.uint(s.into());
        }
        let codes = [
            f.fre_type.map(Stored::code),
            f.pc_type.map(Stored::code),
            f.fde_type.map(Stored::code),
            f.rep_size,
        ];
        for c in codes.into_iter().flatten() {
            self.byte(c);
        }
        if let Some(n) = f.num_fres {
            self.uint(n.into());
        }
        if let Some(e) = &f.error {
            let json = serde_json::to_string(e).unwrap_or_default();
            self.bytes(json.as_bytes());
        }
        self.uint(f.fres.len() as u64);
        for fre in &f.fres {
            self.byte(u8::from(fre.start.is_some()));
            if let Some(s) = fre.start {
                self.uint(s.into());
            }
            self.row(&fre.row);
        }
    }
    fn found(&mut self, f: &Found) {
        self.byte(bits(&[f.function_start.is_some(), f.fre_start.is_some()]));
        if let Some(s) = f.function_start {
            self.int(s);
        }
        if let Some(s) = f.fre_start {
            self.uint(s.into());
        }
        self.row(&f.row);
    }
    fn row(&mut self, r: &Row) {
        self.byte(bits(&[
            r.cfa.is_some(),
            r.ra.is_some(),
            r.fp.is_some(),
            r.ra_mangled.is_some(),
            r.ra_mangled == Some(true),
        ]));
        for l in [r.cfa, r.ra, r.fp].into_iter().flatten() {
            self.loc(l);
        }
    }
    fn loc(&mut self, l: Loc) {
        match l {
            Loc::SameValue => self.byte(1),
            Loc::Undefined => self.byte(2),
            Loc::Expr {
                base,
                offset,
                deref,
            } => {
                self.byte(bits(&[false, false, deref, base == Base::Cfa]));
                if let Base::Reg(n) = base {
                    self.uint(n.into());
                }
                self.int(offset);
            }
        }
    }
}

/// A mask of `flags`, the first the lowest bit.
fn bits(flags: &[bool]) -> u8 {
    flags
        .iter()
        .enumerate()
        .fold(0, |m, (i, &f)| m | u8::from(f) << i)
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

type Got<T> = Result<T, String>;

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, at: 0 }
    }
    fn end(&self) -> Got<()> {
        if self.at == self.bytes.len() {
            Ok(())
        } else {
            Err(format!(
                "{} bytes past the end of a compact answer",
                self.bytes.len() - self.at
            ))
        }
    }
    /// A capacity for `n` items of at least a byte each: no more than the bytes left.
    fn room(&self, n: u64) -> usize {
        (n as usize).min(self.bytes.len() - self.at)
    }
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }
    fn byte(&mut self) -> Got<u8> {
        let b = *self
            .bytes
            .get(self.at)
            .ok_or("a compact answer ends early")?;
        self.at += 1;
        Ok(b)
    }
    fn uint(&mut self) -> Got<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err("a number of more than 64 bits".into())
    }
    fn int(&mut self) -> Got<i64> {
        let u = self.uint()?;
        Ok((u >> 1) as i64 ^ -((u & 1) as i64))
    }
    fn u32(&mut self) -> Got<u32> {
        let v = self.uint()?;
        u32::try_from(v).map_err(|_| format!("{v} does not fit 32 bits"))
    }
    fn text(&mut self) -> Got<&'a str> {
        let n = self.uint()? as usize;
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or("a compact answer ends early")?;
        let t = std::str::from_utf8(&self.bytes[self.at..end]).map_err(|e| e.to_string())?;
        self.at = end;
        Ok(t)
    }
    fn outcome<T>(&mut self, value: impl FnOnce(&mut Self) -> Got<T>) -> Got<Outcome<T>> {
        match self.byte()? {
            0 => Ok(Outcome::ok(value(self)?)),
            1 => match serde_json::from_str::<Outcome<()>>(self.text()?) {
                Ok(Outcome::Ok { .. }) => Err("an ok outcome without its value".into()),
                Ok(o) => Ok(o.map(|()| unreachable!("not ok"))),
                Err(e) => Err(e.to_string()),
            },
            b => Err(format!("outcome byte {b}")),
        }
    }
    fn opt<T>(&mut self, mask: u8, bit: u8, f: impl FnOnce(&mut Self) -> Got<T>) -> Got<Option<T>> {
        if mask & 1 << bit != 0 {
            f(self).map(Some)
        } else {
            Ok(None)
        }
    }
    fn decoded(&mut self) -> Got<Decoded> {
        let m = self.byte()?;
        let mut header = HeaderFacts {
            version: self.opt(m, 0, Self::byte)?,
            flags: self.opt(m, 1, Self::byte)?,
            abi: self.opt(m, 2, Self::byte)?,
            ..HeaderFacts::default()
        };
        header.cfa_fixed_fp_offset = self.opt(m, 3, |r| r.byte().map(|b| b as i8))?;
        header.cfa_fixed_ra_offset = self.opt(m, 4, |r| r.byte().map(|b| b as i8))?;
        header.num_fdes = self.opt(m, 5, Self::u32)?;
        header.num_fres = self.opt(m, 6, Self::u32)?;
        let n = self.uint()?;
        let mut functions = Vec::with_capacity(self.room(n));
        for _ in 0..n {
            functions.push(self.function()?);
        }
        Ok(Decoded { header, functions })
    }
    fn stored<T: TypeCode>(&mut self) -> Got<Stored<T>> {
        self.byte().map(Stored::from)
    }
    fn function(&mut self) -> Got<FunctionFacts> {
        let m = self.byte()?;
        let mut f = FunctionFacts {
            start: self.opt(m, 0, Self::int)?,
            size: self.opt(m, 1, Self::u32)?,
            fre_type: self.opt(m, 2, Self::stored)?,
            pc_type: self.opt(m, 3, Self::stored)?,
            fde_type: self.opt(m, 4, Self::stored)?,
            rep_size: self.opt(m, 5, Self::byte)?,
            num_fres: self.opt(m, 6, Self::u32)?,
            ..FunctionFacts::default()
        };
        f.error = self.opt(m, 7, |r| {
            serde_json::from_str::<ErrorClass>(r.text()?).map_err(|e| e.to_string())
        })?;
        let n = self.uint()?;
        f.fres = Vec::with_capacity(self.room(n));
        for _ in 0..n {
            let m = self.byte()?;
            let start = self.opt(m, 0, Self::u32)?;
            f.fres.push(FreFacts {
                start,
                row: self.row()?,
            });
        }
        Ok(f)
    }
    fn found(&mut self) -> Got<Found> {
        let m = self.byte()?;
        Ok(Found {
            function_start: self.opt(m, 0, Self::int)?,
            fre_start: self.opt(m, 1, Self::u32)?,
            row: self.row()?,
        })
    }
    fn row(&mut self) -> Got<Row> {
        let m = self.byte()?;
        Ok(Row {
            cfa: self.opt(m, 0, Self::loc)?,
            ra: self.opt(m, 1, Self::loc)?,
            fp: self.opt(m, 2, Self::loc)?,
            ra_mangled: (m & 1 << 3 != 0).then_some(m & 1 << 4 != 0),
        })
    }
    fn loc(&mut self) -> Got<Loc> {
        let b = self.byte()?;
        Ok(match b {
            1 => Loc::SameValue,
            2 => Loc::Undefined,
            b if b & !0b1100 == 0 => {
                let base = if b & 0b1000 != 0 {
                    Base::Cfa
                } else {
                    Base::Reg(self.u32()?)
                };
                Loc::Expr {
                    base,
                    offset: self.int()?,
                    deref: b & 0b100 != 0,
                }
            }
            b => return Err(format!("rule byte {b}")),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::pcs_for;
    use crate::impls::reference::Reference;
    use crate::impls::Implementation;
    use crate::input::{corpus_cases, corpus_dir};
    use crate::signature::{CrashSite, Signal};
    use sframe_spec::{FreType, PcType};

    fn round_trip(d: &Outcome<Decoded>, f: &Outcome<Vec<Outcome<Option<Found>>>>) {
        let text = format!("{}{}", decode_half(d), finds_half(f));
        assert!(!text.contains('\n'));
        let (d2, f2) = read_decode_find(&text).unwrap();
        assert_eq!(&d2, d);
        assert_eq!(&f2, f);
    }

    /// Every section of the corpus as the reference reads it, and its rows at the PCs the
    /// differential engine looks up, read back as written.
    #[test]
    fn the_corpus_as_the_reference_answers_it_reads_back_as_written() {
        let cases = corpus_cases(&corpus_dir());
        assert!(cases.len() > 100, "{} corpus sections", cases.len());
        let mut rows = 0;
        for c in &cases {
            let decoded = Reference.decode(&c.data);
            let pcs = pcs_for(&c.data, decoded.value(), 256);
            let finds = Outcome::ok(Reference.find_fres(&c.data, &pcs));
            rows += decoded.value().map_or(0, |d| {
                d.functions.iter().map(|f| f.fres.len()).sum::<usize>()
            });
            round_trip(&decoded, &finds);
        }
        assert!(rows > 1000, "{rows} rows");
    }

    /// What the reference never answers: every status, a function's error class, undefined
    /// stored types, every rule and base, negative and extreme numbers.
    #[test]
    fn every_status_rule_and_field_reads_back_as_written() {
        let row = Row {
            cfa: Some(Loc::Expr {
                base: Base::Reg(u32::MAX),
                offset: i64::MIN,
                deref: false,
            }),
            ra: Some(Loc::Expr {
                base: Base::Cfa,
                offset: -8,
                deref: true,
            }),
            fp: Some(Loc::SameValue),
            ra_mangled: Some(false),
        };
        let function = FunctionFacts {
            start: Some(-4448),
            size: Some(u32::MAX),
            fre_type: Some(Stored::Undefined(7)),
            pc_type: Some(Stored::Defined(PcType::Mask)),
            fde_type: Some(Stored::from(0)),
            rep_size: Some(255),
            num_fres: Some(2),
            fres: vec![
                FreFacts {
                    start: Some(0),
                    row,
                },
                FreFacts {
                    start: None,
                    row: Row {
                        ra: Some(Loc::Undefined),
                        ra_mangled: Some(true),
                        ..Row::default()
                    },
                },
            ],
            error: Some(ErrorClass::from("get_fre: -1")),
        };
        let decoded = Decoded {
            header: HeaderFacts {
                version: Some(3),
                abi: Some(1),
                cfa_fixed_fp_offset: Some(-128),
                num_fres: Some(0),
                ..HeaderFacts::default()
            },
            functions: vec![
                function,
                FunctionFacts {
                    fre_type: Some(Stored::Defined(FreType::Addr2)),
                    ..FunctionFacts::default()
                },
            ],
        };
        let found = Found {
            function_start: Some(i64::MAX),
            fre_start: Some(4),
            row,
        };
        let crashed = Outcome::Crashed {
            signal: Signal::named("SIGSEGV"),
            site: Some(CrashSite::Function("sframe_decode".into())),
            repeated: Some(false),
            detail: Some("nondeterministic: a \"quoted\"\nline".into()),
        };
        let others: Vec<Outcome<()>> = vec![
            Outcome::rejected("SFRAME_ERR_BUF_INVAL", Some("d".into())),
            Outcome::rejected(sframe_spec::Rule::FdeFreType, None),
            Outcome::unsupported("v9"),
            crashed.clone(),
            Outcome::crashed(Signal::Exit(3), None),
            Outcome::Hung { timeout_ms: 7 },
        ];
        let finds = Outcome::ok(vec![
            Outcome::ok(Some(found)),
            Outcome::ok(None),
            crashed.clone().map(|()| None),
            Outcome::Hung { timeout_ms: 1 },
            Outcome::Hung { timeout_ms: 1 },
            Outcome::Hung { timeout_ms: 2 },
            Outcome::ok(None),
            Outcome::ok(None),
        ]);
        round_trip(&Outcome::ok(decoded), &finds);
        round_trip(&Outcome::ok(Decoded::default()), &Outcome::ok(vec![]));
        for o in others {
            let d = o.clone().map(|()| Decoded::default());
            let f = o.map(|()| Vec::new());
            round_trip(&d, &f);
        }
    }

    #[test]
    fn a_broken_compact_answer_is_an_error_not_a_panic() {
        let good = format!(
            "{}{}",
            decode_half(&Outcome::ok(Decoded::default())),
            finds_half(&Outcome::ok(vec![Outcome::ok(None)]))
        );
        assert!(read_decode_find(&good).is_ok());
        for bad in [
            "~",
            "~~",
            "~AAA",
            "~A~A",
            "~AAA~",
            "{\"status\":\"ok\"}",
            "~!!!!~AAAA",
            &good[..good.len() - 2],
            &format!("{good}AAAA"),
        ] {
            assert!(read_decode_find(bad).is_err(), "{bad}");
        }
        // A repeat of no look-up, or of one that found a row, is refused.
        for bytes in [[0u8, 1, SAME].as_slice(), &[0, 2, 0, 0, SAME]] {
            let mut s = String::from(MARK);
            base64_encode(bytes, &mut s);
            assert!(read_finds_half(&s).is_err(), "{bytes:?}");
        }
        // Every byte string, cut anywhere, is read or refused.
        let bytes: Vec<u8> = (0..=255u8).collect();
        for n in 0..bytes.len() {
            let mut s = String::from(MARK);
            base64_encode(&bytes[n..], &mut s);
            let _ = read_decode_half(&s);
            let _ = read_finds_half(&s);
        }
    }

    #[test]
    fn base64_is_rfc_4648s() {
        // RFC 4648 §10's test vectors, without their padding.
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg"),
            ("fo", "Zm8"),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg"),
            ("fooba", "Zm9vYmE"),
            ("foobar", "Zm9vYmFy"),
        ] {
            let mut s = String::new();
            base64_encode(plain.as_bytes(), &mut s);
            assert_eq!(s, coded);
            assert_eq!(base64_decode(coded).unwrap(), plain.as_bytes());
        }
        assert!(base64_decode("Z").is_none());
        assert!(base64_decode("Zm=v").is_none());
    }
}
