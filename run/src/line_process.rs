//! A long-lived process that answers request lines with answer lines (the workers and
//! external programs of the differential harness), each answer awaited within a deadline.
//! What to do when one dies or hangs is the caller's, through the [`crate::Policy`].
//! A process is reaped however its [`LineProcess`] ends: dropped, killed, dead, or still
//! running when this process exits ([`crate::live`]). A request is one write; its answer is
//! read in the caller's thread, `poll(2)` keeping the deadline: no reader thread to wake
//! and hand the line over (a thread's wake-up per answer, on every worker request).

use crate::live::{self, Live};
use crate::policy::{Failure, Try};
use crate::signal::status_signal;
use sframe_findings::signature::Signal;
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::fd::AsRawFd;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How many of its last stderr lines a process's crash detail keeps.
const STDERR_LINES: usize = 8;

/// A started process, its stdout read line by line and its stderr's last lines kept.
pub struct LineProcess {
    child: Child,
    /// `None` once closed, as the process is ended.
    stdin: Option<ChildStdin>,
    stdout: ChildStdout,
    /// What was read from stdout past the last answer line taken.
    pending: Vec<u8>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
}

/// How reading the next answer line ended.
enum Next {
    Line(String),
    /// Stdout closed (or unreadable, or not text): the process died.
    Closed,
    TimedOut,
}

impl LineProcess {
    /// Start `cmd` with its standard streams piped to this process.
    pub fn start(cmd: &mut Command) -> std::io::Result<LineProcess> {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
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
        live::register(Live {
            pid: child.id(),
            stdin: stdin.as_raw_fd(),
        });
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let t2 = Arc::clone(&tail);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let mut t = t2.lock().unwrap_or_else(|e| e.into_inner());
                if t.len() == STDERR_LINES {
                    t.pop_front();
                }
                t.push_back(line);
            }
        });
        Ok(LineProcess {
            child,
            stdin: Some(stdin),
            stdout,
            pending: Vec::new(),
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
    pub fn died(mut self) -> Failure {
        live::forget(self.child.id());
        // A failed wait(2) leaves the end untold: the error goes with the detail.
        let (signal, unwaited) = match self.child.wait() {
            Ok(s) => (status_signal(s), None),
            Err(e) => (Signal::Unknown, Some(e)),
        };
        let stderr = self.stderr_text();
        let detail = match unwaited {
            Some(e) => Some(match stderr {
                Some(t) => format!("wait failed: {e}\n{t}"),
                None => format!("wait failed: {e}"),
            }),
            None => stderr,
        };
        Failure::Crashed {
            signal,
            repeated: None,
            detail,
        }
    }

    /// Stop the process and reap it, as dropping it does.
    pub fn kill(self) {}

    /// Send `line` and await its answer within `limit` (see [`LineProcess::receive`]).
    pub fn request(mut self, line: &str, limit: Duration) -> (Option<LineProcess>, Try<String>) {
        if self.send(line).is_err() {
            return (None, Err(self.died()));
        }
        self.receive(limit)
    }

    /// Write a request line.
    pub fn send(&mut self, line: &str) -> std::io::Result<()> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(std::io::Error::from(std::io::ErrorKind::BrokenPipe));
        };
        let mut framed = Vec::with_capacity(line.len() + 1);
        framed.extend_from_slice(line.as_bytes());
        framed.push(b'\n');
        stdin.write_all(&framed).and_then(|_| stdin.flush())
    }

    /// The next line of stdout (without its `\n` or `\r\n`), waiting until `deadline`.
    fn next_line(&mut self, deadline: Instant) -> Next {
        let mut chunk = [0u8; 64 * 1024];
        let mut searched = 0;
        loop {
            if let Some(i) = self.pending[searched..].iter().position(|&b| b == b'\n') {
                let end = searched + i;
                let mut line: Vec<u8> = self.pending.drain(..=end).collect();
                line.pop();
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                return match String::from_utf8(line) {
                    Ok(l) => Next::Line(l),
                    Err(_) => Next::Closed,
                };
            }
            searched = self.pending.len();
            let left = deadline.saturating_duration_since(Instant::now());
            let mut fd = libc::pollfd {
                fd: self.stdout.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            let ms = left.as_millis().min(i32::MAX as u128) as i32;
            // SAFETY: polls one descriptor this process owns, described by `fd`.
            let ready = unsafe { libc::poll(&mut fd, 1, ms) };
            if ready < 0 {
                if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return Next::Closed;
            }
            if ready == 0 {
                return Next::TimedOut;
            }
            match self.stdout.read(&mut chunk) {
                Ok(0) => return Next::Closed,
                Ok(n) => self.pending.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return Next::Closed,
            }
        }
    }

    /// The answer to the request sent last, and the process when it is still good for
    /// more: one that closed its stdout died (its end is the failure), one that did not
    /// answer within `limit` is killed (a hang).
    pub fn receive(mut self, limit: Duration) -> (Option<LineProcess>, Try<String>) {
        match self.next_line(Instant::now() + limit) {
            Next::Line(resp) => (Some(self), Ok(resp)),
            Next::Closed => (None, Err(self.died())),
            Next::TimedOut => {
                // Killed at once: one that hangs does not read the end of its input.
                let mut hung = self;
                let _ = hung.child.kill();
                drop(hung);
                (
                    None,
                    Err(Failure::Hung {
                        timeout_ms: limit.as_millis() as u64,
                    }),
                )
            }
        }
    }
}

impl Drop for LineProcess {
    /// End the process as [`live::end_all`] does (its stdin closed, [`live::GRACE`] to exit:
    /// a worker then ends and reaps its own server child, which a kill would orphan), kill it
    /// when it does not, and reap it. A dead one that was waited for is not signalled again:
    /// `Child` keeps its status.
    fn drop(&mut self) {
        live::forget(self.child.id());
        drop(self.stdin.take());
        let deadline = std::time::Instant::now() + live::GRACE;
        while matches!(self.child.try_wait(), Ok(None)) && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::sh;

    #[test]
    fn answers_come_line_by_line_and_a_death_or_silence_ends_the_process() {
        let limit = Duration::from_secs(5);
        let p = LineProcess::start(&mut sh(
            "while read l; do case $l in die) echo bye >&2; kill -ABRT $$;; wait) sleep 30;; *) echo \"re $l\";; esac; done",
        ))
        .unwrap();
        let (p, a) = p.request("one", limit);
        assert_eq!(a, Ok("re one".into()));
        let (p, a) = p.unwrap().request("die", limit);
        assert!(p.is_none());
        assert_eq!(
            a,
            Err(Failure::Crashed {
                signal: Signal::named("SIGABRT"),
                repeated: None,
                detail: Some("bye".into())
            })
        );
        let p = LineProcess::start(&mut sh("read l; sleep 30")).unwrap();
        let (p, a) = p.request("wait", Duration::from_millis(200));
        assert!(p.is_none());
        assert_eq!(a, Err(Failure::Hung { timeout_ms: 200 }));
    }

    #[test]
    fn a_dropped_process_ends_its_own_children_before_it_is_reaped() {
        // A stand-in worker (not a real one: this tests how a process is ended) that says
        // its child's pid, and at the end of its input kills and reaps that child, as
        // `sframe-worker` ends its server child. Killed instead, it would orphan the child.
        let p = LineProcess::start(&mut sh(
            "sleep 30 & c=$!; echo $c; cat >/dev/null; kill $c; wait $c",
        ))
        .unwrap();
        let (p, grandchild) = p.receive(Duration::from_secs(5));
        let grandchild = grandchild.unwrap();
        drop(p);
        assert!(
            !std::path::Path::new(&format!("/proc/{grandchild}")).exists(),
            "its child {grandchild} was orphaned"
        );
    }

    #[test]
    fn a_dropped_process_is_reaped_not_left_a_zombie() {
        // One that ends at the end of its input, and one that ignores it.
        for script in ["cat >/dev/null", "exec sleep 30"] {
            let p = LineProcess::start(&mut sh(script)).unwrap();
            let pid = p.child.id();
            drop(p);
            // A zombie keeps its /proc entry until its parent reaps it.
            assert!(
                !std::path::Path::new(&format!("/proc/{pid}")).exists(),
                "{script}: left unreaped"
            );
        }
    }
}
