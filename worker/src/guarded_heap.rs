//! The hosted C library's heap blocks on guard pages, so that reading past one crashes.
//!
//! libsframe copies what it decodes into blocks of its own (`sframe_decode`: the decoder, the
//! FDE table, the FRE bytes; the foreign-endian copy; the encoder's buffers) and indexes them
//! with offsets taken from the section. Past the end of such a block lies the rest of the
//! process's heap, so an out-of-bounds read there does not crash: it returns whatever the heap
//! held, and the answer depends on the heap's history. No quirk of the reference can
//! reproduce that, and no finding can say which bytes were read.
//!
//! While a [`Guarding`] lives, `malloc`, `calloc` and `realloc` place each new block at the
//! very end of its own mapping, right before 4 GiB of inaccessible address space, so that
//! reading one byte past it, or anywhere a 32-bit offset from the section can reach, faults. Such a block is only as aligned as its size makes it, not 16-byte aligned
//! as `malloc` promises: libsframe's blocks are byte buffers and structures of at most
//! 8-byte alignment, which x86-64 reads unaligned (an aligned block would leave up to 15
//! bytes of zeros where an overread goes unnoticed). `free`
//! recognizes these blocks wherever it is called from. Everything else goes to glibc's own
//! allocator (`__libc_malloc` and friends). The worker binary exports these functions as
//! `malloc`, `calloc`, `realloc` and `free` ([`export_guarded_heap!`](crate::export_guarded_heap)),
//! so that the `dlopen`ed library's calls reach them; the worker is single-threaded and
//! serves requests in forked children (`forking`), which release what a request leaves
//! alive ([`release_leaked`]).

use libc::c_void;
use std::cell::Cell;

extern "C" {
    fn __libc_malloc(n: usize) -> *mut c_void;
    fn __libc_calloc(n: usize, m: usize) -> *mut c_void;
    fn __libc_realloc(p: *mut c_void, n: usize) -> *mut c_void;
    fn __libc_free(p: *mut c_void);
}

thread_local! {
    static GUARDING: Cell<bool> = const { Cell::new(false) };
}

/// The inaccessible address space after each block: more than the farthest a reader can go
/// from a block's start with a 32-bit offset taken from the section (`sfde_func_start_fre_off`,
/// then the FREs it walks), so that such a read faults rather than lands in other memory.
const GUARD: usize = (1 << 32) + (1 << 24);

/// The guarded blocks alive: `(block, mapping, mapping length, block size)`. A fixed table:
/// this module must not allocate. Past its capacity, blocks come from glibc unguarded.
const SLOTS: usize = 1024;
struct Table {
    live: [(usize, usize, usize, usize); SLOTS],
    count: usize,
    /// Bounds of every mapping made, to answer "not ours" without a scan.
    low: usize,
    high: usize,
}
static mut TABLE: Table = Table {
    live: [(0, 0, 0, 0); SLOTS],
    count: 0,
    low: usize::MAX,
    high: 0,
};

/// Mappings of freed blocks kept for the next block of the same page count, which finds
/// its pages zeroed as a fresh mapping's are: a mapping costs system calls and page faults
/// that dominated a request (`mmap`, `mprotect`, `munmap`, a fault per page touched).
/// `(mapping, length)`; at most `SPARE_BYTES` of pages kept.
const SPARES: usize = 64;
const SPARE_BYTES: usize = 16 << 20;
struct Spares {
    maps: [(usize, usize); SPARES],
    count: usize,
    bytes: usize,
}
static mut SPARE: Spares = Spares {
    maps: [(0, 0); SPARES],
    count: 0,
    bytes: 0,
};

/// While alive, new heap blocks are guarded (see the module docs).
pub struct Guarding {
    was: bool,
}

/// Guard the blocks allocated until the returned value is dropped.
pub fn guarding() -> Guarding {
    let was = GUARDING.with(|g| g.replace(true));
    Guarding { was }
}

impl Drop for Guarding {
    fn drop(&mut self) {
        GUARDING.with(|g| g.set(self.was));
    }
}

/// How many guarded blocks are alive: none once the library has freed what it allocated.
pub fn live_blocks() -> usize {
    // SAFETY: single-threaded use (the worker's); reads one word of the table.
    unsafe { (*std::ptr::addr_of!(TABLE)).count }
}

/// Switch guarding off, whatever [`Guarding`] values a call abandoned by a recovery
/// (`recover`) left undropped.
pub fn stop_guarding() {
    GUARDING.with(|g| g.set(false));
}

/// Release the guarded blocks a request's calls left alive after they returned: what the
/// library leaked (libsframe keeps no state between calls, so no pointer to them is left
/// anywhere it reads), so that the next request meets an empty table, as a fresh child's
/// is, and leaks never fill the table and let later blocks go unguarded. A server child
/// (`forking`) calls it after each answer, and after a `decode_find` request's `decode`
/// half: before, it retired and the worker forked a new one.
pub fn release_leaked() {
    release_all();
}

/// Release every live guarded block: those of a call abandoned by a recovery (`recover`),
/// which nothing will read again, so that the next request meets an empty table.
pub fn release_all() {
    // SAFETY: single-threaded use (the worker's); each block freed is a live one.
    unsafe {
        while live_blocks() > 0 {
            let block = (*std::ptr::addr_of!(TABLE)).live[0].0;
            free(block as *mut c_void);
        }
    }
}

/// Whether `addr` lies in the guard after a live guarded block (see the module docs). Safe
/// in a signal handler: it reads the table, nothing else.
pub fn in_guard(addr: usize) -> bool {
    // SAFETY: single-threaded use (the worker's); reads the table.
    let t = unsafe { &*std::ptr::addr_of!(TABLE) };
    t.live[..t.count]
        .iter()
        .any(|&(_, map, len, _)| addr >= map + (len - GUARD) && addr < map + len)
}

fn guarding_now() -> bool {
    GUARDING.try_with(Cell::get).unwrap_or(false)
}

fn page() -> usize {
    // SAFETY: sysconf has no preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(p).unwrap_or(4096)
}

/// A table slot's index for `p`, if `p` is a live guarded block.
///
/// # Safety
/// Single-threaded use only (the worker's).
unsafe fn slot_of(p: usize) -> Option<usize> {
    let t = &*std::ptr::addr_of!(TABLE);
    if t.count == 0 || p < t.low || p >= t.high {
        return None;
    }
    t.live[..t.count].iter().position(|e| e.0 == p)
}

/// A guarded block of `n` bytes (zeroed: fresh mappings are), or null.
///
/// # Safety
/// Single-threaded use only.
unsafe fn guarded(n: usize) -> *mut c_void {
    let t = &mut *std::ptr::addr_of_mut!(TABLE);
    if t.count == SLOTS {
        return __libc_calloc(1, n.max(1));
    }
    let pg = page();
    let body = n.max(1);
    let Some(data_len) = body.checked_add(pg - 1).map(|x| x / pg * pg) else {
        return std::ptr::null_mut();
    };
    let Some(len) = data_len.checked_add(GUARD) else {
        return std::ptr::null_mut();
    };
    let spare = &mut *std::ptr::addr_of_mut!(SPARE);
    if let Some(k) = spare.maps[..spare.count].iter().position(|m| m.1 == len) {
        let map = spare.maps[k].0;
        spare.count -= 1;
        spare.maps[k] = spare.maps[spare.count];
        spare.bytes -= data_len;
        // As a fresh mapping is: zero from its start to the guard.
        std::ptr::write_bytes(map as *mut u8, 0, data_len);
        let block = map + data_len - body;
        t.live[t.count] = (block, map, len, n);
        t.count += 1;
        return block as *mut c_void;
    }
    // Address space only: the guard is never backed by memory.
    let Some(map) = crate::guard::reserve(len) else {
        return std::ptr::null_mut();
    };
    let map = map as *mut c_void;
    if libc::mprotect(map, data_len, libc::PROT_READ | libc::PROT_WRITE) != 0 {
        libc::munmap(map, len);
        return std::ptr::null_mut();
    }
    let guard = map as usize + data_len;
    let block = guard - body;
    t.live[t.count] = (block, map as usize, len, n);
    t.count += 1;
    t.low = t.low.min(map as usize);
    t.high = t.high.max(map as usize + len);
    block as *mut c_void
}

/// `malloc`.
///
/// # Safety
/// As `malloc(3)`; single-threaded use only.
pub unsafe fn malloc(n: usize) -> *mut c_void {
    if guarding_now() {
        guarded(n)
    } else {
        __libc_malloc(n)
    }
}

/// `calloc`.
///
/// # Safety
/// As `calloc(3)`; single-threaded use only.
pub unsafe fn calloc(n: usize, m: usize) -> *mut c_void {
    if guarding_now() {
        match n.checked_mul(m) {
            Some(total) => guarded(total),
            None => std::ptr::null_mut(),
        }
    } else {
        __libc_calloc(n, m)
    }
}

/// `realloc`: a guarded block moves to a new guarded block.
///
/// # Safety
/// As `realloc(3)`; single-threaded use only.
pub unsafe fn realloc(p: *mut c_void, n: usize) -> *mut c_void {
    if p.is_null() {
        return malloc(n);
    }
    match slot_of(p as usize) {
        Some(i) => {
            let old = (*std::ptr::addr_of!(TABLE)).live[i].3;
            let q = guarded(n);
            if !q.is_null() {
                std::ptr::copy_nonoverlapping(p as *const u8, q as *mut u8, old.min(n));
                free(p);
            }
            q
        }
        // A glibc block stays with glibc, even while guarding: its old size is unknown here.
        None => __libc_realloc(p, n),
    }
}

/// `free`.
///
/// # Safety
/// As `free(3)`; single-threaded use only.
pub unsafe fn free(p: *mut c_void) {
    if p.is_null() {
        return;
    }
    match slot_of(p as usize) {
        Some(i) => {
            let t = &mut *std::ptr::addr_of_mut!(TABLE);
            let (_, map, len, _) = t.live[i];
            t.count -= 1;
            t.live[i] = t.live[t.count];
            let spare = &mut *std::ptr::addr_of_mut!(SPARE);
            let data_len = len - GUARD;
            if spare.count < SPARES && spare.bytes + data_len <= SPARE_BYTES {
                spare.maps[spare.count] = (map, len);
                spare.count += 1;
                spare.bytes += data_len;
            } else {
                libc::munmap(map as *mut c_void, len);
            }
        }
        None => __libc_free(p),
    }
}

/// Define `malloc`, `calloc`, `realloc` and `free` in the binary that invokes it, as this
/// module's functions. The binary must also export them dynamically (the `sframe-conform`
/// crate's build script passes `--export-dynamic-symbol` for `sframe-worker`), so that the
/// libraries it `dlopen`s call them.
#[macro_export]
macro_rules! export_guarded_heap {
    () => {
        /// `malloc(3)`, on guard pages while the worker asks for it.
        ///
        /// # Safety
        /// As `malloc(3)`.
        #[no_mangle]
        pub unsafe extern "C" fn malloc(n: usize) -> *mut ::std::ffi::c_void {
            $crate::guarded_heap::malloc(n)
        }
        /// `calloc(3)`.
        ///
        /// # Safety
        /// As `calloc(3)`.
        #[no_mangle]
        pub unsafe extern "C" fn calloc(n: usize, m: usize) -> *mut ::std::ffi::c_void {
            $crate::guarded_heap::calloc(n, m)
        }
        /// `realloc(3)`.
        ///
        /// # Safety
        /// As `realloc(3)`.
        #[no_mangle]
        pub unsafe extern "C" fn realloc(
            p: *mut ::std::ffi::c_void,
            n: usize,
        ) -> *mut ::std::ffi::c_void {
            $crate::guarded_heap::realloc(p, n)
        }
        /// `free(3)`.
        ///
        /// # Safety
        /// As `free(3)`.
        #[no_mangle]
        pub unsafe extern "C" fn free(p: *mut ::std::ffi::c_void) {
            $crate::guarded_heap::free(p)
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_guarded_block_ends_at_a_guard_page_and_is_zeroed() {
        let _g = guarding();
        // SAFETY: single-threaded within this test; the block is used within its size.
        unsafe {
            let p = malloc(100) as *mut u8;
            assert!(!p.is_null());
            assert!((0..100).all(|i| *p.add(i) == 0));
            // The block ends at a page boundary: the guard, whose far pages fault too.
            assert_eq!((p as usize + 100) % page(), 0);
            let far = p as usize + 100 + (1usize << 32);
            let mut vec = 0u8;
            let probe = libc::mincore((far & !(page() - 1)) as *mut c_void, page(), &mut vec);
            // mincore fails with ENOMEM on unmapped memory but succeeds on a PROT_NONE
            // mapping: the far page is still ours, not someone else's.
            assert_eq!(probe, 0);
            assert!(slot_of(p as usize).is_some());
            let q = realloc(p as *mut c_void, 5000) as *mut u8;
            assert!(slot_of(p as usize).is_none() && slot_of(q as usize).is_some());
            // A block's pages dirtied, freed, and taken again by a block of the same
            // page count: zeroed like a fresh mapping, still ending at the guard.
            std::ptr::write_bytes(q, 0xa5, 5000);
            free(q as *mut c_void);
            assert!(slot_of(q as usize).is_none());
            let r = malloc(4999) as *mut u8;
            assert_eq!((r as usize + 4999) % page(), 0);
            let start = (r as usize) & !(page() - 1);
            assert!((start..r as usize + 4999).all(|a| *(a as *const u8) == 0));
            free(r as *mut c_void);
        }
    }
}
