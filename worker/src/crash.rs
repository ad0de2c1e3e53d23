//! The crash reporter of the worker's children: on a fault inside the hosted C library, one
//! line naming where (the library and the function, from its full symbol table when there is
//! one, see `symbols`, else its nearest exported symbol) on stderr, then death by the same
//! signal, which the forking parent reports as a crash with that line as detail and the site
//! it names ([`FAULT_LINE`] is the line's beginning, which the site's reader looks for).
//! A clean fault in a server child's request is recovered from instead (`recover`), after
//! the same line.

use sframe_harness::signature::FAULT_LINE;
use std::ffi::{c_int, c_void, CStr};

extern "C" {
    /// glibc `backtrace(3)` (execinfo.h).
    fn backtrace(buffer: *mut *mut c_void, size: c_int) -> c_int;
}

/// Append `s` to `buf` at `*n`, truncating at the buffer's end (no allocation).
pub(crate) fn put(buf: &mut [u8], n: &mut usize, s: &[u8]) {
    for &b in s {
        if *n < buf.len() {
            buf[*n] = b;
            *n += 1;
        }
    }
}

/// The crash reporter: on SIGSEGV, SIGBUS, SIGFPE or SIGILL, write
/// `sframe-worker: fault in <library> <symbol>` (the first frame inside libsframe: the function
/// holding it, else its nearest exported symbol, or `+0x<offset>` in the library when no
/// exported symbol precedes it; `-
/// outside-libsframe` when no frame is in libsframe) to stderr, then die of the same signal.
extern "C" fn on_fault(sig: c_int, info: *mut libc::siginfo_t, _ctx: *mut c_void) {
    let mut frames = [std::ptr::null_mut::<c_void>(); 64];
    let mut line = [0u8; 512];
    let mut n = 0;
    put(&mut line, &mut n, FAULT_LINE.as_bytes());
    // SAFETY: backtrace writes at most `frames.len()` pointers; dladdr only reads the
    // loader's tables; the strings it returns are NUL-terminated and live while the
    // objects stay loaded. Nothing here allocates.
    unsafe {
        let count = backtrace(frames.as_mut_ptr(), frames.len() as c_int).max(0) as usize;
        let mut found = false;
        for &f in &frames[..count] {
            // dladdr searches the symbols of the frame's object: only for a frame inside
            // the hosted library, when its segments are known.
            if !in_hosted_library(f as usize) {
                continue;
            }
            let mut info: libc::Dl_info = std::mem::zeroed();
            if libc::dladdr(f as *const c_void, &mut info) == 0 || info.dli_fname.is_null() {
                continue;
            }
            let file = CStr::from_ptr(info.dli_fname).to_bytes();
            if !is_hosted(file) {
                continue;
            }
            let base = file.rsplit(|&c| c == b'/').next().unwrap_or(file);
            put(&mut line, &mut n, base);
            put(&mut line, &mut n, b" ");
            let off = (f as usize).wrapping_sub(info.dli_fbase as usize);
            if let Some(name) = crate::symbols::function_at(off as u64) {
                // The function that holds it, from the full symbol table.
                put(&mut line, &mut n, name.to_bytes());
            } else if info.dli_sname.is_null() {
                // No exported symbol before it: the offset in the library.
                put(&mut line, &mut n, b"+0x");
                let mut digits = [0u8; 16];
                let mut k = 0;
                let mut v = off;
                loop {
                    digits[k] = b"0123456789abcdef"[v & 15];
                    k += 1;
                    v >>= 4;
                    if v == 0 || k == digits.len() {
                        break;
                    }
                }
                digits[..k].reverse();
                put(&mut line, &mut n, &digits[..k]);
            } else {
                put(&mut line, &mut n, CStr::from_ptr(info.dli_sname).to_bytes());
            }
            found = true;
            break;
        }
        if !found {
            put(&mut line, &mut n, b"- outside-libsframe");
        }
        put(&mut line, &mut n, b"\n");
        libc::write(2, line.as_ptr() as *const c_void, n);
        // A clean fault in a server child's request: back to its request loop (`recover`).
        crate::recover::after_fault(sig, info);
        // Die of the same signal: restore the default action and re-raise.
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

/// Whether `name` is the hosted library's file: GNU libsframe, or glibc's reader as
/// ci/glibc-reader builds it.
fn is_hosted(name: &[u8]) -> bool {
    name.windows(9).any(|w| w == b"libsframe") || name.windows(11).any(|w| w == b"sframe-read")
}

/// The loaded segments of the hosted library, `(start, end)`; none noted: every frame is
/// looked up.
const SEGMENTS: usize = 16;
static mut HOSTED: [(usize, usize); SEGMENTS] = [(0, 0); SEGMENTS];
static mut HOSTED_COUNT: usize = 0;

fn in_hosted_library(addr: usize) -> bool {
    // SAFETY: written once before any child is forked (`note_hosted_library`), read after.
    unsafe {
        let n = *std::ptr::addr_of!(HOSTED_COUNT);
        let table = &*std::ptr::addr_of!(HOSTED);
        n == 0 || table[..n].iter().any(|&(s, e)| (s..e).contains(&addr))
    }
}

unsafe extern "C" fn note_segments(
    info: *mut libc::dl_phdr_info,
    _size: usize,
    _data: *mut c_void,
) -> c_int {
    let info = &*info;
    if info.dlpi_name.is_null() || !is_hosted(CStr::from_ptr(info.dlpi_name).to_bytes()) {
        return 0;
    }
    for i in 0..usize::from(info.dlpi_phnum) {
        let ph = &*info.dlpi_phdr.add(i);
        let n = *std::ptr::addr_of!(HOSTED_COUNT);
        if ph.p_type == libc::PT_LOAD && n < SEGMENTS {
            let start = (info.dlpi_addr as usize).wrapping_add(ph.p_vaddr as usize);
            let table = &mut *std::ptr::addr_of_mut!(HOSTED);
            table[n] = (start, start + ph.p_memsz as usize);
            *std::ptr::addr_of_mut!(HOSTED_COUNT) = n + 1;
        }
    }
    0
}

/// Note where the hosted library (loaded by now) lies, so that the reporter looks up only
/// its frames' symbols (`dladdr` on every frame was most of a crash's cost).
pub fn note_hosted_library() {
    // SAFETY: the callback reads the loader's program headers and writes the table, on
    // this (the only) thread, before any child is forked.
    unsafe {
        libc::dl_iterate_phdr(Some(note_segments), std::ptr::null_mut());
    }
}

/// Install [`on_fault`] for the fault signals.
pub fn install_crash_reporter() {
    // The first backtrace(3) loads libgcc_s with dlopen; do it now, not in a signal handler
    // on a corrupted heap.
    let mut frames = [std::ptr::null_mut::<c_void>(); 4];
    // SAFETY: writes at most 4 pointers into `frames`.
    unsafe { backtrace(frames.as_mut_ptr(), frames.len() as c_int) };
    reinstall_crash_reporter();
}

/// Install [`on_fault`] again (its delivery resets it), as after a recovery (`recover`).
pub fn reinstall_crash_reporter() {
    for sig in [libc::SIGSEGV, libc::SIGBUS, libc::SIGFPE, libc::SIGILL] {
        // SAFETY: a zeroed sigaction with a valid SA_SIGINFO handler and an empty mask;
        // the handler only does what is listed in its SAFETY comment.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_fault as *const () as usize;
            sa.sa_flags = libc::SA_SIGINFO | libc::SA_RESETHAND;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}
