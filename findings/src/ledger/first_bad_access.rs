//! The first bad access of a memory-safety finding (`first_bad_access` in `finding.json`),
//! as a sanitizer build names it: per implementation and release, the error class, read or
//! write and its size, the first frame in the library's own source and how far past which
//! object. `sframe_harness::sanitizer` reads these out of AddressSanitizer's reports.

use serde::{Deserialize, Serialize};

/// The class AddressSanitizer (or UBSan) gives the error, as its `ERROR:` line names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ErrorClass {
    HeapBufferOverflow,
    StackBufferOverflow,
    StackBufferUnderflow,
    GlobalBufferOverflow,
    HeapUseAfterFree,
    DoubleFree,
    /// ASan's `unknown-crash`: the access touched poisoned memory it cannot attribute.
    UnknownCrash,
    /// A fault on memory ASan does not track (`SEGV on unknown address`).
    Segv,
    /// `SIGBUS` on an unknown address.
    Bus,
    /// `SIGFPE` (an integer division by zero).
    Fpe,
    /// `abort()`: an assertion of the library (with `handle_abort=1`).
    Abrt,
    /// A UBSan `runtime error:` that was the first report (no ASan error followed).
    UndefinedBehaviour,
}

/// Read or write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Access {
    Read,
    Write,
}

/// The worker operation that was running.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Operation {
    Decode,
    FindFre,
}

/// Where a sanitizer build first went wrong on a finding's reproducers, for one
/// implementation and release (finding.json `first_bad_access`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FirstBadAccess {
    /// `libsframe-2.40`, `glibc-2.43`.
    pub implementation: String,
    /// The Debian version the sanitizer build was compiled from (`2.40-2`).
    pub version: String,
    pub operation: Operation,
    /// The reproducers on which this same access is the first report.
    pub reproducers: Vec<String>,
    pub error: ErrorClass,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access: Option<Access>,
    /// Bytes accessed, as ASan says (`READ of size 4`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u32>,
    /// The first frame in the library's own source.
    pub function: String,
    /// Its file, relative to the source tree (`libsframe/sframe.c`).
    pub file: String,
    pub line: u32,
    /// The sanitizer interceptor the access went through (`memcpy`), when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
    /// How far past which object, in ASan's words without addresses, or UBSan's message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// The trimmed report, in the finding's directory.
    pub report: String,
}
