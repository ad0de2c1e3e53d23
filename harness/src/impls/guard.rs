//! Running in-process code behind `catch_unwind`: a panic becomes a crash outcome (signal
//! `panic`, detail `at <file>:<line>: <message>`) instead of the caller's death. Used by the
//! gate for the parser under test and by in-process adapters of foreign crates.

use super::Outcome;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;

/// Serializes panic-hook swaps between threads.
static HOOK: Mutex<()> = Mutex::new(());
/// Where the last caught panic happened (`file:line`).
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

/// Run `f`, turning a panic into a crash outcome whose detail starts with
/// `at <file>:<line>:`; the panic hook stays quiet meanwhile.
pub fn guarded<T>(f: impl FnOnce() -> Outcome<T>) -> Outcome<T> {
    let _lock = HOOK.lock().unwrap_or_else(|e| e.into_inner());
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|info| {
        let at = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()));
        *LAST_PANIC.lock().unwrap_or_else(|e| e.into_inner()) = at;
    }));
    let r = catch_unwind(AssertUnwindSafe(f));
    std::panic::set_hook(hook);
    match r {
        Ok(o) => o,
        Err(p) => {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            let at = LAST_PANIC
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take()
                .unwrap_or_default();
            Outcome::Crashed {
                signal: "panic".into(),
                detail: Some(format!("at {at}: {msg}")),
            }
        }
    }
}
