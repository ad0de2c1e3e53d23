//! An implementation in another process, spoken to over the JSON-lines [`protocol`].
//!
//! Used for GNU libsframe (hosted by `sframe-worker`, one process per release) and for
//! external programs. The process is started lazily and again after it dies; every request
//! has a time limit. A process that dies answering a request makes the outcome
//! [`Outcome::Crashed`] with the signal's name (the request is tried once more on a fresh
//! process; a crash that does not repeat is marked nondeterministic in the detail); one that
//! does not answer in time is killed, and the request is asked once more of a fresh process,
//! with [`HANG_RETRY_FACTOR`] times the limit: the outcome is [`Outcome::Hung`] only when that
//! one runs out of time too (a deadline missed once is as likely the machine's load as the
//! implementation: a libsframe crash that takes 2.5 s alone took over 10 s on a 2-core machine
//! running four jobs; a finding must reproduce). The second try's answer stands otherwise,
//! crash handling included. The last lines the
//! process wrote to stderr go into the crash detail (assertion messages, for example).
//!
//! [`protocol`]: super::protocol

use super::protocol::{finds_one_at_a_time, protocol_error, DecodeFind, Hello, Request};
use super::{BenchTiming, Decoded, Found, Hosting, Implementation, Outcome};
use serde::de::DeserializeOwned;
use sframe_gen::hex;
use sframe_spec::{Section, Version};
use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Default time limit per request.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

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
}

/// Why a request got no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Failure {
    Crashed {
        signal: String,
        detail: Option<String>,
    },
    Hung {
        timeout_ms: u64,
    },
}

/// How many times the first limit a request that ran out of time gets on its second try
/// (see the module docs); the text adapters' runs use it too.
pub const HANG_RETRY_FACTOR: u32 = 4;

struct Running {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Option<String>>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
}

/// The name of a signal number (Linux numbering), or `signal N`.
pub fn signal_name(sig: i32) -> String {
    let name = match sig {
        1 => "SIGHUP",
        2 => "SIGINT",
        4 => "SIGILL",
        5 => "SIGTRAP",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        15 => "SIGTERM",
        24 => "SIGXCPU",
        31 => "SIGSYS",
        _ => return format!("signal {sig}"),
    };
    name.to_string()
}

fn status_name(s: ExitStatus) -> String {
    match (s.signal(), s.code()) {
        (Some(sig), _) => signal_name(sig),
        (None, Some(c)) => format!("exit {c}"),
        (None, None) => "unknown".into(),
    }
}

impl Running {
    fn start(l: &Launch) -> std::io::Result<Running> {
        let mut cmd = Command::new(&l.program);
        cmd.args(&l.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in &l.env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn()?;
        let stdin = child
            .stdin
            .take()
            .ok_or_else(|| std::io::Error::other("no stdin"))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| std::io::Error::other("no stdout"))?;
        let stderr = child
            .stderr
            .take()
            .ok_or_else(|| std::io::Error::other("no stderr"))?;
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                match line {
                    Ok(l) => {
                        if tx.send(Some(l)).is_err() {
                            return;
                        }
                    }
                    Err(_) => break,
                }
            }
            let _ = tx.send(None);
        });
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let t2 = Arc::clone(&tail);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let mut t = t2.lock().unwrap_or_else(|e| e.into_inner());
                if t.len() == 8 {
                    t.pop_front();
                }
                t.push_back(line);
            }
        });
        Ok(Running {
            child,
            stdin,
            lines: rx,
            stderr_tail: tail,
        })
    }

    fn stderr_text(&self) -> Option<String> {
        // Give the stderr reader a moment to catch the last words of a dying process.
        std::thread::sleep(Duration::from_millis(5));
        let t = self.stderr_tail.lock().unwrap_or_else(|e| e.into_inner());
        (!t.is_empty()).then(|| t.iter().cloned().collect::<Vec<_>>().join("\n"))
    }

    /// Wait for a dead (or dying) process and describe its end.
    fn died(mut self) -> Failure {
        let status = match self.child.wait() {
            Ok(s) => status_name(s),
            Err(e) => format!("wait failed: {e}"),
        };
        Failure::Crashed {
            signal: status,
            detail: self.stderr_text(),
        }
    }

    fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    fn request(
        mut self,
        line: &str,
        timeout: Duration,
    ) -> (Option<Running>, Result<String, Failure>) {
        if self.send(line).is_err() {
            return (None, Err(self.died()));
        }
        self.receive(timeout)
    }

    /// Write a request line.
    fn send(&mut self, line: &str) -> std::io::Result<()> {
        self.stdin
            .write_all(line.as_bytes())
            .and_then(|_| self.stdin.write_all(b"\n"))
            .and_then(|_| self.stdin.flush())
    }

    /// The answer to the request sent last; the process when it is still good for more.
    fn receive(self, timeout: Duration) -> (Option<Running>, Result<String, Failure>) {
        match self.lines.recv_timeout(timeout) {
            Ok(Some(resp)) => (Some(self), Ok(resp)),
            Ok(None) | Err(RecvTimeoutError::Disconnected) => (None, Err(self.died())),
            Err(RecvTimeoutError::Timeout) => {
                self.kill();
                (
                    None,
                    Err(Failure::Hung {
                        timeout_ms: timeout.as_millis() as u64,
                    }),
                )
            }
        }
    }
}

/// The process of a [`ProcessImpl`], and the request sent to it whose answer is still to be
/// read ([`Implementation::decode_and_find_begin`]).
#[derive(Default)]
struct Slot {
    process: Option<Running>,
    pending: Option<Pending>,
}

/// A `decode_find` request sent and not yet answered.
struct Pending {
    line: String,
    hex: String,
    data: Vec<u8>,
    pcs: Vec<i64>,
}

impl Slot {
    /// The process, with no answer left pending: an answer nobody collected is read and
    /// dropped (the process answers in order).
    fn settled(&mut self, timeout: Duration) -> Option<Running> {
        let r = self.process.take()?;
        if self.pending.take().is_none() {
            return Some(r);
        }
        r.receive(timeout).0
    }
}

/// An implementation behind a process.
pub struct ProcessImpl {
    launch: Launch,
    hosting: Hosting,
    hello: Hello,
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
        let r = Running::start(&launch).map_err(|e| format!("cannot start `{what}`: {e}"))?;
        let line = serde_json::to_string(&Request::Hello).map_err(|e| e.to_string())?;
        let (r, resp) = r.request(&line, launch.timeout);
        let resp = resp.map_err(|f| format!("`{what}` did not answer hello: {f:?}"))?;
        let hello = match serde_json::from_str::<Outcome<Hello>>(&resp) {
            Ok(Outcome::Ok { value }) => value,
            Ok(other) => return Err(format!("`{what}` refused hello: {other:?}")),
            Err(e) => return Err(format!("`{what}` answered hello with {resp:?}: {e}")),
        };
        Ok(ProcessImpl {
            launch,
            hosting,
            hello,
            running: Mutex::new(Slot {
                process: r,
                pending: None,
            }),
        })
    }

    pub fn hello(&self) -> &Hello {
        &self.hello
    }

    fn call_once(&self, line: &str) -> Result<String, Failure> {
        self.call_within(line, self.launch.timeout)
    }

    /// [`ProcessImpl::call_once`] with the time limit `timeout`.
    fn call_within(&self, line: &str, timeout: Duration) -> Result<String, Failure> {
        let mut guard = self.running.lock().unwrap_or_else(|e| e.into_inner());
        let r = match guard.settled(self.launch.timeout) {
            Some(r) => r,
            None => Running::start(&self.launch).map_err(|e| Failure::Crashed {
                signal: "spawn failed".into(),
                detail: Some(e.to_string()),
            })?,
        };
        let (r, resp) = r.request(line, timeout);
        guard.process = r;
        resp
    }

    /// The answer to the pending request `p` (see [`Slot`]), read as [`ProcessImpl::call_once`]
    /// reads its answer.
    fn receive_pending(&self) -> Option<(Pending, Result<String, Failure>)> {
        let mut guard = self.running.lock().unwrap_or_else(|e| e.into_inner());
        let p = guard.pending.take()?;
        let Some(r) = guard.process.take() else {
            return Some((
                p,
                Err(Failure::Crashed {
                    signal: "protocol-error".into(),
                    detail: Some("no process for a pending request".into()),
                }),
            ));
        };
        let (r, resp) = r.receive(self.launch.timeout);
        guard.process = r;
        Some((p, resp))
    }

    /// Send a request and parse the answer as `T`; a crash is retried once on a fresh process.
    fn call<T: DeserializeOwned>(&self, req: &Request) -> Outcome<T> {
        let line = match serde_json::to_string(req) {
            Ok(l) => l,
            Err(e) => return Outcome::unsupported(format!("cannot encode request: {e}")),
        };
        let first = self.call_once(&line);
        self.settle(&line, first)
    }

    /// The outcome of the request `line` from its first answer `first`: a hang or a crash is
    /// retried once on a fresh process (see the module docs), an answer is parsed as `T`.
    fn settle<T: DeserializeOwned>(
        &self,
        line: &str,
        first: Result<String, Failure>,
    ) -> Outcome<T> {
        // The process that ran out of time was killed: a fresh one gets a longer limit.
        let first = match first {
            Err(Failure::Hung { .. }) => {
                self.call_within(line, self.launch.timeout * HANG_RETRY_FACTOR)
            }
            other => other,
        };
        let resp = match first {
            Ok(r) => Ok(r),
            Err(Failure::Crashed { signal, detail }) => match self.call_once(line) {
                Err(Failure::Crashed {
                    signal: s2,
                    detail: d2,
                }) if s2 == signal => Err(Failure::Crashed {
                    signal,
                    detail: d2.or(detail),
                }),
                Err(other) => Err(other),
                Ok(_) => Err(Failure::Crashed {
                    signal,
                    detail: Some(format!(
                        "nondeterministic: did not repeat on a fresh process; {}",
                        detail.unwrap_or_default()
                    )),
                }),
            },
            Err(h) => Err(h),
        };
        match resp {
            Ok(text) => match serde_json::from_str::<Outcome<T>>(&text) {
                Ok(o) => o,
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
            Err(Failure::Crashed { signal, detail }) => Outcome::Crashed { signal, detail },
            Err(Failure::Hung { timeout_ms }) => Outcome::Hung { timeout_ms },
        }
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
        let answer = self.call::<DecodeFind>(&Request::DecodeFind {
            data: hex.clone(),
            pcs: pcs.to_vec(),
        });
        self.decode_find_from(data, pcs, hex, answer)
    }
    fn decode_and_find_begin(&self, data: &[u8], pcs: &[i64]) {
        if self.hosting != Hosting::Worker {
            return;
        }
        let hex = hex::encode(data);
        let Ok(line) = serde_json::to_string(&Request::DecodeFind {
            data: hex.clone(),
            pcs: pcs.to_vec(),
        }) else {
            return;
        };
        let mut guard = self.running.lock().unwrap_or_else(|e| e.into_inner());
        let r = match guard.settled(self.launch.timeout) {
            Some(r) => Some(r),
            None => Running::start(&self.launch).ok(),
        };
        // A process that cannot be started or written to is left to `decode_and_find_end`,
        // which asks as `decode_and_find` does (and so says how it failed).
        let Some(mut r) = r else { return };
        if r.send(&line).is_err() {
            r.kill();
            return;
        }
        guard.process = Some(r);
        guard.pending = Some(Pending {
            line,
            hex,
            data: data.to_vec(),
            pcs: pcs.to_vec(),
        });
    }
    fn decode_and_find_end(
        &self,
        data: &[u8],
        pcs: &[i64],
    ) -> (Outcome<Decoded>, Vec<Outcome<Option<Found>>>) {
        match self.receive_pending() {
            Some((p, first)) if p.data == data && p.pcs == pcs => {
                let answer = self.settle::<DecodeFind>(&p.line, first);
                self.decode_find_from(data, pcs, p.hex, answer)
            }
            // Nothing pending, or another section's answer (read and dropped).
            _ => self.decode_and_find(data, pcs),
        }
    }
    fn encode(&self, model: &Section) -> Outcome<Vec<u8>> {
        match self.call::<String>(&Request::Encode {
            model: model.clone(),
        }) {
            Outcome::Ok { value } => match hex::decode(&value) {
                Some(b) => Outcome::ok(b),
                None => Outcome::Crashed {
                    signal: "protocol-error".into(),
                    detail: Some("encode answer is not hex".into()),
                },
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
                    .map(|_| Outcome::Crashed {
                        signal: "protocol-error".into(),
                        detail: Some(msg.clone()),
                    })
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
