//! `sframe-run`: how the suite runs other programs. One deadline and one retry policy
//! ([`Policy`]) serve every process it starts: the workers hosting GNU libsframe and glibc's
//! reader and external programs ([`LineProcess`], a long-lived process answering request
//! lines), text tools such as `objdump --sframe` and assemblers ([`run`], one run of a
//! command per question).
//!
//! The policy: a try that misses its deadline is killed and tried once more with
//! [`HANG_RETRY_FACTOR`] times the limit, and is a hang only when that one runs out of time
//! too (a deadline missed once is as likely the machine's load as the program: a libsframe
//! crash that takes 2.5 s alone took over 10 s on a 2-core machine running four jobs; a
//! finding must reproduce). A try that dies on a signal is tried once more: the crash stands
//! when the second try dies on the same signal, and is marked nondeterministic (`repeated: Some(false)`, and in its
//! detail for people) when it does not.

mod at_exit;
pub mod cpu_slot;
mod line_process;
mod live;
mod once;
mod policy;
mod signal;

pub use at_exit::at_exit;
pub use line_process::LineProcess;
pub use once::{run, run_once, Ran};
pub use policy::{Failure, Policy, Try, DEFAULT_TIMEOUT, HANG_RETRY_FACTOR};
pub use sframe_findings::signature::Signal;
pub use signal::status_signal;

/// What the unit tests share.
#[cfg(test)]
mod test_support {
    use std::process::Command;

    /// `sh -c SCRIPT`: a stand-in program whose behaviour the test chooses.
    pub fn sh(script: &str) -> Command {
        let mut c = Command::new("sh");
        c.arg("-c").arg(script);
        c
    }
}
