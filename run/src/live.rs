//! The long-lived processes ([`crate::LineProcess`]) this process started and has not
//! reaped, ended when this process exits.
//!
//! A process that exits leaving its children running orphans them: a worker then reads the
//! end of its requests, exits, and stays a zombie until whatever adopts it reaps it (libFuzzer's
//! fork mode ends a fuzzing job every few seconds, each with a worker per library). So the
//! first [`register`] installs an `atexit` handler that ends every process still registered
//! as a worker ends at the end of its requests (its stdin closed: `sframe-worker` then stops
//! and reaps its own server child), waiting [`GRACE`] for it, then kills it, and reaps it. A
//! process that dies on a signal runs no `atexit` handler: its workers are orphaned, read
//! the end of their requests and exit.

use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

/// How long a process whose stdin was closed gets to exit before it is killed (a worker
/// takes milliseconds; more on a loaded machine).
pub const GRACE: Duration = Duration::from_secs(2);

/// A started process: its pid and the descriptor of its stdin (the write end, ours).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Live {
    pub pid: u32,
    pub stdin: i32,
}

static LIVE: Mutex<Vec<Live>> = Mutex::new(Vec::new());
static HOOK: Once = Once::new();

extern "C" fn at_exit() {
    // Another thread may hold the lock (the exit is then that thread's business): leave
    // its processes to be orphaned rather than wait for it.
    let taken = match LIVE.try_lock() {
        Ok(mut l) => std::mem::take(&mut *l),
        Err(_) => return,
    };
    end_all(&taken, GRACE);
}

/// Note a started process, to be ended when this process exits (unless [`forget`]ten).
pub fn register(p: Live) {
    HOOK.call_once(|| {
        // SAFETY: `at_exit` is a plain function that runs once, at exit.
        unsafe {
            libc::atexit(at_exit);
        }
    });
    LIVE.lock().unwrap_or_else(|e| e.into_inner()).push(p);
}

/// Forget a process that was reaped, or is being.
pub fn forget(pid: u32) {
    LIVE.lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|l| l.pid != pid);
}

/// End `procs`: close each one's stdin, give them `grace` to exit, kill those that did not,
/// and reap every one.
pub fn end_all(procs: &[Live], grace: Duration) {
    for p in procs {
        // SAFETY: closes the write end this process holds; nothing uses it after exit.
        unsafe {
            libc::close(p.stdin);
        }
    }
    let deadline = Instant::now() + grace;
    let mut left: Vec<i32> = procs.iter().map(|p| p.pid as i32).collect();
    while !left.is_empty() && Instant::now() < deadline {
        // SAFETY: polls children this process started.
        left.retain(|&pid| unsafe { libc::waitpid(pid, std::ptr::null_mut(), libc::WNOHANG) } == 0);
        if !left.is_empty() {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    for pid in left {
        // SAFETY: kills and reaps a child this process started and has not reaped.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
            libc::waitpid(pid, std::ptr::null_mut(), 0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::IntoRawFd;
    use std::process::{Command, Stdio};

    fn reaped(pid: u32) -> bool {
        // A zombie still has its /proc entry: only a reaped process has none.
        !std::path::Path::new(&format!("/proc/{pid}")).exists()
    }

    #[test]
    // The processes are reaped by `end_all`, which is what is tested.
    #[allow(clippy::zombie_processes)]
    fn ending_closes_stdin_then_kills_and_reaps_every_process() {
        // One that ends at the end of its input, one that ignores it.
        let spawn = |script: &str| {
            let mut c = Command::new("sh")
                .arg("-c")
                .arg(script)
                .stdin(Stdio::piped())
                .spawn()
                .unwrap();
            let stdin = c.stdin.take().unwrap().into_raw_fd();
            Live { pid: c.id(), stdin }
        };
        let polite = spawn("cat >/dev/null");
        let deaf = spawn("exec sleep 30");
        let t = Instant::now();
        end_all(&[polite, deaf], Duration::from_millis(300));
        assert!(t.elapsed() < Duration::from_secs(10));
        assert!(reaped(polite.pid), "the process that read to its end");
        assert!(reaped(deaf.pid), "the process that had to be killed");
    }
}
