//! The guard-page buffer: inputs are handed to the C readers in a copy whose first byte is
//! preceded and whose last byte is followed by inaccessible pages, so that a read past
//! either end faults at once (a crash the harness sees) instead of returning whatever the
//! heap holds there.
//!
//! The mapping of the copy last dropped is kept for the next copy of the same shape (guard
//! pages and data pages), which finds it as a fresh mapping would be: the bytes before the
//! input zeroed, its guard pages untouched. A copy of another shape unmaps it first, and then
//! maps its own, as when every copy was unmapped as it was dropped. So two copies in a row
//! (a `decode_find` request's `decode` and `find_fre` halves) cost no `mmap`, `mprotect`,
//! `munmap` (whose TLB shootdown was the dearest of them on a virtual machine) or fresh page
//! faults, and lie where they lay.

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

/// The mapping kept for the next copy: `(mapping, length, pages before)`, `(0, 0, 0)` for
/// none. Single-threaded use (the worker's).
static mut IDLE: (usize, usize, usize) = (0, 0, 0);

/// The kept mapping when it has `map_len` bytes and `before` pages before its data;
/// otherwise `None`, the kept mapping (of another shape) unmapped.
fn take_idle(map_len: usize, before: usize) -> Option<*mut u8> {
    // SAFETY: single-threaded use (the worker's); the kept mapping is owned by `IDLE` alone.
    unsafe {
        let idle = std::ptr::addr_of_mut!(IDLE);
        let (map, len, b) = *idle;
        *idle = (0, 0, 0);
        if map == 0 {
            return None;
        }
        if len == map_len && b == before {
            return Some(map as *mut u8);
        }
        libc::munmap(map as *mut c_void, len);
        None
    }
}

/// Unmap the kept mapping (a recovered child is as a fresh one, which has none).
fn release_idle() {
    // SAFETY: single-threaded use (the worker's); the kept mapping is owned by `IDLE` alone.
    unsafe {
        let (map, len, _) = *std::ptr::addr_of!(IDLE);
        if map != 0 {
            libc::munmap(map as *mut c_void, len);
        }
        *std::ptr::addr_of_mut!(IDLE) = (0, 0, 0);
    }
}

/// Unmap every live guarded copy: those of a call abandoned by a recovery (`recover`), whose
/// [`Guarded`] values are never dropped; and the mapping kept for the next copy.
pub fn release_all() {
    release_idle();
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

/// Pages of guard on each side of a [`Guarded::far`] copy: a reader's pointers can land up
/// to 2 GiB before the section (glibc's `int fidx_size` wraps) and tens of GiB after it (an
/// entry of a 32-bit count of 20-byte FDEs, plus a 32-bit FRE offset: libsframe's
/// `sframe_decode` copies from `hdrsz + sfh_fdeoff`, glibc's `sfd_funcdesc[mid]`); 64 GiB of
/// address space (`PROT_NONE`, `MAP_NORESERVE`: no memory) covers both.
pub const FAR_GUARD_PAGES: usize = 16 << 20;

/// A copy of the input whose last byte is followed (and first byte preceded) by an
/// inaccessible page, so that a read past either end faults at once instead of returning
/// whatever the heap holds there.
pub struct Guarded {
    map: *mut u8,
    map_len: usize,
    /// Inaccessible pages before the data (the shape of the mapping, with `map_len`).
    before: usize,
    data: *const u8,
    len: usize,
}

impl Guarded {
    /// A copy with [`FAR_GUARD_PAGES`] on each side: for readers that compute where to read
    /// from counts and offsets in the section, so that such a read faults on the copy's own
    /// guard (a clean crash, `recover`) rather than in whatever else is mapped there, or in
    /// nothing (a fault the child cannot be proven clean after, so it dies).
    pub fn far(bytes: &[u8]) -> Option<Guarded> {
        Guarded::with_guards(bytes, FAR_GUARD_PAGES, FAR_GUARD_PAGES)
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
                before: 0,
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
        let start = (before + data_pages) * page - bytes.len();
        if let Some(map) = take_idle(map_len, before) {
            note(map as usize, map_len);
            // SAFETY: the kept mapping has this shape: its data pages, `before * page` on, are
            // writable; the bytes before the input are zeroed, as in a fresh mapping, and the
            // input copied after them, up to the guard pages.
            let data = unsafe {
                let head = map.add(before * page);
                std::ptr::write_bytes(head, 0, start - before * page);
                let p = map.add(start);
                std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len());
                p as *const u8
            };
            return Some(Guarded {
                map,
                map_len,
                before,
                data,
                len: bytes.len(),
            });
        }
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
            before,
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
        // SAFETY: single-threaded use (the worker's). The mapping made in `new` is kept for
        // the next copy when none is kept, else unmapped (once, either way).
        unsafe {
            let idle = std::ptr::addr_of_mut!(IDLE);
            if (*idle).0 == 0 {
                *idle = (self.map as usize, self.map_len, self.before);
            } else {
                libc::munmap(self.map as *mut c_void, self.map_len);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bytes of the data pages of `g`'s mapping, `before` pages in (readable).
    fn data_pages(g: &Guarded, before: usize) -> Vec<u8> {
        // SAFETY: sysconf has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
        let end = g.data as usize + g.len;
        let start = g.map as usize + before * page;
        // SAFETY: `start..end` are the data pages of the live mapping of `g`.
        unsafe { std::slice::from_raw_parts(start as *const u8, end - start) }.to_vec()
    }

    #[test]
    fn a_kept_mapping_is_given_as_a_fresh_one_would_be() {
        let long = vec![0xaa; 3000];
        let first = Guarded::with_guards(&long, 1, 1).unwrap();
        let at = first.map;
        assert!(in_guard(at as usize));
        drop(first);
        // Kept, not live: a fault there is no guard page's.
        assert!(!in_guard(at as usize));
        // The same shape: the same mapping, the longer input's bytes before the short one
        // zeroed as a fresh mapping's are.
        let short = Guarded::with_guards(&[1, 2, 3], 1, 1).unwrap();
        assert_eq!(short.map, at);
        assert_eq!(short.as_slice(), [1, 2, 3]);
        let pages = data_pages(&short, 1);
        assert_eq!(&pages[pages.len() - 3..], [1, 2, 3]);
        assert!(pages[..pages.len() - 3].iter().all(|&b| b == 0));
        // Another shape alongside: a mapping of its own, then the kept one goes for a third.
        let wide = Guarded::with_guards(&[7; 5000], 2, 2).unwrap();
        assert_ne!(wide.map, at);
        assert_eq!(wide.as_slice(), [7; 5000]);
        drop(short);
        drop(wide);
        let other = Guarded::with_guards(&[9; 5000], 2, 2).unwrap();
        assert!(data_pages(&other, 2)
            .iter()
            .take(8192 - 5000)
            .all(|&b| b == 0));
        assert_eq!(other.as_slice(), [9; 5000]);
        drop(other);
        release_all();
        // SAFETY: single-threaded test of the module's state.
        assert_eq!(unsafe { *std::ptr::addr_of!(IDLE) }, (0, 0, 0));
    }
}
