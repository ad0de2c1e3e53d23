//! An implementation in another process, spoken to over the JSON-lines [`protocol`].
//!
//! Used for GNU libsframe (hosted by `sframe-worker`, one process per release) and for
//! external programs. The process ([`sframe_run::LineProcess`]) is started lazily and again
//! after it dies; every request has a time limit, and a crash or a hang is settled by the
//! suite's one retry policy ([`sframe_run::Policy`]: tried once more on a fresh process,
//! with [`HANG_RETRY_FACTOR`] times the limit after a hang): the outcome is
//! [`Outcome::Crashed`] with its signal, whether it repeated, and the site the last lines
//! the process wrote to stderr name (assertion messages, for example: read once, here where
//! the death is seen; those lines go into the detail) or [`Outcome::Hung`]. An answer line
//! of a crash that names no site has the one its detail names (an external program may
//! give only text).
//!
//! [`protocol`]: super::protocol

use super::protocol::{
    finds_one_at_a_time, protocol_error, read_decode_find, DecodeFind, Hello, Request,
};
use super::{BenchTiming, Decoded, Found, Hosting, Implementation, Outcome, Pipelined};
use serde::de::DeserializeOwned;
use sframe_gen::hex;
use sframe_run::{Failure, LineProcess as Running, Policy, Try};
use sframe_spec::{Section, Version};
use std::collections::VecDeque;
use std::ffi::OsString;
use std::process::Command;
use std::sync::Mutex;
use std::time::Duration;

use crate::signature::Signal;
pub use sframe_run::{DEFAULT_TIMEOUT, HANG_RETRY_FACTOR};

/// How to start the process.
#[derive(Debug, Clone)]
pub struct Launch {
    pub program: OsString,
    pub args: Vec<OsString>,
    pub env: Vec<(OsString, OsString)>,
    pub timeout: Duration,
}

impl Launch {
    pub fn new(program: impl Into<OsString>) -> Launch {
        Launch {
            program: program.into(),
            args: Vec::new(),
            env: Vec::new(),
            timeout: DEFAULT_TIMEOUT,
        }
    }
    pub fn arg(mut self, a: impl Into<OsString>) -> Launch {
        self.args.push(a.into());
        self
    }
    pub fn timeout(mut self, t: Duration) -> Launch {
        self.timeout = t;
        self
    }
    /// A shell-like command line split on whitespace (no quoting), for `--external`.
    pub fn from_command_line(cmd: &str) -> Option<Launch> {
        let mut parts = cmd.split_whitespace();
        let program = parts.next()?;
        let mut l = Launch::new(program);
        for p in parts {
            l = l.arg(p);
        }
        Some(l)
    }
    fn describe(&self) -> String {
        let mut s = self.program.to_string_lossy().into_owned();
        for a in &self.args {
            s.push(' ');
            s.push_str(&a.to_string_lossy());
        }
        s
    }
    /// Start the process.
    fn start(&self) -> std::io::Result<Running> {
        let mut cmd = Command::new(&self.program);
        cmd.args(&self.args);
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        Running::start(&mut cmd)
    }
    /// The retry policy with this time limit.
    fn policy(&self) -> Policy {
        Policy::new(self.timeout)
    }
}

/// The process of a [`ProcessImpl`], and the requests begun on it whose answers are still
/// to be taken ([`Pipelined::decode_and_find_begin`]), in the order they were begun.
#[derive(Default)]
struct Slot {
    process: Option<Running>,
    pending: VecDeque<Pending>,
}

/// A `decode_find` request begun and not yet ended.
struct Pending {
    line: String,
    hex: String,
    data: Vec<u8>,
    pcs: Vec<i64>,
    /// Written to the process, its answer still to be read; when not, it is asked when it
    /// is ended, as `decode_and_find` asks.
    sent: bool,
}

/// At most this many requests are written ahead of the answers read, and at most this many
/// bytes of them: however the process is blocked writing a long answer, the requests fit
/// in its input pipe (16 pages of 4 KiB on Linux, each write taking part of one more), so
/// writing one never waits for it and the two cannot wait for each other.
const AHEAD: usize = 4;
const AHEAD_BYTES: usize = 32 << 10;

impl Slot {
    /// The process, with no answer left to read: the answers of the requests sent ahead are
    /// read and dropped (the process answers in order), and those requests are asked again
    /// when they are ended.
    fn settled(&mut self, timeout: Duration) -> Option<Running> {
        let mut r = self.process.take();
        for p in self.pending.iter_mut().filter(|p| p.sent) {
            p.sent = false;
            r = r.and_then(|r| r.receive(timeout).0);
        }
        r
    }

    /// Whether another request line of `len` bytes may be written behind those in flight
    /// (see [`AHEAD`]).
    fn room_for(&self, len: usize) -> bool {
        let sent = self.pending.iter().filter(|p| p.sent);
        let (n, bytes) = sent.fold((0, 0), |(n, b), p| (n + 1, b + p.line.len() + 1));
        n == 0 || (n < AHEAD && bytes + len < AHEAD_BYTES)
    }
}

/// An implementation behind a process.
pub struct ProcessImpl {
    launch: Launch,
    hosting: Hosting,
    hello: Hello,
    /// Ask for `decode_find` answers in the compact form (`compact`): when the hello
    /// offers it, unless `SFRAME_ANSWERS=json` (or [`ProcessImpl::json_answers`]).
    compact: bool,
    running: Mutex<Slot>,
}

impl std::fmt::Debug for ProcessImpl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProcessImpl")
            .field("launch", &self.launch)
            .field("hello", &self.hello)
            .finish()
    }
}

impl ProcessImpl {
    /// Start the process and ask who it is.
    pub fn start(launch: Launch, hosting: Hosting) -> Result<ProcessImpl, String> {
        let what = launch.describe();
        let r = launch
            .start()
            .map_err(|e| format!("cannot start `{what}`: {e}"))?;
        let line = serde_json::to_string(&Request::Hello).map_err(|e| e.to_string())?;
        let (r, resp) = r.request(&line, launch.timeout);
        let resp = resp.map_err(|f| format!("`{what}` did not answer hello: {f:?}"))?;
        let hello = match serde_json::from_str::<Outcome<Hello>>(&resp) {
            Ok(Outcome::Ok { value }) => value,
            Ok(other) => return Err(format!("`{what}` refused hello: {other:?}")),
            Err(e) => return Err(format!("`{what}` answered hello with {resp:?}: {e}")),
        };
        let json_only = std::env::var_os("SFRAME_ANSWERS").is_some_and(|v| v == "json");
        Ok(ProcessImpl {
            launch,
            hosting,
            compact: hello.compact && !json_only,
            hello,
            running: Mutex::new(Slot {
                process: r,
                pending: VecDeque::new(),
            }),
        })
    }

    pub fn hello(&self) -> &Hello {
        &self.hello
    }

    /// The same, asking for answers in JSON only (to compare them with the compact form's).
    pub fn json_answers(mut self) -> ProcessImpl {
        self.compact = false;
        self
    }

    /// Whether `decode_find` answers are asked for in the compact form.
    pub fn compact(&self) -> bool {
        self.compact
    }

    fn call_once(&self, line: &str) -> Try<String> {
        self.call_within(line, self.launch.timeout)
    }

    /// [`ProcessImpl::call_once`] with the time limit `timeout`.
    fn call_within(&self, line: &str, timeout: Duration) -> Try<String> {
        let mut guard = self.running.lock().unwrap_or_else(|e| e.into_inner());
        let r = match guard.settled(self.launch.timeout) {
            Some(r) => r,
            None => self.launch.start().map_err(|e| Failure::Crashed {
                signal: Signal::Other("spawn failed".into()),
                repeated: None,
                detail: Some(e.to_string()),
            })?,
        };
        let (r, resp) = r.request(line, timeout);
        guard.process = r;
        resp
    }

    /// The oldest request begun, when it is the `decode_find` of `data` at `pcs`, and its
    /// answer when it was sent (read as [`ProcessImpl::call_once`] reads its answer). Another
    /// section's (a caller that ends requests in another order than it began them): every
    /// request begun is dropped, their answers read, and `None`.
    fn receive_pending(&self, data: &[u8], pcs: &[i64]) -> Option<(Pending, Option<Try<String>>)> {
        let mut guard = self.running.lock().unwrap_or_else(|e| e.into_inner());
        let p = guard.pending.pop_front()?;
        if p.data != data || p.pcs != pcs {
            guard.pending.push_front(p);
            guard.process = guard.settled(self.launch.timeout);
            guard.pending.clear();
            return None;
        }
        if !p.sent {
            return Some((p, None));
        }
        let Some(r) = guard.process.take() else {
            return Some((
                p,
                Some(Err(Failure::Crashed {
                    signal: Signal::ProtocolError,
                    repeated: None,
                    detail: Some("no process for a pending request".into()),
                })),
            ));
        };
        // When the process died or hung on it, the requests sent after it went with it:
        // the retry (`settle`) takes them back first (`Slot::settled`).
        let (r, resp) = r.receive(self.launch.timeout);
        guard.process = r;
        Some((p, Some(resp)))
    }

    /// Write the requests begun and not yet sent, oldest first, as long as they fit behind
    /// those in flight ([`AHEAD`]); the others are sent later, or asked when ended. One for a
    /// process that cannot be started or written to is left to `decode_and_find_end`, which
    /// asks as `decode_and_find` does (and so says how it failed).
    fn send_ahead(&self, slot: &mut Slot) {
        for k in 0..slot.pending.len() {
            if slot.pending[k].sent {
                continue;
            }
            if !slot.room_for(slot.pending[k].line.len() + 1) {
                return;
            }
            let r = match slot.process.take() {
                Some(r) => Some(r),
                None => self.launch.start().ok(),
            };
            let Some(mut r) = r else { return };
            if r.send(&slot.pending[k].line).is_err() {
                // Gone, with the answers of the requests sent before.
                r.kill();
                for q in slot.pending.iter_mut() {
                    q.sent = false;
                }
                return;
            }
            slot.pending[k].sent = true;
            slot.process = Some(r);
        }
    }

    /// Send a request and parse the answer as `T`; a crash is retried once on a fresh process.
    fn call<T: DeserializeOwned>(&self, req: &Request) -> Outcome<T> {
        let line = match serde_json::to_string(req) {
            Ok(l) => l,
            Err(e) => return Outcome::unsupported(format!("cannot encode request: {e}")),
        };
        let first = self.call_once(&line);
        self.settle(&line, first, read_json)
    }

    /// The outcome of the request `line` from its first answer `first`: a hang or a crash is
    /// retried once on a fresh process (see the module docs), an answer is read with `read`.
    fn settle<T>(
        &self,
        line: &str,
        first: Try<String>,
        read: fn(&str) -> Result<Outcome<T>, String>,
    ) -> Outcome<T> {
        // The process that ran out of time, or died, is gone: the retries go to a fresh one.
        let resp = self
            .launch
            .policy()
            .settle_after(first, |limit| self.call_within(line, limit));
        match resp {
            Ok(text) => match read(&text) {
                Ok(o) => with_site(o),
                Err(e) => {
                    // Out of sync: start afresh next time.
                    if let Some(r) = self
                        .running
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .process
                        .take()
                    {
                        r.kill();
                    }
                    protocol_error(&e, &text)
                }
            },
            Err(Failure::Crashed {
                signal,
                repeated,
                detail,
            }) => Outcome::crashed_with_report(signal, repeated, detail),
            Err(Failure::Hung { timeout_ms }) => Outcome::Hung { timeout_ms },
        }
    }
}

/// An answer line read as `T` (JSON).
fn read_json<T: DeserializeOwned>(text: &str) -> Result<Outcome<T>, String> {
    serde_json::from_str(text).map_err(|e| e.to_string())
}

/// An answer line's outcome, a crash that names no site given the one its detail names
/// (an external program may give only text; `sframe-worker` names its crashes' sites).
fn with_site<T>(o: Outcome<T>) -> Outcome<T> {
    match o {
        Outcome::Crashed {
            signal,
            site: None,
            repeated,
            detail,
        } => Outcome::crashed_with_report(signal, repeated, detail),
        o => o,
    }
}

impl Drop for ProcessImpl {
    fn drop(&mut self) {
        if let Some(r) = self
            .running
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .process
            .take()
        {
            r.kill();
        }
    }
}

impl Implementation for ProcessImpl {
    fn name(&self) -> String {
        self.hello.name.clone()
    }
    fn version(&self) -> String {
        self.hello.version.clone()
    }
    fn supports(&self, version: Version) -> bool {
        self.hello.versions.contains(&version.number())
    }
    fn hosting(&self) -> Hosting {
        self.hosting
    }
    fn decode(&self, data: &[u8]) -> Outcome<Decoded> {
        self.call(&Request::Decode {
            data: hex::encode(data),
        })
    }
    fn find_fre(&self, data: &[u8], pc: i64) -> Outcome<Option<Found>> {
        let mut v = self.find_fres(data, &[pc]);
        v.pop()
            .unwrap_or_else(|| Outcome::unsupported("empty answer"))
    }
    fn find_fres(&self, data: &[u8], pcs: &[i64]) -> Vec<Outcome<Option<Found>>> {
        if pcs.is_empty() {
            return Vec::new();
        }
        let hex = hex::encode(data);
        let answer = self.call::<Vec<Outcome<Option<Found>>>>(&Request::FindFre {
            data: hex.clone(),
            pcs: pcs.to_vec(),
        });
        self.finds_from(hex, pcs, answer)
    }
    fn decode_and_find(
        &self,
        data: &[u8],
        pcs: &[i64],
    ) -> (Outcome<Decoded>, Vec<Outcome<Option<Found>>>) {
        // One request, whose halves are what `decode` and `find_fre` requests get (crashes
        // included); when it fails as a whole (the process died or hung, or a program
        // without `decode_find`), the two separate requests say which half failed and how.
        // Only `sframe-worker` has it: it answers each half with its own crash handling, where
        // an external program that crashes would take the whole request down, and be asked
        // (and crash) twice.
        if self.hosting != Hosting::Worker {
            return (self.decode(data), self.find_fres(data, pcs));
        }
        let hex = hex::encode(data);
        let req = Request::DecodeFind {
            data: hex.clone(),
            pcs: pcs.to_vec(),
            compact: self.compact,
        };
        let answer = match serde_json::to_string(&req) {
            Ok(line) => {
                let first = self.call_once(&line);
                self.settle(&line, first, read_decode_find)
            }
            Err(e) => Outcome::unsupported(format!("cannot encode request: {e}")),
        };
        self.decode_find_from(data, pcs, hex, answer)
    }
    fn pipelined(&self) -> Option<&dyn Pipelined> {
        (self.hosting == Hosting::Worker).then_some(self)
    }
    fn encode(&self, model: &Section) -> Outcome<Vec<u8>> {
        match self.call::<String>(&Request::Encode {
            model: model.clone(),
        }) {
            Outcome::Ok { value } => match hex::decode(&value) {
                Some(b) => Outcome::ok(b),
                None => Outcome::protocol_error("encode answer is not hex"),
            },
            other => other.map(|_| Vec::new()),
        }
    }
    fn bench_find(&self, data: &[u8], pcs: &[i64], rounds: u32) -> Outcome<BenchTiming> {
        self.call(&Request::Bench {
            data: hex::encode(data),
            pcs: pcs.to_vec(),
            rounds,
        })
    }
}

/// A worker is asked ahead of its answers (see `Slot`); an external program is not (its
/// `decode_and_find` is two requests).
impl Pipelined for ProcessImpl {
    fn decode_and_find_begin(&self, data: &[u8], pcs: &[i64]) {
        let hex = hex::encode(data);
        let Ok(line) = serde_json::to_string(&Request::DecodeFind {
            data: hex.clone(),
            pcs: pcs.to_vec(),
            compact: self.compact,
        }) else {
            return;
        };
        let mut guard = self.running.lock().unwrap_or_else(|e| e.into_inner());
        let pending = Pending {
            line,
            hex,
            data: data.to_vec(),
            pcs: pcs.to_vec(),
            sent: false,
        };
        guard.pending.push_back(pending);
        self.send_ahead(&mut guard);
    }
    fn decode_and_find_end(
        &self,
        data: &[u8],
        pcs: &[i64],
    ) -> (Outcome<Decoded>, Vec<Outcome<Option<Found>>>) {
        match self.receive_pending(data, pcs) {
            Some((p, Some(first))) => {
                let answer = self.settle(&p.line, first, read_decode_find);
                self.decode_find_from(data, pcs, p.hex, answer)
            }
            Some((_, None)) => {
                // Begun but not sent: asked now, and those begun after it sent as they fit.
                let answer = self.decode_and_find(data, pcs);
                self.send_ahead(&mut self.running.lock().unwrap_or_else(|e| e.into_inner()));
                answer
            }
            // Nothing begun, or another section's (see `receive_pending`).
            None => self.decode_and_find(data, pcs),
        }
    }
}

impl ProcessImpl {
    /// `decode_and_find`'s answer from the answer to its `decode_find` request: when it
    /// failed as a whole, the `decode` and `find_fre` requests say which half failed and how.
    fn decode_find_from(
        &self,
        data: &[u8],
        pcs: &[i64],
        hex: String,
        answer: Outcome<DecodeFind>,
    ) -> (Outcome<Decoded>, Vec<Outcome<Option<Found>>>) {
        match answer {
            Outcome::Ok { value } => (value.decode, self.finds_from(hex, pcs, value.finds)),
            _ => (self.decode(data), self.find_fres(data, pcs)),
        }
    }

    /// One outcome per PC from the answer to a `find_fre` request on the section `hex`:
    /// when it failed as a whole, the PCs are asked one at a time to find the failing ones.
    fn finds_from(
        &self,
        hex: String,
        pcs: &[i64],
        answer: Outcome<Vec<Outcome<Option<Found>>>>,
    ) -> Vec<Outcome<Option<Found>>> {
        match answer {
            Outcome::Ok { value } if value.len() == pcs.len() => value,
            Outcome::Ok { value } => {
                let msg = format!("answered {} outcomes for {} PCs", value.len(), pcs.len());
                pcs.iter()
                    .map(|_| Outcome::protocol_error(msg.clone()))
                    .collect()
            }
            Outcome::Crashed { .. } | Outcome::Hung { .. } if pcs.len() > 1 => {
                finds_one_at_a_time(pcs, |pc| {
                    self.call(&Request::FindFre {
                        data: hex.clone(),
                        pcs: vec![pc],
                    })
                })
            }
            other => {
                let o = other.map(|_| None);
                pcs.iter().map(|_| o.clone()).collect()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in worker (not a real one: this tests how requests sent ahead are taken
    /// back): it answers `hello`, a `decode_find` or `decode` with an empty section, and
    /// dies of `SIGSEGV` on any request of the section `de ad`; every request it reads is
    /// appended to `log`.
    fn stand_in(log: &std::path::Path) -> ProcessImpl {
        let script = r#"while read l; do echo "$l" >>"$0"; case $l in
            *'"data":"dead"'*) kill -SEGV $$;;
            *'"op":"hello"'*) echo '{"status":"ok","value":{"name":"stand-in","version":"0","versions":[1,2,3]}}';;
            *'"op":"decode_find"'*) echo '{"status":"ok","value":{"decode":{"status":"ok","value":{"header":{},"functions":[]}},"finds":{"status":"ok","value":[]}}}';;
            *'"op":"decode"'*) echo '{"status":"ok","value":{"header":{},"functions":[]}}';;
            esac; done"#;
        let launch = Launch::new("sh")
            .arg("-c")
            .arg(script)
            .arg(log)
            .timeout(Duration::from_secs(5));
        ProcessImpl::start(launch, Hosting::Worker).unwrap()
    }

    #[test]
    fn requests_sent_ahead_of_a_death_are_asked_again_and_answered_as_alone() {
        let log = std::env::temp_dir().join(format!("sframe-stand-in-{}", std::process::id()));
        let w = stand_in(&log);
        let (good, dead, other) = (vec![1u8, 2], vec![0xde, 0xad], vec![3u8]);
        let alone: Vec<_> = [&good, &dead, &other]
            .iter()
            .map(|d| w.decode_and_find(d, &[]))
            .collect();
        assert!(matches!(
            &alone[1].0,
            Outcome::Crashed { signal, repeated: Some(true), .. } if *signal == Signal::named("SIGSEGV")
        ));
        assert_eq!(alone[2].0, Outcome::ok(Decoded::default()));
        // All three sent before any answer is read; the process dies on the second, taking
        // the third's request with it.
        for d in [&good, &dead, &other] {
            w.decode_and_find_begin(d, &[]);
        }
        assert_eq!(w.running.lock().unwrap().pending.len(), 3);
        assert!(w.running.lock().unwrap().pending.iter().all(|p| p.sent));
        let ahead: Vec<_> = [&good, &dead, &other]
            .iter()
            .map(|d| w.decode_and_find_end(d, &[]))
            .collect();
        assert_eq!(ahead, alone);
        // The third, lost with the process, was asked again once, as sent: not answered
        // from a process that never read it, and then asked again half by half.
        let asked = std::fs::read_to_string(&log).unwrap_or_default();
        let _ = std::fs::remove_file(&log);
        let third: Vec<&str> = asked
            .lines()
            .filter(|l| l.contains(r#""data":"03""#))
            .collect();
        assert_eq!(third.len(), 2, "{asked}");
        assert!(third.iter().all(|l| l.contains("decode_find")), "{asked}");
        // Ended in another order than begun: answered as asked alone all the same.
        w.decode_and_find_begin(&good, &[]);
        w.decode_and_find_begin(&other, &[]);
        assert_eq!(w.decode_and_find_end(&other, &[]), alone[2]);
        assert_eq!(w.decode_and_find_end(&good, &[]), alone[0]);
        assert!(w.running.lock().unwrap().pending.is_empty());
    }
}
