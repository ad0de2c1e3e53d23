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

#[cfg(test)]
mod tests {
    /// Where the child's hook writes (the child is this test binary, run again).
    const VAR: &str = "SFRAME_RUN_AT_EXIT_TEST_FILE";

    fn hook() {
        if let Some(p) = std::env::var_os(VAR) {
            let _ = std::fs::write(p, "ran");
        }
    }

    /// In the child: register the hook and exit as libFuzzer does, with `exit`.
    #[test]
    fn child_registers_and_exits() {
        if std::env::var_os(VAR).is_none() {
            return;
        }
        super::at_exit(hook);
        std::process::exit(0);
    }

    #[test]
    fn a_hook_runs_when_the_process_exits() {
        let file = std::env::temp_dir().join(format!("sframe-run-at-exit-{}", std::process::id()));
        let _ = std::fs::remove_file(&file);
        let status = std::process::Command::new(std::env::current_exe().expect("test binary"))
            .args([
                "--exact",
                "at_exit::tests::child_registers_and_exits",
                "--test-threads=1",
            ])
            .env(VAR, &file)
            .stdout(std::process::Stdio::null())
            .status()
            .expect("the child runs");
        assert!(status.success());
        let wrote = std::fs::read_to_string(&file).ok();
        let _ = std::fs::remove_file(&file);
        assert_eq!(
            wrote.as_deref(),
            Some("ran"),
            "the hook did not run at exit"
        );
    }
}
