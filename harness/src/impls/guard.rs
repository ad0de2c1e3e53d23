//! Running in-process code behind `catch_unwind`: a panic becomes a crash outcome (signal
//! `panic`, its source location as site, detail `at <site>: <message>`) instead of the
//! caller's death. Used by the
//! gate for the parser under test and by in-process adapters of foreign crates.

use super::Outcome;
use crate::signature::{CrashSite, Signal};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;

/// Serializes panic-hook swaps between threads.
static HOOK: Mutex<()> = Mutex::new(());
/// Where the last caught panic happened.
static LAST_PANIC: Mutex<Option<CrashSite>> = Mutex::new(None);

/// Run `f`, turning a panic into a crash outcome with its site (the panic's source location,
/// [`CrashSite::panic_at`]) and its message as detail; the panic hook stays quiet meanwhile.
pub fn guarded<T>(f: impl FnOnce() -> Outcome<T>) -> Outcome<T> {
    let _lock = HOOK.lock().unwrap_or_else(|e| e.into_inner());
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|info| {
        let at = info
            .location()
            .map(|l| CrashSite::panic_at(l.file(), l.line()));
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
            let site = LAST_PANIC.lock().unwrap_or_else(|e| e.into_inner()).take();
            let detail = match &site {
                Some(at) => format!("at {at}: {msg}"),
                None => msg,
            };
            Outcome::Crashed {
                signal: Signal::Panic,
                site,
                repeated: None,
                detail: Some(detail),
            }
        }
    }
}
