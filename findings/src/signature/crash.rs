//! A crash's signal and site: how the process died and where, as far as it said.

use super::{text_serde, ParseError};
use std::fmt;
use std::str::FromStr;

/// How a process died, as the adapters name it (`Outcome::Crashed::signal`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Signal {
    /// A signal with a name (`SIGSEGV`, `SIGABRT`, ...).
    Named(String),
    /// A signal without one (`signal 42`).
    Number(i32),
    /// A non-zero exit where an answer was due (`exit 127`).
    Exit(i32),
    /// A Rust panic.
    Panic,
    /// The process answered what the protocol does not allow.
    ProtocolError,
    /// The status could not be told.
    Unknown,
    /// Anything else an adapter said (never parsed back: it may hold `:`).
    Other(String),
}

impl Signal {
    /// The signal an adapter's text names (never fails: see [`Signal::Other`]).
    pub fn named(s: &str) -> Signal {
        s.parse().unwrap_or_else(|_| Signal::Other(s.to_string()))
    }
}

impl fmt::Display for Signal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Signal::Named(s) | Signal::Other(s) => f.write_str(s),
            Signal::Number(n) => write!(f, "signal {n}"),
            Signal::Exit(n) => write!(f, "exit {n}"),
            Signal::Panic => f.write_str("panic"),
            Signal::ProtocolError => f.write_str("protocol-error"),
            Signal::Unknown => f.write_str("unknown"),
        }
    }
}

impl FromStr for Signal {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Signal, ParseError> {
        let number = |n: &str| n.parse::<i32>().ok().filter(|_| !n.starts_with('+'));
        if let Some(n) = s.strip_prefix("signal ").and_then(number) {
            return Ok(Signal::Number(n));
        }
        if let Some(n) = s.strip_prefix("exit ").and_then(number) {
            return Ok(Signal::Exit(n));
        }
        match s {
            "panic" => Ok(Signal::Panic),
            "protocol-error" => Ok(Signal::ProtocolError),
            "unknown" => Ok(Signal::Unknown),
            _ if s.len() > 3
                && s.starts_with("SIG")
                && s.bytes()
                    .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit()) =>
            {
                Ok(Signal::Named(s.to_string()))
            }
            _ => Err(ParseError::UnknownSignal(s.to_string())),
        }
    }
}

/// Where a crash happened, when the process said.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CrashSite {
    /// A C function: the one of a failed assertion, or the nearest exported symbol of a
    /// fault in the library.
    Function(String),
    /// A Rust panic's source location from the crate's `src/` on (`src/v3.rs:271`).
    Source(String),
    /// A fault in a stripped static function of the library: only an offset, which differs
    /// from one faulting instruction to the next.
    Unsymbolized,
    /// A fault with no frame in the library (control flow taken from the section).
    OutsideLibsframe,
    /// glibc's heap checks caught a write past an allocation.
    HeapCorruption,
    /// A crash a fresh process does not repeat: it depends on the heap's state.
    Nondeterministic,
}

impl fmt::Display for CrashSite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CrashSite::Function(s) | CrashSite::Source(s) => f.write_str(s),
            CrashSite::Unsymbolized => f.write_str("unsymbolized"),
            CrashSite::OutsideLibsframe => f.write_str("outside-libsframe"),
            CrashSite::HeapCorruption => f.write_str("heap-corruption"),
            CrashSite::Nondeterministic => f.write_str("nondeterministic"),
        }
    }
}

impl FromStr for CrashSite {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<CrashSite, ParseError> {
        Ok(match s {
            "" => return Err(ParseError::Empty("crash site")),
            "unsymbolized" => CrashSite::Unsymbolized,
            "outside-libsframe" => CrashSite::OutsideLibsframe,
            "heap-corruption" => CrashSite::HeapCorruption,
            "nondeterministic" => CrashSite::Nondeterministic,
            _ if s.contains(['/', ':', '.']) => CrashSite::Source(s.to_string()),
            _ if s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') => {
                CrashSite::Function(s.to_string())
            }
            _ => return Err(ParseError::BadSite(s.to_string())),
        })
    }
}

/// Where a crash happened, from what the process said (`detail`): the function of a failed C
/// assertion (`sframe.c:277: sframe_fre_start_addr_size: Assertion ...`), the nearest
/// exported libsframe symbol of a fault (`sframe-worker: fault in libsframe.so.3
/// sframe_decode`, from the worker's crash reporter), or the source location of a Rust panic
/// (`at .../src/v3.rs:258: ...`, from the crate's `src/` on).
pub fn crash_site(signal: &Signal, detail: Option<&str>) -> Option<CrashSite> {
    let d = detail?;
    if d.starts_with("nondeterministic") {
        // A crash that does not repeat on a fresh process depends on the heap's state:
        // memory corruption, whatever the signal.
        return Some(CrashSite::Nondeterministic);
    }
    if *signal == Signal::Panic {
        let at = d.strip_prefix("at ")?.split(": ").next()?;
        let at = at.rfind("/src/").map_or(at, |i| &at[i + 1..]);
        return (!at.is_empty()).then(|| CrashSite::Source(at.to_string()));
    }
    if let Some(l) = d
        .lines()
        .find_map(|l| l.strip_prefix("sframe-worker: fault in "))
    {
        // "<library> <function>" from the worker's crash reporter (the function from the
        // library's symbol table, else its nearest exported symbol; `- outside-libsframe`
        // when no frame is in the library). A fault in a static function of a library
        // without a symbol table is only an offset, which differs from one faulting
        // instruction to the next: its site is `unsymbolized` (the offset stays in the
        // report's text).
        return l.split_whitespace().nth(1).map(|s| {
            if s.starts_with("+0x") {
                CrashSite::Unsymbolized
            } else if s == "outside-libsframe" {
                CrashSite::OutsideLibsframe
            } else {
                // A compiler's clone of a function (`.isra.0`, `.constprop.0`, `.part.0`,
                // `.cold`) is that function.
                CrashSite::Function(s.split('.').next().unwrap_or(s).to_string())
            }
        });
    }
    // glibc's malloc integrity checks (`malloc_printerr`) name the function that noticed.
    const HEAP_CHECKS: [&str; 8] = [
        "free(): ",
        "malloc(): ",
        "realloc(): ",
        "munmap_chunk(): ",
        "malloc_consolidate(): ",
        "double free",
        "corrupted",
        "invalid next size",
    ];
    if HEAP_CHECKS.iter().any(|m| d.contains(m)) {
        // glibc's heap checks caught a write past an allocation.
        return Some(CrashSite::HeapCorruption);
    }
    let line = d.lines().find(|l| l.contains(": Assertion"))?;
    let before = line.split(": Assertion").next()?;
    before
        .rsplit(": ")
        .next()
        .map(|f| f.trim().to_string())
        .filter(|f| !f.is_empty())
        .map(CrashSite::Function)
}

#[cfg(test)]
mod heap_check_tests {
    use super::*;

    #[test]
    fn every_glibc_heap_check_message_is_heap_corruption() {
        // The messages of glibc's `malloc_printerr` calls, as a worker's stderr shows them.
        for msg in [
            "SIGABRT: munmap_chunk(): invalid pointer",
            "SIGABRT: realloc(): invalid old size",
            "SIGABRT: free(): invalid next size (fast)",
            "SIGABRT: malloc(): corrupted top size",
            "SIGABRT: double free or corruption (out)",
        ] {
            assert_eq!(
                crash_site(&Signal::named("SIGABRT"), Some(msg)),
                Some(CrashSite::HeapCorruption),
                "{msg}"
            );
        }
        assert_eq!(
            crash_site(&Signal::named("SIGABRT"), Some("SIGABRT: something else")),
            None
        );
    }
}

#[cfg(test)]
mod clone_tests {
    use super::*;

    #[test]
    fn a_compiler_clone_is_its_function() {
        let site = crash_site(
            &Signal::named("SIGSEGV"),
            Some("sframe-worker: fault in libsframe.so.1 sframe_decode_fre_start_address.isra.0"),
        );
        assert_eq!(
            site,
            Some(CrashSite::Function(
                "sframe_decode_fre_start_address".into()
            ))
        );
    }
}

text_serde!(Signal, CrashSite);
