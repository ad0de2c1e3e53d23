//! Where a child is in a request, for its parent to read after the child died: a word on a
//! page shared by the worker and every child it forks.
//!
//! The one stage that matters is [`Stage::Decoding`]: the hosted library building its
//! decoder from the section (`sframe_decode`, glibc's `__sframe_decode`). A `decode` and a
//! `find_fre` request on the same section start alike (the guarded copy, then that call), so
//! a crash there that repeats in a fresh child is the crash of either request, and the parent
//! answers the other half of a `decode_find` request without forking children to watch it
//! crash again (`forking`).

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

/// What a child was doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Anything but building the decoder.
    Other = 0,
    /// Inside the library's decoder constructor.
    Decoding = 1,
}

/// The shared word, mapped on first use (in the worker, before it forks a child).
static WORD: OnceLock<usize> = OnceLock::new();

/// Where the page goes: far from the mappings the library's reads can reach (the input's
/// guarded copy and the mappings above it, which `mmap` places top-down from below the
/// shared libraries), so that the page changes nothing an overread lands on. A page placed
/// where `mmap` chooses would sit right above the next input's copy, and turn a read past
/// it that crashed into one that reads zeros.
const AT: usize = 0x2000_0000_0000;

fn word() -> Option<&'static AtomicU32> {
    let addr = *WORD.get_or_init(|| {
        // SAFETY: a fresh anonymous shared mapping of one page at an address nothing else
        // holds (MAP_FIXED_NOREPLACE fails otherwise), never unmapped.
        let p = unsafe {
            libc::mmap(
                AT as *mut libc::c_void,
                4096,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_ANONYMOUS | libc::MAP_FIXED_NOREPLACE,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            0
        } else {
            p as usize
        }
    });
    // SAFETY: a page-aligned, zeroed, live mapping: a valid AtomicU32 for the process's life.
    (addr != 0).then(|| unsafe { &*(addr as *const AtomicU32) })
}

/// Map the shared word: to be called in the worker before it forks its first child.
pub fn share() {
    let _ = word();
}

/// Run `f` marked as [`Stage::Decoding`].
pub fn decoding<T>(f: impl FnOnce() -> T) -> T {
    let w = word();
    if let Some(w) = w {
        w.store(Stage::Decoding as u32, Ordering::SeqCst);
    }
    let r = f();
    if let Some(w) = w {
        w.store(Stage::Other as u32, Ordering::SeqCst);
    }
    r
}

/// The stage the last child to die was in, read and reset (the parent's, after a death).
pub fn take() -> Stage {
    match word().map(|w| w.swap(Stage::Other as u32, Ordering::SeqCst)) {
        Some(1) => Stage::Decoding,
        _ => Stage::Other,
    }
}
