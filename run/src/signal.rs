//! How a process ended, typed: a signal ([`Signal::from_number`]), an exit by its status.

use sframe_findings::signature::Signal;
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;

/// How a process that gave no answer ended: its signal, or its exit status.
pub fn status_signal(s: ExitStatus) -> Signal {
    match (s.signal(), s.code()) {
        (Some(sig), _) => Signal::from_number(sig),
        (None, Some(c)) => Signal::Exit(c),
        (None, None) => Signal::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_is_its_signal_or_its_exit() {
        // wait(2)'s status word: the exit code in bits 8..16, a signal in bits 0..7;
        // SIGSEGV is 11 on x86 and ARM (signal(7)).
        assert_eq!(
            status_signal(ExitStatus::from_raw(3 << 8)).to_string(),
            "exit 3"
        );
        assert_eq!(
            status_signal(ExitStatus::from_raw(11)).to_string(),
            "SIGSEGV"
        );
        assert_eq!(status_signal(ExitStatus::from_raw(40)), Signal::Number(40));
    }
}
