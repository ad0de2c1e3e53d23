//! Names of the ways a process ends: a signal by its name, an exit by its status.

use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;

/// The name of a signal number (Linux numbering), or `signal N`.
pub fn signal_name(sig: i32) -> String {
    let name = match sig {
        1 => "SIGHUP",
        2 => "SIGINT",
        4 => "SIGILL",
        5 => "SIGTRAP",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        15 => "SIGTERM",
        24 => "SIGXCPU",
        31 => "SIGSYS",
        _ => return format!("signal {sig}"),
    };
    name.to_string()
}

/// How a process that gave no answer ended: its signal's name, or `exit N`.
pub fn status_name(s: ExitStatus) -> String {
    match (s.signal(), s.code()) {
        (Some(sig), _) => signal_name(sig),
        (None, Some(c)) => format!("exit {c}"),
        (None, None) => "unknown".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signals_are_named_as_linux_numbers_them() {
        // signal(7): SIGSEGV 11, SIGBUS 7, SIGABRT 6 on x86 and ARM.
        assert_eq!(signal_name(11), "SIGSEGV");
        assert_eq!(signal_name(7), "SIGBUS");
        assert_eq!(signal_name(6), "SIGABRT");
        assert_eq!(signal_name(40), "signal 40");
        assert_eq!(status_name(ExitStatus::from_raw(3 << 8)), "exit 3");
        assert_eq!(status_name(ExitStatus::from_raw(11)), "SIGSEGV");
    }
}
