//! Recovering a server child (`forking`) from a crash of the hosted library that is provably
//! clean, instead of letting it die: the crash is answered as before, and the child goes on
//! serving with no `fork` of a fresh child on the request's path.
//!
//! Three kinds of crash are clean:
//! - a fault (`SIGSEGV`, `SEGV_ACCERR`) on a guard page: past a live guarded heap block
//!   (`guarded_heap`) or around the input's guarded copy (`guard`). The faulting access did
//!   not happen: a read returned nothing, a write landed nowhere.
//! - an integer division trap (`SIGFPE`, `FPE_INTDIV`): a divisor of 0 taken from the section
//!   (a PC-mask function's repetition size). The trapping instruction wrote nothing, and no
//!   pointer went astray before it: the library computed with a value it read.
//! - a failed assertion (`__assert_fail`, which the worker exports in place of glibc's, see
//!   [`export_assert_fail!`](crate::export_assert_fail)): the library checked a condition
//!   before acting on it, and stops instead of acting. The message is glibc's, word for word,
//!   and the crash is reported as the `SIGABRT` that glibc's `abort` would end the child with.
//!
//! Why the child that goes on is uncorrupted: what the library did in that call before the
//! failing access or check is what it does in a call that returns, after which the child
//! already goes on serving (releasing what it leaked, `guarded_heap::release_leaked`). The
//! abandoned call's leftovers are then undone: its guarded blocks are released (the table is
//! empty again, as a fresh child's is; their pages are zeroed when reused), its guarded input
//! copies given up as dropped ones are (`guard::release_all`: the next copy finds a kept
//! mapping as a fresh one would be), guarding switched off, and the crash reporter's handler
//! (reset on delivery) installed again. The library keeps no state between calls but those blocks. What stays is
//! leaked memory of glibc's heap (the request's own buffers, never read again), bounded by
//! retiring the child after [`RECOVERIES`] recoveries. Every other crash (an `abort` of
//! glibc's own, a fault anywhere else, a stack protector's report, any other
//! trap) still ends the child, and the worker forks a fresh one as before.
//!
//! The jump back is `siglongjmp` (`recover.c`) to the request loop, over the frames of the
//! library and of the one request's answer, whose destructors do not run (their memory is
//! the leak above); no lock is held in them (the worker is single-threaded, its
//! implementations hold none).

use crate::crash::put;
use std::ffi::{c_char, c_int, c_uint, c_void};
use std::sync::atomic::{AtomicBool, Ordering};

/// How many crashes a server child recovers from before it retires (see the module docs).
pub const RECOVERIES: usize = 256;

/// Whether crashes are recovered from: unless the environment says
/// `SFRAME_WORKER_RECOVER=0` (every crash then ends its child, as before recovery existed:
/// to compare answers with and without it).
static ENABLED: AtomicBool = AtomicBool::new(true);

/// Read `SFRAME_WORKER_RECOVER` (see [`ENABLED`]): once, before serving.
/// Off as well when an AddressSanitizer runtime is loaded (triage with a sanitizer build,
/// `sframe_impls::asan_triage`): there the crash must end as the sanitizer reports it (a
/// failed assertion is the `abort` that `handle_abort=1` reports), not be recovered from.
pub fn configure() {
    let off = std::env::var_os("SFRAME_WORKER_RECOVER").is_some_and(|v| v == "0");
    ENABLED.store(!off && !asan_loaded(), Ordering::Relaxed);
}

/// Whether libasan is in the process (preloaded for triage).
fn asan_loaded() -> bool {
    // SAFETY: dlsym on the global scope with a NUL-terminated name; only compared with null.
    !unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"__asan_init".as_ptr()) }.is_null()
}

extern "C" {
    fn sframe_worker_protected(f: extern "C" fn(*mut c_void), arg: *mut c_void) -> c_int;
    fn sframe_worker_armed() -> c_int;
    fn sframe_worker_recover(sig: c_int) -> !;
}

/// Run `f`: its value, or the signal of a clean crash it was recovered from (the crash's
/// words already on stderr).
pub fn protected<T, F: FnOnce() -> T>(f: F) -> Result<T, c_int> {
    if !ENABLED.load(Ordering::Relaxed) {
        return Ok(f());
    }
    type Slot<F, T> = (Option<F>, Option<std::thread::Result<T>>);
    extern "C" fn call<F: FnOnce() -> T, T>(arg: *mut c_void) {
        // SAFETY: `arg` is the slot `protected` passes, alive for the call.
        let slot = unsafe { &mut *(arg as *mut Slot<F, T>) };
        if let Some(f) = slot.0.take() {
            // A panic does not unwind through the C frame: it is carried over it.
            slot.1 = Some(std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)));
        }
    }
    let mut slot: Slot<F, T> = (Some(f), None);
    // SAFETY: `call` gets the slot it expects; a recovered crash jumps back here over `call`
    // and the library (see the module docs).
    let sig = unsafe {
        sframe_worker_protected(call::<F, T>, std::ptr::addr_of_mut!(slot) as *mut c_void)
    };
    if sig != 0 {
        undo_abandoned_call();
        return Err(sig);
    }
    match slot.1 {
        Some(Ok(v)) => Ok(v),
        Some(Err(panic)) => std::panic::resume_unwind(panic),
        None => unreachable!("the protected call ran"),
    }
}

/// Undo what a call abandoned by a recovery left (see the module docs).
fn undo_abandoned_call() {
    crate::guarded_heap::stop_guarding();
    crate::guarded_heap::release_all();
    crate::guard::release_all();
    crate::crash::reinstall_crash_reporter();
}

/// `si_code` of a fault on a mapped page the access is not allowed to (asm-generic/siginfo.h).
const SEGV_ACCERR: c_int = 2;

/// `si_code` of an integer division trap (asm-generic/siginfo.h): on x86-64 a `div` or
/// `idiv` by zero, or of the most negative value by -1.
const FPE_INTDIV: c_int = 1;

/// Whether a crash may be recovered from now: a protected call is running.
fn armed() -> bool {
    // SAFETY: reads a flag; async-signal-safe.
    unsafe { sframe_worker_armed() != 0 }
}

/// From the crash reporter, its line written: jump back to the request loop when the fault
/// is clean (on a guard page, see the module docs) and a protected call is running; return
/// otherwise (the child then dies of the signal).
///
/// # Safety
/// Only from the fault signal handler, with the `siginfo_t` it was given.
pub unsafe fn after_fault(sig: c_int, info: *const libc::siginfo_t) {
    if info.is_null() || !armed() {
        return;
    }
    let info = &*info;
    let clean = match sig {
        libc::SIGSEGV if info.si_code == SEGV_ACCERR => {
            let addr = info.si_addr() as usize;
            crate::guarded_heap::in_guard(addr) || crate::guard::in_guard(addr)
        }
        libc::SIGFPE => info.si_code == FPE_INTDIV,
        _ => false,
    };
    if clean {
        sframe_worker_recover(sig);
    }
}

extern "C" {
    /// glibc's `__progname` (the program's name without its directory).
    static program_invocation_short_name: *const c_char;
}

/// `__assert_fail`: glibc's message on stderr, then, inside a protected call, the recovery
/// (reported as `SIGABRT`), else `abort` as glibc's does.
///
/// # Safety
/// As glibc's `__assert_fail`: NUL-terminated strings (`function` may be null).
pub unsafe fn assert_fail(
    assertion: *const c_char,
    file: *const c_char,
    line: c_uint,
    function: *const c_char,
) -> ! {
    let cstr = |p: *const c_char| -> &[u8] {
        if p.is_null() {
            b""
        } else {
            std::ffi::CStr::from_ptr(p).to_bytes()
        }
    };
    // glibc's "%s%s%s:%u: %s%sAssertion `%s' failed.\n".
    let mut msg = [0u8; 4096];
    let mut n = 0;
    let prog = cstr(program_invocation_short_name);
    put(&mut msg, &mut n, prog);
    if !prog.is_empty() {
        put(&mut msg, &mut n, b": ");
    }
    put(&mut msg, &mut n, cstr(file));
    put(&mut msg, &mut n, b":");
    let mut digits = [0u8; 10];
    let mut k = digits.len();
    let mut v = line;
    loop {
        k -= 1;
        digits[k] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    put(&mut msg, &mut n, &digits[k..]);
    put(&mut msg, &mut n, b": ");
    if !function.is_null() {
        put(&mut msg, &mut n, cstr(function));
        put(&mut msg, &mut n, b": ");
    }
    put(&mut msg, &mut n, b"Assertion `");
    put(&mut msg, &mut n, cstr(assertion));
    put(&mut msg, &mut n, b"' failed.\n");
    libc::write(2, msg.as_ptr() as *const c_void, n);
    if armed() {
        sframe_worker_recover(libc::SIGABRT);
    }
    libc::abort()
}

/// Define `__assert_fail` in the binary that invokes it, as [`assert_fail`]. The binary must
/// also export it dynamically (the `sframe-conform` crate's build script does for
/// `sframe-worker`), so that the libraries it `dlopen`s call it rather than glibc's.
#[macro_export]
macro_rules! export_assert_fail {
    () => {
        /// glibc's `__assert_fail`, recovered from in a server child (see
        /// `sframe_worker::recover`).
        ///
        /// # Safety
        /// As glibc's.
        #[no_mangle]
        pub unsafe extern "C" fn __assert_fail(
            assertion: *const ::std::ffi::c_char,
            file: *const ::std::ffi::c_char,
            line: ::std::ffi::c_uint,
            function: *const ::std::ffi::c_char,
        ) -> ! {
            $crate::recover::assert_fail(assertion, file, line, function)
        }
    };
}
