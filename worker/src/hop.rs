//! The server child on the worker's own standard streams: it reads the harness's requests
//! from the worker's stdin and writes its answers to the worker's stdout itself, while the
//! worker sleeps. A request that goes well then costs the harness one exchange with one
//! process, not two (harness to worker, worker to its server child, and back), each two
//! wake-ups of processes on a machine that schedules them late.
//!
//! The child hands a request over to the worker whenever it is not a plain answer: when the
//! library crashed on it, cleanly (recovered from, `recover`: the child tells the worker on
//! a control pipe and waits) or not (the child dies), and when it retires (after
//! `recover::RECOVERIES` recoveries). The worker reads where the child was from its
//! [`Record`] and answers as `forking` answers its server child's death or retirement:
//! the child's crash is the first try, and the second opinion, the look-ups PC by PC, the `find_fre` half asked alone
//! are `forking`'s. So every answer is the one `forking`'s server behind the worker gives.
//! After a clean crash the child, as clean as a fresh one (`recover`), goes on when the
//! worker has written its answer; after a death or a retirement the worker forks the next
//! child, which starts on whatever input the one that ended had read past its request.

use crate::forking::{self, Death, Serving};
use crate::stage;
use sframe_harness::impls::protocol::{
    answer, answer_decode_find, answer_request, join_decode_find, Request,
};
use sframe_harness::impls::Implementation;
use sframe_harness::signature::Signal;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::fs::FileExt;

/// Where a child was, as the worker reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
enum Phase {
    /// Between requests: reading its input.
    Idle = 0,
    /// Answering the request the record holds, whole (a `decode_find` request: its
    /// `decode` half).
    Whole = 1,
    /// Answering the `find_fre` half of the `decode_find` request the record holds, its
    /// `decode` half answered (in the record).
    FindHalf = 2,
    /// Retiring after it answered the request the record holds.
    Retired = 3,
    /// Its input ended.
    End = 5,
    /// Its input is not text (what `BufRead::lines` refuses).
    NotText = 6,
}

impl Phase {
    fn of(word: u32) -> Option<Phase> {
        [
            Phase::Idle,
            Phase::Whole,
            Phase::FindHalf,
            Phase::Retired,
            Phase::End,
            Phase::NotText,
        ]
        .into_iter()
        .find(|p| *p as u32 == word)
    }
}

/// The record a child keeps for the worker, in a file in memory (`memfd`) both hold: a
/// header (phase, the request line's length, the length of the input kept from that line
/// on, the `decode` half's answer's length, the signal of a crash recovered from), the input
/// from the request line on (that line, its newline, and whatever was read past it), then
/// the `decode` half's answer. Read and written at offsets, never mapped: a mapping where
/// `mmap` chooses would change what an over-read of the library lands on (see `stage`).
struct Record {
    file: std::fs::File,
}

const HEADER: usize = 4 + 4 + 8 + 8 + 4;

/// What the worker reads of a record.
struct Read {
    phase: Phase,
    /// The request line.
    line: String,
    /// The input read past the request line.
    rest: Vec<u8>,
    /// The `decode` half's answer, in the phases past it.
    decode: String,
    /// The signal of the clean crash the child recovered from, 0 when none.
    recovered: i32,
}

impl Record {
    fn new() -> std::io::Result<Record> {
        // SAFETY: creates a descriptor this process then owns.
        let fd =
            unsafe { libc::memfd_create(c"sframe-worker-request".as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: just created, owned by nobody else.
        let file = std::fs::File::from(unsafe { OwnedFd::from_raw_fd(fd) });
        let r = Record { file };
        r.phase(Phase::Idle);
        Ok(r)
    }

    fn phase(&self, p: Phase) {
        let _ = self.file.write_all_at(&(p as u32).to_le_bytes(), 0);
    }

    /// The header's first words: the phase, the request line's length, the length of the
    /// input kept, the `decode` half's answer's length.
    fn head(phase: Phase, line_len: usize, input_len: usize, decode_len: usize) -> [u8; 24] {
        let mut head = [0u8; 24];
        head[..4].copy_from_slice(&(phase as u32).to_le_bytes());
        head[4..8].copy_from_slice(&(line_len as u32).to_le_bytes());
        head[8..16].copy_from_slice(&(input_len as u64).to_le_bytes());
        head[16..24].copy_from_slice(&(decode_len as u64).to_le_bytes());
        head
    }

    /// In the child, as it takes up a request: the input from its line on, with the header,
    /// in one write (the child dies in the library, never inside a write).
    fn request(&self, line_len: usize, input: &[u8]) {
        let mut rec = Vec::with_capacity(HEADER + input.len());
        rec.extend_from_slice(&Record::head(Phase::Whole, line_len, input.len(), 0));
        // No clean crash recovered from on it yet (the signal word).
        rec.extend_from_slice(&0i32.to_le_bytes());
        rec.extend_from_slice(input);
        let _ = self.file.write_all_at(&rec, 0);
    }

    /// In the child: the `decode` half's answer, then the header that says it is there and
    /// the phase that follows it.
    fn decode_half(&self, answer: &str, then: Phase, line_len: usize, input_len: usize) {
        let _ = self
            .file
            .write_all_at(answer.as_bytes(), (HEADER + input_len) as u64);
        let head = Record::head(then, line_len, input_len, answer.len());
        let _ = self.file.write_all_at(&head, 0);
    }

    /// In the child: the clean crash it recovered from on the request (0: none).
    fn recovered(&self, signal: i32) {
        let _ = self.file.write_all_at(&signal.to_le_bytes(), 24);
    }

    /// In the worker.
    fn read(&self) -> Option<Read> {
        let mut head = [0u8; HEADER];
        self.file.read_exact_at(&mut head, 0).ok()?;
        let u32_at =
            |at: usize| u32::from_le_bytes([head[at], head[at + 1], head[at + 2], head[at + 3]]);
        let u64_at = |at: usize| u64::from(u32_at(at)) | u64::from(u32_at(at + 4)) << 32;
        let phase = Phase::of(u32_at(0))?;
        let (line_len, input_len, decode_len) =
            (u32_at(4) as usize, u64_at(8) as usize, u64_at(16) as usize);
        let recovered = u32_at(24) as i32;
        let mut read = Read {
            phase,
            line: String::new(),
            rest: Vec::new(),
            decode: String::new(),
            recovered,
        };
        if matches!(phase, Phase::Idle | Phase::End | Phase::NotText) {
            return Some(read);
        }
        let mut input = vec![0u8; input_len];
        if self.file.read_exact_at(&mut input, HEADER as u64).is_err() || line_len > input_len {
            return None;
        }
        if phase == Phase::FindHalf {
            let mut decode = vec![0u8; decode_len];
            self.file
                .read_exact_at(&mut decode, (HEADER + input_len) as u64)
                .ok()?;
            read.decode = String::from_utf8(decode).ok()?;
        }
        read.rest = input.split_off((line_len + 1).min(input_len));
        input.truncate(line_len);
        // As `BufRead::lines` gives it: without a `\r` before the newline.
        if input.last() == Some(&b'\r') {
            input.pop();
        }
        read.line = String::from_utf8(input).ok()?;
        Some(read)
    }
}

/// The child's input: the worker's stdin, read in blocks, what was read past a line kept for
/// the next.
struct Input {
    buf: Vec<u8>,
    /// Where the unread input starts in `buf`.
    start: usize,
}

impl Input {
    /// The next line's length (without its newline, which follows it unless the input
    /// ended), from `self.buf[self.start..]`; `None` at the end of the input.
    fn next_line(&mut self) -> Option<usize> {
        let mut searched = 0;
        loop {
            if let Some(i) = self.buf[self.start + searched..]
                .iter()
                .position(|&b| b == b'\n')
            {
                return Some(searched + i);
            }
            searched = self.buf.len() - self.start;
            if self.start > 0 {
                self.buf.drain(..self.start);
                self.start = 0;
            }
            let len = self.buf.len();
            self.buf.resize(len + 64 * 1024, 0);
            // SAFETY: reads into the spare part of a live buffer.
            let n = unsafe { libc::read(0, self.buf[len..].as_mut_ptr().cast(), 64 * 1024) };
            if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                self.buf.truncate(len);
                continue;
            }
            self.buf.truncate(len + n.max(0) as usize);
            if n <= 0 {
                // The end: what is left is the last line (as `BufRead::lines` has it).
                return (self.buf.len() > self.start).then_some(self.buf.len() - self.start);
            }
        }
    }
}

/// Empty the pipe `fd` (non-blocking) of what is in it.
fn drain(fd: i32) {
    let mut sink = [0u8; 4096];
    // SAFETY: reads into a live buffer from a descriptor this process holds.
    while unsafe { libc::read(fd, sink.as_mut_ptr().cast(), sink.len()) } > 0 {}
}

/// The control pipes between a child and the worker: the child says `H` (a request handed
/// over) on `up`, the worker `G` (go on) on `down`.
struct Control {
    up: OwnedFd,
    down: OwnedFd,
}

fn byte(fd: i32) -> Option<u8> {
    let mut b = [0u8; 1];
    loop {
        // SAFETY: reads one byte into a live buffer from a descriptor this process holds.
        let n = unsafe { libc::read(fd, b.as_mut_ptr().cast(), 1) };
        if n == 1 {
            return Some(b[0]);
        }
        if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        return None;
    }
}

/// The child's loop: answer the requests of its stdin on its stdout, keeping the record,
/// until the input ends or it retires.
fn child_loop(
    imp: &dyn Implementation,
    record: &Record,
    mut input: Input,
    err_r: i32,
    ctl: &Control,
) -> ! {
    let end = |p: Phase| -> ! {
        record.phase(p);
        // SAFETY: leaves without running the parent's atexit handlers or destructors.
        unsafe { libc::_exit(0) }
    };
    let mut recoveries = 0;
    loop {
        let Some(len) = input.next_line() else {
            end(Phase::End)
        };
        let kept = &input.buf[input.start..];
        let raw = &kept[..len];
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let Ok(line) = std::str::from_utf8(raw) else {
            end(Phase::NotText)
        };
        if line.trim().is_empty() {
            input.start = (input.start + len + 1).min(input.buf.len());
            continue;
        }
        // What it said on earlier requests is dropped: what is in its stderr pipe when it
        // hands a request over is what it said on this one.
        drain(err_r);
        record.request(len, kept);
        let kept_len = kept.len();
        let line = line.to_string();
        input.start = (input.start + len + 1).min(input.buf.len());
        let resp = crate::recover::protected(|| match serde_json::from_str::<Request>(&line) {
            Ok(Request::DecodeFind { data, pcs, compact }) => {
                let decode_done = |d: &str| {
                    crate::guarded_heap::release_leaked();
                    record.decode_half(d, Phase::FindHalf, len, kept_len);
                };
                let (d, f) = answer_decode_find(imp, &data, &pcs, compact, decode_done);
                join_decode_find(&d, &f)
            }
            Ok(req) => answer_request(imp, req),
            Err(_) => answer(imp, &line),
        });
        match resp {
            Ok(resp) => {
                let mut out = resp.into_bytes();
                out.push(b'\n');
                forking::write_all_fd(1, &out);
                crate::guarded_heap::release_leaked();
            }
            Err(signal) => {
                // A clean crash, its words on stderr: the worker answers the request, and
                // this child, as clean as a fresh one, goes on when told.
                recoveries += 1;
                record.recovered(signal);
                forking::write_all_fd(ctl.up.as_raw_fd(), b"H");
                if byte(ctl.down.as_raw_fd()) != Some(b'G') {
                    end(Phase::End);
                }
                record.recovered(0);
                if recoveries >= crate::recover::RECOVERIES {
                    end(Phase::Retired);
                }
            }
        }
        record.phase(Phase::Idle);
    }
}

/// A forked child and the worker's ends of its pipes.
struct Child {
    pid: libc::pid_t,
    err: OwnedFd,
    up: OwnedFd,
    down: OwnedFd,
}

/// Fork a child that starts on `input` (read past an earlier child's request), then reads
/// the worker's stdin.
fn spawn(imp: &dyn Implementation, record: &Record, input: Vec<u8>) -> std::io::Result<Child> {
    let (err_r, err_w) = forking::pipe()?;
    let (up_r, up_w) = forking::pipe()?;
    let (down_r, down_w) = forking::pipe()?;
    let pid = forking::fork()?;
    if pid == 0 {
        forking::crash_candidate();
        // SAFETY: plain system calls on descriptors this process owns.
        unsafe {
            libc::dup2(err_w.as_raw_fd(), 2);
        }
        forking::set_nonblocking(2);
        forking::set_nonblocking(err_r.as_raw_fd());
        drop(err_w);
        drop(up_r);
        drop(down_w);
        let ctl = Control {
            up: up_w,
            down: down_r,
        };
        child_loop(
            imp,
            record,
            Input {
                buf: input,
                start: 0,
            },
            err_r.as_raw_fd(),
            &ctl,
        );
    }
    drop(err_w);
    drop(up_w);
    drop(down_r);
    forking::set_nonblocking(err_r.as_raw_fd());
    Ok(Child {
        pid,
        err: err_r,
        up: up_r,
        down: down_w,
    })
}

/// What the child said on stderr on the request it handed over or died on.
fn words(err: &OwnedFd) -> String {
    let mut bytes = Vec::new();
    let mut buf = [0u8; 4096];
    while bytes.len() < 64 * 1024 {
        // SAFETY: reads into a live buffer from a descriptor this process holds.
        let n = unsafe { libc::read(err.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        if n <= 0 {
            break;
        }
        bytes.extend_from_slice(&buf[..n as usize]);
    }
    String::from_utf8_lossy(&bytes).trim_end().to_string()
}

/// The answer to the request a child handed over or ended on, as `forking` answers it.
fn take_over(serving: &mut Serving<'_>, at: &Read, death: Death) -> std::io::Result<String> {
    if at.phase == Phase::FindHalf {
        serving.after_find_half_death(&at.line, &at.decode, death)
    } else {
        serving.after_whole_death(&at.line, death)
    }
}

/// Serve the requests of the worker's stdin on its stdout with children (see the module
/// docs), `serving` answering what a child handed over or left.
pub fn serve(serving: &mut Serving<'_>) -> std::io::Result<()> {
    let imp = serving.imp;
    let record = Record::new()?;
    let mut input = Vec::new();
    let unreadable = || std::io::Error::other("a server child left no readable record");
    loop {
        record.phase(Phase::Idle);
        record.recovered(0);
        let child = spawn(imp, &record, std::mem::take(&mut input))?;
        // Requests handed over after a clean crash, until the child ends.
        while byte(child.up.as_raw_fd()) == Some(b'H') {
            let at = record.read().ok_or_else(unreadable)?;
            let death = Death {
                signal: Signal::from_number(at.recovered),
                stderr: words(&child.err),
                stage: stage::take(),
            };
            let mut a = take_over(serving, &at, death)?;
            a.push('\n');
            forking::write_all_fd(1, a.as_bytes());
            forking::write_all_fd(child.down.as_raw_fd(), b"G");
        }
        let mut status = 0;
        // SAFETY: waits for the child this call forked.
        while unsafe { libc::waitpid(child.pid, &mut status, 0) } < 0 {
            if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                return Err(std::io::Error::last_os_error());
            }
        }
        let clean = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
        let at = record.read().ok_or_else(unreadable)?;
        let answer = match (at.phase, clean) {
            (Phase::End, true) => return Ok(()),
            (Phase::NotText, true) => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    "stream did not contain valid UTF-8",
                ))
            }
            (Phase::Retired, true) => None,
            (Phase::Whole | Phase::FindHalf, false) => {
                let death = Death {
                    signal: forking::ended(status),
                    stderr: words(&child.err),
                    stage: stage::take(),
                };
                Some(take_over(serving, &at, death)?)
            }
            (phase, _) => {
                return Err(std::io::Error::other(format!(
                    "a server child ended ({}) in phase {phase:?}",
                    forking::ended(status)
                )))
            }
        };
        if let Some(mut a) = answer {
            a.push('\n');
            forking::write_all_fd(1, a.as_bytes());
        }
        input = at.rest;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_gives_back_the_request_the_input_past_it_and_the_decode_half() {
        let r = Record::new().unwrap();
        let input = b"{\"op\":\"decode\"}\r\n{\"op\":\"hello\"}\nrest";
        r.request(16, input);
        r.recovered(11);
        let got = r.read().unwrap();
        assert_eq!(got.phase, Phase::Whole);
        assert_eq!(got.line, "{\"op\":\"decode\"}");
        assert_eq!(got.rest, b"{\"op\":\"hello\"}\nrest");
        assert_eq!(got.recovered, 11);
        r.decode_half("{\"status\":\"ok\"}", Phase::FindHalf, 16, input.len());
        let got = r.read().unwrap();
        assert_eq!(got.phase, Phase::FindHalf);
        assert_eq!(got.decode, "{\"status\":\"ok\"}");
        // The request and the signal as they were.
        assert_eq!(got.line, "{\"op\":\"decode\"}");
        assert_eq!(got.rest, b"{\"op\":\"hello\"}\nrest");
        assert_eq!(got.recovered, 11);
        r.phase(Phase::End);
        assert_eq!(r.read().unwrap().phase, Phase::End);
    }
}
