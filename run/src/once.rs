//! One run of a command per question (text tools, assemblers, `--version` probes): its
//! output within a deadline ([`run_once`]), or settled by the retry policy ([`run`]).

use crate::policy::{Failure, Policy, Try};
use sframe_findings::signature::Signal;
use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// What one run printed, and how it ended.
#[derive(Debug, Clone)]
pub struct Ran {
    /// `None`: killed at the deadline (what it printed until then is kept).
    pub status: Option<ExitStatus>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

impl Ran {
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
}

/// Read all of `r` on a thread of its own.
fn drain(mut r: impl Read + Send + 'static) -> JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = r.read_to_end(&mut s);
        s
    })
}

/// Wait for `child` at most `limit`: its status, or `None` when it ran out of time (it is
/// killed then).
fn wait_within(child: &mut Child, limit: Duration) -> std::io::Result<Option<ExitStatus>> {
    let deadline = Instant::now() + limit;
    // Short runs are common: poll often at first, then every millisecond.
    let mut nap = Duration::from_micros(50);
    loop {
        match child.try_wait()? {
            Some(s) => return Ok(Some(s)),
            None if Instant::now() < deadline => {
                std::thread::sleep(nap);
                nap = (nap * 2).min(Duration::from_millis(1));
            }
            None => {
                let _ = child.kill();
                let _ = child.wait();
                return Ok(None);
            }
        }
    }
}

/// Run `cmd` once (stdin empty, stdout and stderr read) within `limit`; `Err` when it cannot
/// be started.
pub fn run_once(cmd: &mut Command, limit: Duration) -> std::io::Result<Ran> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let out = child.stdout.take().map(drain);
    let err = child.stderr.take().map(drain);
    let status = wait_within(&mut child, limit);
    let take = |t: Option<JoinHandle<Vec<u8>>>| t.and_then(|t| t.join().ok()).unwrap_or_default();
    let (stdout, stderr) = (take(out), take(err));
    Ok(Ran {
        status: status?,
        stdout,
        stderr,
    })
}

/// One try of [`run`]: a signal is a crash (its detail what the program wrote to stderr),
/// the deadline a hang; any exit an answer.
fn try_once(cmd: &mut Command, limit: Duration) -> Try<std::io::Result<Ran>> {
    let ran = match run_once(cmd, limit) {
        Ok(r) => r,
        Err(e) => return Ok(Err(e)),
    };
    match ran.status {
        None => Err(Failure::Hung {
            timeout_ms: limit.as_millis() as u64,
        }),
        Some(s) => match s.signal() {
            Some(sig) => Err(Failure::Crashed {
                signal: Signal::from_number(sig),
                repeated: None,
                detail: Some(ran.stderr_text()),
            }),
            None => Ok(Ok(ran)),
        },
    }
}

/// Run `cmd` under `policy` (see the crate docs): how it exited and what it printed, or
/// the crash or hang that stands; `Err` when it cannot be started.
pub fn run(cmd: &mut Command, policy: Policy) -> std::io::Result<Try<Ran>> {
    match policy.settle(|limit| try_once(cmd, limit)) {
        Ok(Ok(ran)) => Ok(Ok(ran)),
        Ok(Err(e)) => Err(e),
        Err(f) => Ok(Err(f)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::sh;
    use crate::HANG_RETRY_FACTOR;

    #[test]
    fn an_exit_is_an_answer_with_what_was_printed() {
        let r = run(&mut sh("echo out; echo err >&2; exit 3"), Policy::default())
            .unwrap()
            .unwrap();
        assert_eq!(r.status.and_then(|s| s.code()), Some(3));
        assert_eq!(
            (r.stdout_text(), r.stderr_text()),
            ("out\n".into(), "err\n".into())
        );
    }

    #[test]
    fn a_signal_is_a_crash_and_a_missing_program_an_error() {
        let r = run(
            &mut sh("echo last words >&2; kill -SEGV $$"),
            Policy::default(),
        )
        .unwrap();
        assert_eq!(
            r.unwrap_err(),
            Failure::Crashed {
                signal: Signal::named("SIGSEGV"),
                repeated: Some(true),
                detail: Some("last words\n".into())
            }
        );
        assert!(run(&mut Command::new("/nonexistent/tool"), Policy::default()).is_err());
    }

    /// A stand-in program (not a real tool: this tests the deadline) that sleeps past the
    /// deadline on its first `sleeps` runs in `dir`, then prints a line.
    #[test]
    fn a_deadline_is_a_hang_only_when_missed_twice_in_a_row() {
        let base = std::env::temp_dir().join(format!("sframe-run-slow-{}", std::process::id()));
        let limit = Duration::from_millis(300);
        assert!(limit * HANG_RETRY_FACTOR < Duration::from_secs(30));
        for (sleeps, hang) in [(0, false), (1, false), (2, true)] {
            let dir = base.join(format!("sleeps-{sleeps}"));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            let script = format!(
                "n=$(ls {d} | grep -c run); : > {d}/run$n; [ \"$n\" -lt {sleeps} ] && exec sleep 30; echo listed",
                d = dir.display()
            );
            match run(&mut sh(&script), Policy::new(limit)).unwrap() {
                Err(Failure::Hung { timeout_ms }) => {
                    assert!(hang, "{sleeps} slow runs: hung");
                    assert_eq!(timeout_ms, 300 * u64::from(HANG_RETRY_FACTOR));
                }
                Ok(r) => {
                    assert!(!hang, "{sleeps} slow runs: answered");
                    assert_eq!(r.stdout_text(), "listed\n");
                }
                Err(other) => panic!("{sleeps} slow runs: {other:?}"),
            }
        }
        let _ = std::fs::remove_dir_all(&base);
    }
}
