//! A long-lived process that answers request lines with answer lines (the workers and
//! external programs of the differential harness), each answer awaited within a deadline.
//! What to do when one dies or hangs is the caller's, through the [`crate::Policy`].
//! A process is reaped however its [`LineProcess`] ends: dropped, killed, dead, or still
//! running when this process exits ([`crate::live`]).

use crate::live::{self, Live};
use crate::policy::{Failure, Try};
use crate::signal::status_signal;
use sframe_findings::signature::Signal;
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::AsRawFd;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How many of its last stderr lines a process's crash detail keeps.
const STDERR_LINES: usize = 8;

/// A started process, its stdout read line by line and its stderr's last lines kept.
pub struct LineProcess {
    child: Child,
    /// `None` once closed, as the process is ended.
    stdin: Option<ChildStdin>,
    lines: Receiver<Option<String>>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
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
                if t.len() == STDERR_LINES {
                    t.pop_front();
                }
                t.push_back(line);
            }
        });
        Ok(LineProcess {
            child,
            stdin: Some(stdin),
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
    pub fn died(mut self) -> Failure {
        live::forget(self.child.id());
        let status = match self.child.wait() {
            Ok(s) => status_signal(s),
            Err(e) => Signal::Other(format!("wait failed: {e}")),
        };
        Failure::Crashed {
            signal: status,
            repeated: None,
            detail: self.stderr_text(),
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
        stdin
            .write_all(line.as_bytes())
            .and_then(|_| stdin.write_all(b"\n"))
            .and_then(|_| stdin.flush())
    }

    /// The answer to the request sent last, and the process when it is still good for
    /// more: one that closed its stdout died (its end is the failure), one that did not
    /// answer within `limit` is killed (a hang).
    pub fn receive(self, limit: Duration) -> (Option<LineProcess>, Try<String>) {
        match self.lines.recv_timeout(limit) {
            Ok(Some(resp)) => (Some(self), Ok(resp)),
            Ok(None) | Err(RecvTimeoutError::Disconnected) => (None, Err(self.died())),
            Err(RecvTimeoutError::Timeout) => {
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
