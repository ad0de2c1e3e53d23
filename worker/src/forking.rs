//! Serving requests in forked children, so that a crash of the hosted C library costs a
//! `fork`, not a new worker process (with its `dlopen`s), and a crash is classified on a
//! clean heap: one that depends on what earlier requests did to the heap cannot happen
//! here, and one that does happen repeats.
//!
//! A server child, forked from the clean worker, answers requests one after another: a
//! `fork` per request was most of a request's cost. libsframe keeps no state between calls
//! but its heap blocks, which live on guard pages (`guarded_heap`) and which
//! `sframe_decoder_free` frees; the child releases those a request leaves alive (leaked:
//! nothing the library reads points to them, `guarded_heap::release_leaked`), so every
//! request meets the same empty guarded heap, as a fresh child's would be. When
//! the server child dies on a request (signal, abort, non-zero exit, or no answer), that
//! was the first try; the parent tries once more in a fresh server child, and answers
//! `{"status":"crashed","signal":...,"site":...,"repeated":...,"detail":...}` itself: the
//! detail is the stderr of the child that died (the crash reporter's `fault in` line, an
//! assertion message), the site what it names (read here, once), `repeated` false (and the
//! detail marked `nondeterministic`) when the second try did not crash. A crash the server
//! child recovers from (a fault on a guard page, a failed assertion: `recover`) is a first
//! try too, said with a `C<signal>` line instead of an answer; the child, as clean as a
//! fresh one, stays and makes the second try itself: no `fork` on that crash's path. A `find_fre` request of several PCs on which the
//! server dies is asked again PC by PC instead (`finds_one_at_a_time`: what the harness does
//! with a whole request that failed), each PC's crash with its own second opinion. A child
//! that hangs is killed with the worker: the
//! harness times the request out and kills the worker, and `PR_SET_PDEATHSIG` takes the
//! child with it. A `decode_find` request is answered as its `decode` and its `find_fre`
//! halves would be, each with its own crash handling, in one exchange with the server (which
//! reads the section once for both). When the `decode` half crashed while the library built
//! its decoder, in both children (`stage`), the `find_fre` half, which starts alike, is
//! answered with that crash (PC by PC, as asking would) without forking more children to
//! watch it repeat: a crashing input costs two children, not up to nine.
//!
//! The server child that answers the harness reads the worker's stdin and writes its stdout
//! itself (`hop`), handing the worker what is not a plain answer; the server children this
//! module forks behind pipes ([`Server`]) answer what the worker is handed: the second
//! opinion on a crash, a `find_fre` request PC by PC, the `find_fre` half of a `decode_find`
//! request on its own.

use crate::stage::{self, Stage};
use sframe_harness::impls::protocol::{
    answer, answer_decode_find, answer_request, find_line, finds_one_at_a_time, is_decode_find,
    join_decode_find, parse_answer, serve_with, split_decode_find, split_find, Request,
};
use sframe_harness::impls::{Implementation, Outcome};
use sframe_harness::signature::Signal;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};

/// How a child died on a request: its end, last words, and the stage it was in.
pub(crate) struct Death {
    pub(crate) signal: Signal,
    pub(crate) stderr: String,
    pub(crate) stage: Stage,
}

pub(crate) fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe2 writes.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just created and are owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// `fork(2)`: 0 in the child, the child's pid in the parent.
pub(crate) fn fork() -> std::io::Result<libc::pid_t> {
    // SAFETY: the worker is single-threaded (requests are read on the main thread), so the
    // child may allocate and call the library as the parent would.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(pid)
}

/// Set up a child that runs the hosted library, which may crash: it dies with the worker
/// (`PR_SET_PDEATHSIG`) and is not dumpable, so that its crash writes no core file and
/// starts no core-dump handler (a `core_pattern` pipe such as systemd-coredump's ignores
/// `RLIMIT_CORE`): a crash costs its `fork`, not a dump.
pub(crate) fn crash_candidate() {
    // SAFETY: prctl on this process only.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        libc::prctl(libc::PR_SET_DUMPABLE, 0);
    }
}

pub(crate) fn write_all_fd(fd: i32, mut bytes: &[u8]) {
    while !bytes.is_empty() {
        // SAFETY: writes from a live slice to a descriptor this process owns.
        let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if n <= 0 {
            return;
        }
        bytes = &bytes[n as usize..];
    }
}

/// The answer of a crash on `signal`, `repeated` or not (`None`: not tried again), its
/// site read from `detail` (the child's last words: the crash reporter's line, an
/// assertion) here where the death is seen.
fn crashed(signal: Signal, repeated: Option<bool>, detail: String) -> String {
    let o: Outcome<()> =
        Outcome::crashed_with_report(signal, repeated, (!detail.is_empty()).then_some(detail));
    serde_json::to_string(&o)
        .unwrap_or_else(|_| r#"{"status":"crashed","signal":"unknown"}"#.into())
}

/// A second opinion: the answer, and when both children died on the same signal while
/// the library built its decoder, that crash (signal and detail).
struct Opinion {
    answer: String,
    decoder_crash: Option<(Signal, String)>,
}

/// A second opinion on a crash: the answer of a fresh child, or of a server child recovered
/// from a clean crash, which is as one (see `recover`).
/// `second` is how the second try died, `None` when it answered.
fn second_verdict(
    second: std::io::Result<Option<Death>>,
    first: Death,
) -> std::io::Result<Opinion> {
    let Death {
        signal,
        stderr,
        stage,
    } = first;
    let mut decoder_crash = None;
    let answer = match second? {
        Some(Death {
            signal: s2,
            stderr: e2,
            stage: stage2,
        }) if s2 == signal => {
            let detail = if e2.is_empty() { stderr } else { e2 };
            if stage == Stage::Decoding && stage2 == Stage::Decoding {
                decoder_crash = Some((signal.clone(), detail.clone()));
            }
            crashed(signal, Some(true), detail)
        }
        Some(Death {
            signal: s2,
            stderr: e2,
            ..
        }) => crashed(
            signal,
            Some(false),
            format!("nondeterministic: {s2} on a second try; {stderr} {e2}"),
        ),
        None => crashed(
            signal,
            Some(false),
            format!("nondeterministic: did not repeat in a fresh child; {stderr}"),
        ),
    };
    Ok(Opinion {
        answer,
        decoder_crash,
    })
}

/// The answer to a `find_fre` request at `pcs` on a section whose decoder construction
/// crashed, repeatedly, with `signal` and `detail`: every PC's request would start alike and
/// crash alike, so this is what asking (PC by PC when there are several, as
/// [`Serving::after_death`] does) would answer, without the children.
fn finds_after_decoder_crash(pcs: &[i64], signal: &Signal, detail: &str) -> String {
    let text = crashed(signal.clone(), Some(true), detail.to_string());
    if pcs.len() <= 1 {
        return text;
    }
    let finds = finds_one_at_a_time(pcs, |_| parse_answer(&text));
    serde_json::to_string(&Outcome::ok(finds))
        .unwrap_or_else(|e| crashed(Signal::ProtocolError, None, e.to_string()))
}

/// A server child: requests go down `to`, answers come up `from`, one line each (two for a
/// `decode_find` request: its `decode` half, then its `find_fre` half), every answer
/// prefixed with `A` (go on) or `R` (answered, and retiring: `recover::RECOVERIES`
/// crashes recovered from); a crash recovered from is the line
/// `C<signal number>` instead of an answer. Its
/// stderr goes to a pipe the parent empties after each answer, so that what is left there
/// when the child dies is what it said on the request it died on.
struct Server {
    pid: libc::pid_t,
    to: std::fs::File,
    from: BufReader<std::fs::File>,
    err: std::fs::File,
}

pub(crate) fn set_nonblocking(fd: i32) {
    // SAFETY: fcntl on a descriptor this process owns.
    unsafe {
        let fl = libc::fcntl(fd, libc::F_GETFL);
        libc::fcntl(fd, libc::F_SETFL, fl | libc::O_NONBLOCK);
    }
}

/// The server child's loop: answer request lines from `input` on `out` until the input
/// ends or it retires (after `recover::RECOVERIES` recoveries).
fn server_loop(imp: &dyn Implementation, input: std::fs::File, out: i32) {
    let say = |resp: &str, retire: bool| {
        let mut framed = String::with_capacity(resp.len() + 2);
        framed.push(if retire { 'R' } else { 'A' });
        framed.push_str(resp);
        framed.push('\n');
        write_all_fd(out, framed.as_bytes());
    };
    let mut recovered = 0;
    for line in BufReader::new(input).lines() {
        let Ok(line) = line else { return };
        let resp = crate::recover::protected(|| match serde_json::from_str::<Request>(&line) {
            // Both halves, the section read once; each half answered as its own request.
            Ok(Request::DecodeFind { data, pcs, compact }) => {
                let decode_done = |d: &str| {
                    crate::guarded_heap::release_leaked();
                    say(d, false);
                };
                answer_decode_find(imp, &data, &pcs, compact, decode_done).1
            }
            Ok(req) => answer_request(imp, req),
            Err(_) => answer(imp, &line),
        });
        let resp = match resp {
            Ok(resp) => resp,
            Err(signal) => {
                // A clean crash, its words on stderr: said, and the next request awaited.
                recovered += 1;
                write_all_fd(out, format!("C{signal}\n").as_bytes());
                continue;
            }
        };
        crate::guarded_heap::release_leaked();
        let retire = recovered >= crate::recover::RECOVERIES;
        say(&resp, retire);
        if retire {
            return;
        }
    }
}

/// Fork a server child that answers request lines with `imp` (see [`Server`]).
fn spawn_server(imp: &dyn Implementation) -> std::io::Result<Server> {
    use std::os::fd::AsRawFd;
    let (req_r, req_w) = pipe()?;
    let (resp_r, resp_w) = pipe()?;
    let (err_r, err_w) = pipe()?;
    let pid = fork()?;
    if pid == 0 {
        drop(req_w);
        drop(resp_r);
        drop(err_r);
        // The child: die with the worker; stderr to the parent's pipe, never blocking on
        // it (what does not fit is lost: the last words of a crash fit).
        crash_candidate();
        // SAFETY: plain system calls on descriptors this process owns.
        unsafe {
            libc::dup2(err_w.as_raw_fd(), 2);
        }
        set_nonblocking(2);
        drop(err_w);
        server_loop(imp, std::fs::File::from(req_r), resp_w.as_raw_fd());
        // SAFETY: leaves without running the parent's atexit handlers or destructors.
        unsafe { libc::_exit(0) };
    }
    drop(req_r);
    drop(resp_w);
    drop(err_w);
    set_nonblocking(err_r.as_raw_fd());
    Ok(Server {
        pid,
        to: std::fs::File::from(req_w),
        from: BufReader::new(std::fs::File::from(resp_r)),
        err: std::fs::File::from(err_r),
    })
}

impl Server {
    /// Send a request line.
    fn send(&mut self, line: &str) -> bool {
        let mut req = String::with_capacity(line.len() + 1);
        req.push_str(line);
        req.push('\n');
        self.to.write_all(req.as_bytes()).is_ok()
    }

    /// The server's next reply.
    fn answer(&mut self) -> Reply {
        let mut resp = Vec::new();
        // Its answers are JSON text; a line that is not ends with the child's death (its
        // answer pipe closed): see `died`.
        let _ = self.from.read_until(b'\n', &mut resp);
        if resp.len() < 2 || resp.pop() != Some(b'\n') {
            return Reply::Dead;
        }
        if resp[0] == b'C' {
            // Recovered from a clean crash: its words are on stderr by now.
            let signal = std::str::from_utf8(&resp[1..])
                .ok()
                .and_then(|n| n.parse().ok())
                .map_or(Signal::Unknown, Signal::from_number);
            let mut err = Vec::new();
            let _ = (&mut self.err).take(64 * 1024).read_to_end(&mut err);
            return Reply::Recovered(Death {
                signal,
                stderr: String::from_utf8_lossy(&err).trim_end().to_string(),
                stage: stage::take(),
            });
        }
        let go_on = resp[0] == b'A';
        // What it wrote to stderr answering this request: dropped.
        let mut sink = [0u8; 4096];
        while matches!(self.err.read(&mut sink), Ok(n) if n > 0) {}
        resp.remove(0);
        // Its answers are JSON text, so UTF-8: checked, not copied chunk by chunk.
        let text = String::from_utf8(resp)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        Reply::Answer(text, go_on)
    }

    /// Reap the child that died answering a request: how it ended, its last words, and
    /// the stage it was in.
    fn died(mut self) -> Death {
        let mut status = 0;
        // SAFETY: reaps the child this process forked. Its answer pipe is closed, or
        // writing to it failed: it is dead or exiting (nothing in it closes that pipe).
        unsafe { libc::waitpid(self.pid, &mut status, 0) };
        let mut err = Vec::new();
        let _ = (&mut self.err).take(64 * 1024).read_to_end(&mut err);
        let stderr = String::from_utf8_lossy(&err).trim_end().to_string();
        Death {
            signal: ended(status),
            stderr,
            stage: stage::take(),
        }
    }

    /// Stop (when still alive) and reap the child.
    fn end(self) {
        // SAFETY: signals and reaps the child this process forked.
        unsafe {
            libc::kill(self.pid, libc::SIGKILL);
            libc::waitpid(self.pid, std::ptr::null_mut(), 0);
        }
    }
}

/// What a server child replied to a request.
enum Reply {
    /// Its answer, and whether it goes on.
    Answer(String, bool),
    /// It crashed, cleanly, and goes on (see `recover`).
    Recovered(Death),
    /// It died instead (see [`Server::died`]).
    Dead,
}

/// How a child that did not answer ended, from its wait status.
pub(crate) fn ended(status: i32) -> Signal {
    if libc::WIFSIGNALED(status) {
        Signal::from_number(libc::WTERMSIG(status))
    } else if libc::WIFEXITED(status) {
        Signal::Exit(libc::WEXITSTATUS(status))
    } else {
        Signal::Unknown
    }
}

/// Answer requests with a server child (see the module docs).
pub(crate) struct Serving<'a> {
    pub(crate) imp: &'a dyn Implementation,
    server: Option<Server>,
}

impl Serving<'_> {
    /// The server's next answer, or how it died instead; the server is kept while it goes
    /// on.
    fn answer_of(&mut self, mut server: Server) -> Result<String, Death> {
        match server.answer() {
            Reply::Answer(resp, true) => {
                self.server = Some(server);
                Ok(resp)
            }
            Reply::Answer(resp, false) => {
                server.end();
                Ok(resp)
            }
            Reply::Recovered(death) => {
                self.server = Some(server);
                Err(death)
            }
            Reply::Dead => Err(server.died()),
        }
    }

    /// A second try of `line`, after a crash: by the server child when it recovered from
    /// that crash (it is as a fresh child, see `recover`), else by a fresh server child.
    /// How it died, `None` when it answered.
    fn attempt(&mut self, line: &str) -> std::io::Result<Option<Death>> {
        let mut server = self.server()?;
        let got = if server.send(line) {
            self.answer_of(server)
        } else {
            Err(server.died())
        };
        Ok(got.err())
    }

    /// The answer to `line` after one child died on it (or crashed cleanly): a second
    /// try's verdict.
    fn second_opinion(&mut self, line: &str, first: Death) -> std::io::Result<String> {
        Ok(self.opinion(line, first)?.answer)
    }

    /// [`Serving::second_opinion`], saying whether the crash is the decoder's (see
    /// [`Opinion`]).
    fn opinion(&mut self, line: &str, first: Death) -> std::io::Result<Opinion> {
        let second = self.attempt(line);
        second_verdict(second, first)
    }

    /// The server's next answer to the request `line` it was sent: when it died instead,
    /// the answer [`Serving::after_death`] finds.
    fn next_answer(&mut self, server: Server, line: &str) -> std::io::Result<String> {
        match self.answer_of(server) {
            Ok(resp) => Ok(resp),
            Err(death) => self.after_death(line, death),
        }
    }

    /// The answer to the request `line` after the server died on it: a `find_fre` request
    /// of several PCs is asked again PC by PC ([`finds_one_at_a_time`], as the harness would
    /// otherwise do, one exchange with it per PC, never reading a second opinion on the
    /// whole); any other request gets a fresh child's second opinion.
    fn after_death(&mut self, line: &str, death: Death) -> std::io::Result<String> {
        let Some((hex, pcs)) = split_find(line) else {
            return self.second_opinion(line, death);
        };
        let mut failed = None;
        let finds = finds_one_at_a_time(&pcs, |pc| match self.one(&find_line(&hex, pc)) {
            Ok(text) => parse_answer(&text),
            Err(e) => {
                let o = Outcome::crashed(Signal::Other("io".into()), Some(e.to_string()));
                failed = Some(e);
                o
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        Ok(serde_json::to_string(&Outcome::ok(finds))
            .unwrap_or_else(|e| crashed(Signal::ProtocolError, None, e.to_string())))
    }

    fn server(&mut self) -> std::io::Result<Server> {
        match self.server.take() {
            Some(s) => Ok(s),
            None => spawn_server(self.imp),
        }
    }

    /// Answer a single request.
    fn one(&mut self, line: &str) -> std::io::Result<String> {
        let mut server = self.server()?;
        if !server.send(line) {
            let death = server.died();
            return self.after_death(line, death);
        }
        self.next_answer(server, line)
    }

    /// The answer to the request `line` after a first try died on it whole (a
    /// `decode_find` request: on its `decode` half): [`Serving::after_death`]'s, or for a
    /// `decode_find` request a second opinion on the `decode` half and the `find_fre` half
    /// asked on its own, or answered with the decoder's crash when that crash repeated
    /// while the library built its decoder (see the module docs).
    pub(crate) fn after_whole_death(
        &mut self,
        line: &str,
        death: Death,
    ) -> std::io::Result<String> {
        let Some((decode, find)) = split_decode_find(line) else {
            return self.after_death(line, death);
        };
        let o = self.opinion(&decode, death)?;
        // The decoder crashed, and would again on the `find_fre` half: its answer without
        // the children.
        let f = match (&o.decoder_crash, split_find_pcs(&find)) {
            (Some((signal, detail)), Some(pcs)) => finds_after_decoder_crash(&pcs, signal, detail),
            _ => self.one(&find)?,
        };
        Ok(join_decode_find(&o.answer, &f))
    }

    /// The answer to the `decode_find` request `line` after a first try answered its
    /// `decode` half with `decode` and died on its `find_fre` half.
    pub(crate) fn after_find_half_death(
        &mut self,
        line: &str,
        decode: &str,
        death: Death,
    ) -> std::io::Result<String> {
        let f = self.after_death(&halves(line)?.1, death)?;
        Ok(join_decode_find(decode, &f))
    }

    fn respond(&mut self, line: &str) -> std::io::Result<String> {
        if !is_decode_find(line) {
            return self.one(line);
        }
        // Both halves in one exchange; each answered as its own request would be. The
        // request is split into its halves only when a half must be asked alone.
        let mut server = self.server()?;
        let first = if server.send(line) {
            self.answer_of(server)
        } else {
            Err(server.died())
        };
        let d = match first {
            Ok(d) => d,
            Err(death) => return self.after_whole_death(line, death),
        };
        match self.server.take() {
            // Still serving: the `find_fre` half is on its way.
            Some(s) => match self.answer_of(s) {
                Ok(f) => Ok(join_decode_find(&d, &f)),
                Err(death) => self.after_find_half_death(line, &d, death),
            },
            // A server says a `decode` half with `A` always (`server_loop`).
            None => Err(std::io::Error::other(
                "a server child retired between the halves of a decode_find request",
            )),
        }
    }
}

/// The `decode` and `find_fre` halves of a `decode_find` request line.
fn halves(line: &str) -> std::io::Result<(String, String)> {
    split_decode_find(line).ok_or_else(|| std::io::Error::other("not a decode_find"))
}

/// The PCs of a `find_fre` request line.
fn split_find_pcs(line: &str) -> Option<Vec<i64>> {
    match serde_json::from_str::<Request>(line) {
        Ok(Request::FindFre { pcs, .. }) => Some(pcs),
        _ => None,
    }
}
impl Drop for Serving<'_> {
    fn drop(&mut self) {
        if let Some(s) = self.server.take() {
            s.end();
        }
    }
}

/// Serve requests from `input` until it ends, in forked children (see the module docs).
pub fn serve(
    imp: &dyn Implementation,
    input: impl BufRead,
    output: impl Write,
) -> std::io::Result<()> {
    // Before the first child: the stage word they share, and where the hosted library lies
    // for their crash reporter.
    stage::share();
    crate::crash::note_hosted_library();
    crate::recover::configure();
    let mut serving = Serving { imp, server: None };
    // The server child on the worker's stdin and stdout (`hop`), unless the environment says
    // `SFRAME_WORKER_HOP=0`: then every request goes through the worker to a server child
    // behind pipes (to compare answers and costs).
    if std::env::var_os("SFRAME_WORKER_HOP").is_some_and(|v| v == "0") {
        serve_with(input, output, |line| serving.respond(line))
    } else {
        drop((input, output));
        crate::hop::serve(&mut serving)
    }
}
