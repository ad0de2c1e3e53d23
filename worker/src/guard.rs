//! The guard-page buffer: inputs are handed to the C readers in a copy whose first byte is
//! preceded and whose last byte is followed by inaccessible pages, so that a read past
//! either end faults at once (a crash the harness sees) instead of returning whatever the
//! heap holds there.

use std::ffi::c_void;

/// The guarded copies alive, `(mapping, length)`, for the crash reporter (`in_guard`) and
/// for [`release_all`]. A fixed table: it is read in a signal handler. Past its capacity a
/// copy is still guarded, only not recovered from (`recover`).
const SLOTS: usize = 16;
static mut LIVE: [(usize, usize); SLOTS] = [(0, 0); SLOTS];
static mut COUNT: usize = 0;

fn note(map: usize, len: usize) {
    // SAFETY: single-threaded use (the worker's).
    unsafe {
        let n = *std::ptr::addr_of!(COUNT);
        if n < SLOTS {
            (*std::ptr::addr_of_mut!(LIVE))[n] = (map, len);
            *std::ptr::addr_of_mut!(COUNT) = n + 1;
        }
    }
}

fn forget(map: usize) {
    // SAFETY: single-threaded use (the worker's).
    unsafe {
        let n = *std::ptr::addr_of!(COUNT);
        let live = &mut *std::ptr::addr_of_mut!(LIVE);
        if let Some(i) = live[..n].iter().position(|e| e.0 == map) {
            live[i] = live[n - 1];
            *std::ptr::addr_of_mut!(COUNT) = n - 1;
        }
    }
}

/// Whether `addr` lies in the mapping of a live guarded copy (a fault there is on one of its
/// guard pages: its data pages are readable). Safe in a signal handler: it reads the table.
pub fn in_guard(addr: usize) -> bool {
    // SAFETY: single-threaded use (the worker's); reads the table.
    unsafe {
        let n = *std::ptr::addr_of!(COUNT);
        let live = &*std::ptr::addr_of!(LIVE);
        live[..n]
            .iter()
            .any(|&(map, len)| addr >= map && addr < map + len)
    }
}

/// Unmap every live guarded copy: those of a call abandoned by a recovery (`recover`), whose
/// [`Guarded`] values are never dropped.
pub fn release_all() {
    // SAFETY: single-threaded use (the worker's); each mapping is unmapped once, its owner
    // never dropped.
    unsafe {
        let n = *std::ptr::addr_of!(COUNT);
        let live = &*std::ptr::addr_of!(LIVE);
        for &(map, len) in &live[..n] {
            libc::munmap(map as *mut c_void, len);
        }
        *std::ptr::addr_of_mut!(COUNT) = 0;
    }
}

/// A copy of the input whose last byte is followed (and first byte preceded) by an
/// inaccessible page, so that a read past either end faults at once instead of returning
/// whatever the heap holds there.
pub struct Guarded {
    map: *mut u8,
    map_len: usize,
    data: *const u8,
    len: usize,
}

impl Guarded {
    pub fn new(bytes: &[u8]) -> Option<Guarded> {
        Guarded::with_guards(bytes, 1, 1)
    }

    /// A copy with `before` inaccessible pages before it and `after` after it, for readers
    /// that may jump far from the section (a length they take from it, not from the caller):
    /// the guard is address space only (`PROT_NONE`, `MAP_NORESERVE`), however large.
    pub fn with_guards(bytes: &[u8], before: usize, after: usize) -> Option<Guarded> {
        if let Some(heap) = crate::asan_input::heap() {
            // SAFETY: ASan's malloc; the block (at least one byte) is filled from `bytes`
            // and freed by `Drop` with ASan's free (`map_len` 0 marks it).
            let p = unsafe { (heap.malloc)(bytes.len().max(1)) } as *mut u8;
            if p.is_null() {
                return None;
            }
            // SAFETY: `p` holds at least `bytes.len()` bytes and does not overlap `bytes`.
            unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len()) };
            return Some(Guarded {
                map: p,
                map_len: 0,
                data: p,
                len: bytes.len(),
            });
        }
        // SAFETY: sysconf has no preconditions.
        let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) })
            .ok()
            .filter(|p| *p > 0)?;
        let data_pages = bytes.len().div_ceil(page);
        let map_len = before
            .checked_add(data_pages)?
            .checked_add(after)?
            .checked_mul(page)?;
        // SAFETY: an anonymous private mapping of a fresh range, inaccessible until the data
        // pages are opened below; the result is checked.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if map == libc::MAP_FAILED {
            return None;
        }
        let map = map as *mut u8;
        note(map as usize, map_len);
        // Owns the mapping from here on (unmapped on every return path).
        let mut g = Guarded {
            map,
            map_len,
            data: std::ptr::null(),
            len: bytes.len(),
        };
        if data_pages > 0 {
            // SAFETY: the data pages lie inside the mapping just made.
            let ok = unsafe {
                libc::mprotect(
                    map.add(before * page) as *mut c_void,
                    data_pages * page,
                    libc::PROT_READ | libc::PROT_WRITE,
                ) == 0
            };
            if !ok {
                return None;
            }
        }
        let start = (before + data_pages) * page - bytes.len();
        // SAFETY: `start..start + len` lies in the writable data pages of the mapping (an
        // empty input points at the first guard page after them and is never read).
        g.data = unsafe {
            let p = map.add(start);
            if !bytes.is_empty() {
                std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len());
            }
            p as *const u8
        };
        Some(g)
    }

    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: `data` points to `len` initialised bytes of the mapping, which lives as
        // long as `self`.
        unsafe { std::slice::from_raw_parts(self.data, self.len) }
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        if self.map_len == 0 {
            if let Some(heap) = crate::asan_input::heap() {
                // SAFETY: the block ASan's malloc gave in `with_guards`, freed once.
                unsafe { (heap.free)(self.map as *mut c_void) };
            }
            return;
        }
        forget(self.map as usize);
        // SAFETY: unmaps exactly the mapping made in `new`, once.
        unsafe { libc::munmap(self.map as *mut c_void, self.map_len) };
    }
}
