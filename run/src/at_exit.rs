//! Functions to run when this process exits normally (`exit`, the end of `main`, and so
//! libFuzzer's end of a fuzzing job), for the crates that keep `unsafe` out: libc's
//! `atexit` behind a safe call. A process that dies on a signal runs none of them.

use std::sync::{Mutex, Once};

static HOOKS: Mutex<Vec<fn()>> = Mutex::new(Vec::new());
static INSTALLED: Once = Once::new();

extern "C" fn run_hooks() {
    // A thread holding the lock at exit is registering one: leave the hooks rather than wait.
    let Ok(hooks) = HOOKS.try_lock() else { return };
    for h in hooks.iter() {
        h();
    }
}

/// Run `hook` when this process exits normally (once per registration, in registration order).
pub fn at_exit(hook: fn()) {
    INSTALLED.call_once(|| {
        // SAFETY: `run_hooks` is a plain function that runs once, at exit.
        unsafe {
            libc::atexit(run_hooks);
        }
    });
    HOOKS.lock().unwrap_or_else(|e| e.into_inner()).push(hook);
}
