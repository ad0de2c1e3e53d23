//! Serving each request in a forked child, so that a crash of the hosted C library costs a
//! `fork`, not a new worker process (with its `dlopen`s), and every request starts from the
//! same clean heap: a crash that depends on what earlier requests did to the heap cannot
//! happen here, and one that does happen repeats.
//!
//! For each request line the worker forks; the child answers it (writing the JSON line to a
//! pipe, and its stderr to another) and exits; the parent forwards the answer. When the
//! child dies instead (signal, abort, non-zero exit, or no answer), the parent tries once
//! more in a fresh child and answers `{"status":"crashed","signal":...,"detail":...}`
//! itself, the detail being the child's stderr (the crash reporter's `fault in` line, an
//! assertion message), marked `nondeterministic` when the second child did not die.
//! A child that hangs is killed with the worker: the harness times the request out and
//! kills the worker, and `PR_SET_PDEATHSIG` takes the child with it.

use sframe_harness::impls::process::signal_name;
use sframe_harness::impls::protocol::{answer, serve_with};
use sframe_harness::impls::{Implementation, Outcome};
use std::io::{BufRead, Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};

/// How one forked attempt ended.
enum Ended {
    Answered(String),
    Died { signal: String, stderr: String },
}

fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe2 writes.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just created and are owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

fn write_all_fd(fd: i32, mut bytes: &[u8]) {
    while !bytes.is_empty() {
        // SAFETY: writes from a live slice to a descriptor this process owns.
        let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if n <= 0 {
            return;
        }
        bytes = &bytes[n as usize..];
    }
}

fn attempt(imp: &dyn Implementation, line: &str) -> std::io::Result<Ended> {
    use std::os::fd::AsRawFd;
    let (out_r, out_w) = pipe()?;
    let (err_r, err_w) = pipe()?;
    // SAFETY: the worker is single-threaded (requests are read on the main thread), so the
    // child may allocate and call the library as the parent would.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(std::io::Error::last_os_error());
    }
    if pid == 0 {
        // The child: die with the worker; stderr to the parent's pipe; answer; exit.
        // SAFETY: plain system calls on descriptors this process owns.
        unsafe {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            libc::dup2(err_w.as_raw_fd(), 2);
        }
        let mut resp = answer(imp, line);
        resp.push('\n');
        write_all_fd(out_w.as_raw_fd(), resp.as_bytes());
        // SAFETY: leaves without running the parent's atexit handlers or destructors.
        unsafe { libc::_exit(0) };
    }
    drop(out_w);
    drop(err_w);
    let mut out = String::new();
    let mut err = Vec::new();
    // The child writes at most a few lines to stderr (the crash reporter, an assertion),
    // far below a pipe's capacity, so reading stdout to its end first cannot deadlock.
    let _ = std::fs::File::from(out_r).read_to_string(&mut out);
    let _ = std::fs::File::from(err_r)
        .take(64 * 1024)
        .read_to_end(&mut err);
    let mut status = 0;
    // SAFETY: waits for the child this call forked.
    unsafe { libc::waitpid(pid, &mut status, 0) };
    let stderr = String::from_utf8_lossy(&err).trim_end().to_string();
    let clean = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
    if clean && out.ends_with('\n') {
        out.pop();
        return Ok(Ended::Answered(out));
    }
    let signal = if libc::WIFSIGNALED(status) {
        signal_name(libc::WTERMSIG(status))
    } else if libc::WIFEXITED(status) {
        format!("exit {}", libc::WEXITSTATUS(status))
    } else {
        "unknown".into()
    };
    Ok(Ended::Died { signal, stderr })
}

fn crashed(signal: String, detail: String) -> String {
    let o: Outcome<()> = Outcome::Crashed {
        signal,
        detail: (!detail.is_empty()).then_some(detail),
    };
    serde_json::to_string(&o)
        .unwrap_or_else(|_| r#"{"status":"crashed","signal":"unknown"}"#.into())
}

/// Answer one request in a child (twice when the first child dies).
fn answer_forked(imp: &dyn Implementation, line: &str) -> std::io::Result<String> {
    match attempt(imp, line)? {
        Ended::Answered(a) => Ok(a),
        Ended::Died { signal, stderr } => Ok(match attempt(imp, line)? {
            Ended::Died {
                signal: s2,
                stderr: e2,
            } if s2 == signal => crashed(signal, if e2.is_empty() { stderr } else { e2 }),
            Ended::Died {
                signal: s2,
                stderr: e2,
            } => crashed(
                signal,
                format!("nondeterministic: {s2} on a second try; {stderr} {e2}"),
            ),
            Ended::Answered(_) => crashed(
                signal,
                format!("nondeterministic: did not repeat in a fresh child; {stderr}"),
            ),
        }),
    }
}

/// Serve requests from `input` until it ends, each in a forked child.
pub fn serve(
    imp: &dyn Implementation,
    input: impl BufRead,
    output: impl Write,
) -> std::io::Result<()> {
    serve_with(input, output, |line| answer_forked(imp, line))
}
