//! Reading a sanitizer report into the first bad access of a memory-safety finding
//! ([`FirstBadAccess`], at home in `sframe-findings`).
//!
//! `ci/instrumented-libs --flavour asan` builds each release's libsframe (and glibc's
//! reader) from its Debian source with AddressSanitizer and UBSan; the worker hosts such a
//! build (`libasan` preloaded, `SFRAME_WORKER_ASAN_INPUT=1`: the section on ASan's heap),
//! and a crash's detail is then ASan's report. [`parse`] reads that report into a
//! [`FirstBadAccess`]: the error class, read or write and its size, the first frame in the
//! library's own source (function, file, line), the interceptor it went through (`memcpy`)
//! and how far past which object, in ASan's own words with the addresses taken out, so that
//! two runs on the same input give equal values. [`trim`] keeps the report's useful lines
//! for the finding's `sanitizer-<implementation>-<release>.txt`.
//!
//! The Debian binaries stay the implementations under test; these records only explain
//! where their crashes begin.

pub use sframe_findings::ledger::first_bad_access::*;

/// The error class ASan's `ERROR:` line names by its first word.
fn error_class(word: &str) -> Option<ErrorClass> {
    Some(match word {
        "heap-buffer-overflow" => ErrorClass::HeapBufferOverflow,
        "stack-buffer-overflow" => ErrorClass::StackBufferOverflow,
        "stack-buffer-underflow" => ErrorClass::StackBufferUnderflow,
        "global-buffer-overflow" => ErrorClass::GlobalBufferOverflow,
        "heap-use-after-free" => ErrorClass::HeapUseAfterFree,
        "attempting" => ErrorClass::DoubleFree,
        "unknown-crash" => ErrorClass::UnknownCrash,
        "SEGV" => ErrorClass::Segv,
        "BUS" => ErrorClass::Bus,
        "FPE" => ErrorClass::Fpe,
        "ABRT" => ErrorClass::Abrt,
        _ => return None,
    })
}

/// What [`parse`] reads out of one report (the caller adds implementation, version,
/// operation, reproducers and the report's file name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    pub error: ErrorClass,
    pub access: Option<Access>,
    pub size: Option<u32>,
    pub function: String,
    pub file: String,
    pub line: u32,
    pub via: Option<String>,
    pub object: Option<String>,
}

impl Parsed {
    /// The record for a finding.
    pub fn into_record(
        self,
        implementation: &str,
        version: &str,
        operation: Operation,
        reproducers: Vec<String>,
        report: &str,
    ) -> FirstBadAccess {
        FirstBadAccess {
            implementation: implementation.into(),
            version: version.into(),
            operation,
            reproducers,
            error: self.error,
            access: self.access,
            size: self.size,
            function: self.function,
            file: self.file,
            line: self.line,
            via: self.via,
            object: self.object,
            report: report.into(),
        }
    }

    /// The same place and kind of access as `r` (what groups reproducers into one record;
    /// sizes and objects may differ between inputs).
    pub fn same_site(&self, r: &FirstBadAccess) -> bool {
        self.error == r.error
            && self.access == r.access
            && self.function == r.function
            && self.file == r.file
            && self.line == r.line
            && self.via == r.via
    }

    /// The same access as `r` records (everything a run observes).
    pub fn matches(&self, r: &FirstBadAccess) -> bool {
        self.error == r.error
            && self.access == r.access
            && self.size == r.size
            && self.function == r.function
            && self.file == r.file
            && self.line == r.line
            && self.via == r.via
            && self.object == r.object
    }
}

/// Where the library's own source lies in a frame's path: the part of the path from one
/// of these on is the file as the source tree names it.
const SOURCE_ROOTS: [&str; 4] = ["libsframe/", "sysdeps/", "worker/glibc/", "include/"];

/// A stack frame `#N 0xADDR in FUNCTION FILE:LINE[:COL]`, as (function, path, line).
fn frame(line: &str) -> Option<(&str, &str, Option<u32>)> {
    let rest = line.trim_start().strip_prefix('#')?;
    let (_, rest) = rest.split_once(" in ")?;
    let (func, loc) = rest.split_once(' ').unwrap_or((rest, ""));
    let mut parts = loc.split(':');
    let path = parts.next().unwrap_or("");
    let line = parts.next().and_then(|l| l.parse().ok());
    Some((func, path, line))
}

/// The file as the library's source tree names it, when `path` is in that source: the
/// library is compiled from absolute paths, while libc's own frames (`../sysdeps/posix/
/// raise.c`) and the host's (`worker/src/...`) are relative.
fn source_file(path: &str) -> Option<String> {
    if !path.starts_with('/') || path.contains("libsanitizer") || path.contains("compiler-rt") {
        return None;
    }
    SOURCE_ROOTS
        .iter()
        .filter_map(|root| path.rfind(root).map(|i| &path[i..]))
        .min_by_key(|s| std::cmp::Reverse(s.len()))
        .map(str::to_string)
}

/// A Rust symbol without its hash (`::h0123456789abcdef`), which changes with every build.
fn without_hash(f: &str) -> &str {
    match f.rsplit_once("::h") {
        Some((head, h)) if h.len() == 16 && h.chars().all(|c| c.is_ascii_hexdigit()) => head,
        _ => f,
    }
}

fn without_addresses(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for (i, word) in s.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let w = word.trim_matches(|c| "()[],".contains(c));
        if w.starts_with("0x") && w.len() > 6 && w.contains(',') {
            out.push_str("[...)");
        } else if w.starts_with("0x") && w.len() > 6 {
            out.push_str(&word.replace(w, "ADDR"));
        } else {
            out.push_str(word);
        }
    }
    out
}

/// `text` with every absolute path into the library's source cut to the part its source
/// tree names (`libsframe/sframe.c`), and Rust symbols without their hashes: what changes
/// from one machine or build to the next.
fn relative_paths(text: &str) -> String {
    let mut out = Vec::new();
    for word in text.split(' ') {
        let (path, rest) = word.split_once(':').unwrap_or((word, ""));
        let w = match source_file(path) {
            Some(f) if rest.is_empty() => f,
            Some(f) => format!("{f}:{rest}"),
            None => without_hash(word).to_string(),
        };
        out.push(w);
    }
    out.join(" ")
}

/// Parse the first error of a sanitizer report (the stderr of the process that died).
/// `None` when it holds no ASan error and no UBSan runtime error.
pub fn parse(report: &str) -> Option<Parsed> {
    let lines: Vec<&str> = report.lines().collect();
    let err_at = lines
        .iter()
        .position(|l| l.contains("ERROR: AddressSanitizer: "));
    let Some(e) = err_at else {
        return parse_ubsan(&lines);
    };
    let after = lines[e].split("ERROR: AddressSanitizer: ").nth(1)?;
    let error = error_class(after.split_whitespace().next()?)?;
    let mut access = None;
    let mut size = None;
    let mut object = None;
    let mut stack = Vec::new();
    let mut i = e + 1;
    while i < lines.len() {
        let l = lines[i].trim();
        if let Some(r) = l.strip_prefix("READ of size ") {
            access = Some(Access::Read);
            size = r.split_whitespace().next().and_then(|n| n.parse().ok());
        } else if let Some(r) = l.strip_prefix("WRITE of size ") {
            access = Some(Access::Write);
            size = r.split_whitespace().next().and_then(|n| n.parse().ok());
        } else if l.contains("caused by a READ memory access") {
            access = Some(Access::Read);
        } else if l.contains("caused by a WRITE memory access") {
            access = Some(Access::Write);
        } else if l.starts_with('#') {
            stack.push(l);
        } else if !stack.is_empty() {
            break;
        }
        i += 1;
    }
    // The object: ASan's sentence after the stack, with what it needs to be read.
    for (k, l) in lines.iter().enumerate().skip(i) {
        let t = l.trim();
        if t.starts_with("SUMMARY:") || t.starts_with("Shadow bytes") {
            break;
        }
        if t.starts_with("Address 0x") && t.contains(" is a wild pointer") {
            object = t
                .split_once(" is ")
                .map(|(_, r)| format!("is {}", without_addresses(r)));
            break;
        }
        if let Some(p) = t.find(" is located ") {
            let mut s = without_addresses(&t[p + 1..]);
            if t.contains("in stack of thread") {
                // The frame and the variable the access overflowed.
                let frame_fn = lines
                    .get(k + 1)
                    .and_then(|f| frame(f))
                    .map(|(f, _, _)| f.to_string());
                let var = lines[k..]
                    .iter()
                    .find(|v| v.contains("<== Memory access"))
                    .map(|v| v.trim().to_string());
                s = format!(
                    "{} ({}): {}",
                    s.trim_end_matches(" in frame"),
                    frame_fn.map_or_else(String::new, |f| format!("frame of {f}")),
                    var.unwrap_or_default()
                );
            } else if t.contains("region") {
                // The region's allocator: the first frame after "allocated by".
                if let Some(by) = lines[k..]
                    .iter()
                    .position(|v| v.contains("allocated by thread"))
                {
                    let alloc = lines[k + by + 1..]
                        .iter()
                        .filter_map(|f| frame(f))
                        .find(|(f, _, _)| !f.starts_with("__interceptor_") && *f != "malloc")
                        .map(|(f, p, l)| {
                            let at = source_file(p)
                                .map(|p| format!(" ({p}:{})", l.unwrap_or(0)))
                                .unwrap_or_default();
                            format!("{}{at}", without_hash(f))
                        });
                    if let Some(a) = alloc {
                        let input = if a.contains("Guarded::with_guards") {
                            " (the worker's copy of the input section)"
                        } else {
                            ""
                        };
                        s = format!("{s}, allocated in {a}{input}");
                    }
                }
            }
            object = Some(s);
            break;
        }
        if t.starts_with("Hint: ") {
            object = Some(without_addresses(t));
            break;
        }
    }
    if error == ErrorClass::Abrt && object.is_none() {
        // The assertion libc printed before aborting, its file named as the source tree does.
        object = lines[..e]
            .iter()
            .find(|l| l.contains("Assertion `"))
            .map(|l| relative_paths(l.trim()));
    }
    let mut via = None;
    let mut site = None;
    for f in stack.iter().filter_map(|l| frame(l)) {
        if let Some(file) = source_file(f.1) {
            site = Some((f.0.to_string(), file, f.2.unwrap_or(0)));
            break;
        }
        if via.is_none() {
            via = Some(
                f.0.trim_start_matches("__interceptor_")
                    .trim_start_matches("___interceptor_")
                    .to_string(),
            );
        }
    }
    let (function, file, line) = site?;
    if error == ErrorClass::Fpe && object.is_none() {
        // UBSan's word on the same line, when it spoke first.
        let here = format!("{file}:{line}:");
        object = lines[..e]
            .iter()
            .filter_map(|l| l.split_once(": runtime error: "))
            .find(|(at, _)| at.contains(&here))
            .map(|(_, m)| format!("UBSan before it: {}", without_addresses(m.trim())));
    }
    // Frames before the library's are interceptors or libc (`memcpy`, `raise`): keep the
    // sanitizer's own interceptor only.
    let via = via.filter(|_| {
        stack
            .first()
            .is_some_and(|l| l.contains("libsanitizer") || l.contains("compiler-rt"))
    });
    Some(Parsed {
        error,
        access,
        size,
        function,
        file,
        line,
        via,
        object,
    })
}

fn parse_ubsan(lines: &[&str]) -> Option<Parsed> {
    let (k, l) = lines
        .iter()
        .enumerate()
        .find(|(_, l)| l.contains(": runtime error: "))?;
    let (loc, msg) = l.split_once(": runtime error: ")?;
    let mut parts = loc.rsplitn(3, ':');
    let _col = parts.next();
    let line: u32 = parts.next()?.parse().ok()?;
    let path = parts.next()?;
    let file = source_file(path)?;
    let function = lines[k + 1..]
        .iter()
        .filter_map(|f| frame(f))
        .find(|(_, p, _)| source_file(p).is_some())
        .map(|(f, _, _)| f.to_string())
        .unwrap_or_default();
    Some(Parsed {
        error: ErrorClass::UndefinedBehaviour,
        access: None,
        size: None,
        function,
        file,
        line,
        via: None,
        object: Some(without_addresses(msg.trim())),
    })
}

/// The report's useful lines: UBSan's runtime errors before it, ASan's error line, the
/// access, the stack down to the first frame outside the library (the host's frames cut),
/// the object's description with its allocation stack likewise, and the summary; process
/// ids and the shadow-memory dump left out.
pub fn trim(report: &str) -> String {
    let mut out = Vec::new();
    let mut cut = false;
    for l in report.lines() {
        let t = l.trim_start();
        if t.starts_with("Shadow bytes around") || t.starts_with("==ABORTING") {
            break;
        }
        if t.starts_with('#') {
            let in_lib = frame(t).is_some_and(|(f, p, _)| {
                source_file(p).is_some()
                    || p.contains("libsanitizer")
                    || p.contains("compiler-rt")
                    || f.starts_with("__interceptor")
            });
            if in_lib {
                cut = false;
                out.push(relative_paths(l));
            } else if !cut {
                out.push(format!("{}  (host frames below cut)", relative_paths(l)));
                cut = true;
            }
            continue;
        }
        if t.is_empty() {
            continue;
        }
        let t = match t.strip_prefix("==") {
            Some(r) => match r.split_once("==") {
                Some((pid, rest)) if pid.chars().all(|c| c.is_ascii_digit()) => rest,
                _ => t,
            },
            None => t,
        };
        out.push(relative_paths(t));
    }
    out.join("\n") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    const STACK: &str = "=================================================================
==27079==ERROR: AddressSanitizer: stack-buffer-overflow on address 0x7ffd255d9204 at pc 0x7ff455048061 bp 0x7ffd255d9040 sp 0x7ffd255d87f0
WRITE of size 60 at 0x7ffd255d9204 thread T0
    #0 0x7ff455048060 in __interceptor_memcpy ../../../../src/libsanitizer/sanitizer_common/sanitizer_common_interceptors.inc:827
    #1 0x7ff45498e114 in sframe_decode_fre /root/.cache/sframe-conform/instrumented/src/binutils-2.40-2/libsframe/sframe.c:763
    #2 0x7ff4549939f5 in sframe_decoder_get_fre /root/.cache/sframe-conform/instrumented/src/binutils-2.40-2/libsframe/sframe.c:1166
    #3 0x5595ea505f5a in sframe_worker::ffi::Decoder::fre::hdcb45b48ab35460e worker/src/ffi.rs:546

Address 0x7ffd255d9204 is located in stack of thread T0 at offset 36 in frame
    #0 0x7ff45498dd2f in sframe_decode_fre /root/.cache/sframe-conform/instrumented/src/binutils-2.40-2/libsframe/sframe.c:733

  This frame has 1 object(s):
    [32, 44) 'stack_offsets' (line 735) <== Memory access at offset 36 partially overflows this variable
SUMMARY: AddressSanitizer: stack-buffer-overflow ../../../../src/libsanitizer/sanitizer_common/sanitizer_common_interceptors.inc:827 in __interceptor_memcpy
Shadow bytes around the buggy address:
  0x10002caab1f0: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
";

    #[test]
    fn a_stack_overflow_through_memcpy() {
        let p = parse(STACK).expect("parsed");
        assert_eq!(p.error, ErrorClass::StackBufferOverflow);
        assert_eq!(p.access, Some(Access::Write));
        assert_eq!(p.size, Some(60));
        assert_eq!(p.function, "sframe_decode_fre");
        assert_eq!(p.file, "libsframe/sframe.c");
        assert_eq!(p.line, 763);
        assert_eq!(p.via.as_deref(), Some("memcpy"));
        let o = p.object.expect("object");
        assert!(o.contains("'stack_offsets' (line 735)"), "{o}");
        assert!(o.contains("frame of sframe_decode_fre"), "{o}");
        assert!(!o.contains("0x7ffd"), "{o}");
    }

    #[test]
    fn a_heap_overread_names_the_region_and_its_allocator() {
        let r = "==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6020000000f4 at pc 0x1 bp 0x2 sp 0x3
READ of size 1 at 0x6020000000f4 thread T0
    #0 0x7f in sframe_fre_get_base_reg_id /x/glibc-2.43-6/sysdeps/generic/sframe-read.c:300
0x6020000000f4 is located 0 bytes to the right of 4-byte region [0x6020000000f0,0x6020000000f4)
allocated by thread T0 here:
    #0 0x7f in __interceptor_malloc ../../../../src/libsanitizer/asan/asan_malloc_linux.cpp:69
    #1 0x55 in sframe_worker::guard::Guarded::with_guards::h0123456789abcdef worker/src/guard.rs:30
SUMMARY: AddressSanitizer: heap-buffer-overflow
";
        let p = parse(r).expect("parsed");
        assert_eq!(p.error, ErrorClass::HeapBufferOverflow);
        assert_eq!((p.access, p.size), (Some(Access::Read), Some(1)));
        assert_eq!(p.file, "sysdeps/generic/sframe-read.c");
        assert_eq!(p.via, None);
        assert_eq!(
            p.object.as_deref(),
            Some("is located 0 bytes to the right of 4-byte region [...), allocated in sframe_worker::guard::Guarded::with_guards (the worker's copy of the input section)")
        );
        let t = trim(r);
        assert!(
            t.starts_with("ERROR: AddressSanitizer: heap-buffer-overflow"),
            "{t}"
        );
    }

    #[test]
    fn a_division_by_zero_is_ubsans_then_fpe() {
        let r =
            "/x/glibc-2.43-6/sysdeps/generic/sframe-read.c:510:22: runtime error: division by zero
    #0 0x7f in __sframe_find_fre /x/glibc-2.43-6/sysdeps/generic/sframe-read.c:510
==5==ERROR: AddressSanitizer: FPE on unknown address 0x7f12 (pc 0x7f12 bp 0x1 sp 0x2 T0)
    #0 0x7f12 in __sframe_find_fre /x/glibc-2.43-6/sysdeps/generic/sframe-read.c:510
SUMMARY: AddressSanitizer: FPE
";
        let p = parse(r).expect("parsed");
        assert_eq!(p.error, ErrorClass::Fpe);
        assert_eq!(p.function, "__sframe_find_fre");
        assert_eq!(p.line, 510);
        assert_eq!(
            p.object.as_deref(),
            Some("UBSan before it: division by zero")
        );
        assert!(parse("no report at all\n").is_none());
    }
}
