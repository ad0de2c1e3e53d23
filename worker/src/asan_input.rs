//! Inputs on AddressSanitizer's heap, for triage with a sanitizer build of the hosted library
//! (`ci/instrumented-libs --flavour asan`, the worker run with `libasan` preloaded).
//!
//! With `SFRAME_WORKER_ASAN_INPUT=1`, [`crate::guard::Guarded`] copies the section into a
//! block of ASan's own heap (`__interceptor_malloc`, found with `dlsym`: the worker's own
//! exported `malloc` is the guarded heap, which ASan does not see) instead of between guard
//! pages, so that ASan names a read past the section as what it is ("N bytes after the
//! L-byte region allocated by ...") rather than a fault on an unknown address. Without the
//! variable, or when no ASan runtime is loaded, nothing changes.

use libc::c_void;
use std::sync::OnceLock;

type Malloc = unsafe extern "C" fn(usize) -> *mut c_void;
type Free = unsafe extern "C" fn(*mut c_void);

/// ASan's allocator, when triage asks for it and the runtime is loaded.
pub struct AsanHeap {
    pub malloc: Malloc,
    pub free: Free,
}

fn lookup() -> Option<AsanHeap> {
    if std::env::var_os("SFRAME_WORKER_ASAN_INPUT").is_none_or(|v| v != "1") {
        return None;
    }
    // SAFETY: dlsym on the global scope with NUL-terminated names; the symbols, when
    // present, are libasan's malloc and free interceptors with these C signatures.
    unsafe {
        let m = libc::dlsym(libc::RTLD_DEFAULT, c"__interceptor_malloc".as_ptr());
        let f = libc::dlsym(libc::RTLD_DEFAULT, c"__interceptor_free".as_ptr());
        if m.is_null() || f.is_null() {
            eprintln!("sframe-worker: SFRAME_WORKER_ASAN_INPUT=1 but no ASan runtime is loaded (preload libasan): inputs stay on guard pages");
            return None;
        }
        Some(AsanHeap {
            malloc: std::mem::transmute::<*mut c_void, Malloc>(m),
            free: std::mem::transmute::<*mut c_void, Free>(f),
        })
    }
}

/// The ASan heap when `SFRAME_WORKER_ASAN_INPUT=1` and the runtime is loaded, else `None`.
pub fn heap() -> Option<&'static AsanHeap> {
    static HEAP: OnceLock<Option<AsanHeap>> = OnceLock::new();
    HEAP.get_or_init(lookup).as_ref()
}
