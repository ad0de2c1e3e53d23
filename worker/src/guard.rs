//! The guard-page buffer: inputs are handed to the C readers in a copy whose first byte is
//! preceded and whose last byte is followed by inaccessible pages, so that a read past
//! either end faults at once (a crash the harness sees) instead of returning whatever the
//! heap holds there.
//!
//! The mapping of the copy last dropped is kept for the next copy whose guards it has room
//! for, which finds it as a fresh mapping would be: the bytes before the input zeroed, its
//! guard pages untouched. The writable pages are reshaped to the new input's (`mprotect` of
//! the pages between, when their count differs), so that they end where the guard after
//! them begins, as in a fresh mapping; a fresh mapping leaves room for inputs of up to
//! [`ROOM_PAGES`] pages, inaccessible until used. A copy the kept mapping has no room for
//! unmaps it first, and then maps its own. So a run of copies (a `decode_find` request's
//! `decode` and `find_fre` halves, the next request's, a recovered crash's next request)
//! costs no `mmap` or `munmap` (whose TLB shootdown was the dearest of them on a virtual
//! machine, and whose page tables over 128 GiB of a [`Guarded::far`] guard were the next),
//! and lies where the last one lay.

use std::ffi::c_void;

/// The guarded copies alive, `(mapping, length)`, for the crash reporter (`in_guard`) and
/// for [`release_all`]. A fixed table: it is read in a signal handler. Past its capacity a
/// copy is still guarded, only not recovered from (`recover`).
const SLOTS: usize = 16;
static mut LIVE: [Layout; SLOTS] = [Layout::NONE; SLOTS];
static mut COUNT: usize = 0;

fn note(l: Layout) {
    // SAFETY: single-threaded use (the worker's).
    unsafe {
        let n = *std::ptr::addr_of!(COUNT);
        if n < SLOTS {
            (*std::ptr::addr_of_mut!(LIVE))[n] = l;
            *std::ptr::addr_of_mut!(COUNT) = n + 1;
        }
    }
}

fn forget(map: usize) {
    // SAFETY: single-threaded use (the worker's).
    unsafe {
        let n = *std::ptr::addr_of!(COUNT);
        let live = &mut *std::ptr::addr_of_mut!(LIVE);
        if let Some(i) = live[..n].iter().position(|e| e.map == map) {
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
            .any(|l| addr >= l.map && addr < l.map + l.len)
    }
}

/// A mapping's layout, in pages: its data pages are the `writable` pages before page `end`,
/// the guard after them runs from `end` to the mapping's end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Layout {
    map: usize,
    len: usize,
    end: usize,
    writable: usize,
}

impl Layout {
    const NONE: Layout = Layout {
        map: 0,
        len: 0,
        end: 0,
        writable: 0,
    };
}

/// A fresh mapping's pages between its guard before and its guard after, however short the
/// input: so that the next inputs, of up to this many pages, fit in it when it is kept.
pub const ROOM_PAGES: usize = 16;

/// The mapping kept for the next copy ([`Layout::NONE`] for none). Single-threaded use (the
/// worker's).
static mut IDLE: Layout = Layout::NONE;

/// The kept mapping, reshaped to `data` writable pages with at least `before` pages of guard
/// before them and `after` after, when it has room for them; otherwise `None`, the kept
/// mapping unmapped.
fn take_idle(page: usize, before: usize, data: usize, after: usize) -> Option<Layout> {
    // SAFETY: single-threaded use (the worker's); the kept mapping is owned by `IDLE` alone.
    unsafe {
        let idle = std::ptr::addr_of_mut!(IDLE);
        let k = *idle;
        *idle = Layout::NONE;
        if k.map == 0 {
            return None;
        }
        let fits = k.len / page - k.end >= after && k.end >= before + data;
        let (want, have) = (k.end - data.min(k.end), k.end - k.writable);
        let reshaped = fits
            && match want.cmp(&have) {
                std::cmp::Ordering::Equal => true,
                std::cmp::Ordering::Less => {
                    // More pages: these were never written (or zeroed below when reused).
                    protect(k.map + want * page, (have - want) * page, true)
                }
                std::cmp::Ordering::Greater => {
                    protect(k.map + have * page, (want - have) * page, false)
                }
            };
        if !reshaped {
            libc::munmap(k.map as *mut c_void, k.len);
            return None;
        }
        Some(Layout {
            writable: data,
            ..k
        })
    }
}

/// A fresh anonymous private mapping of `len` bytes, inaccessible: address space only,
/// never backed by memory until a page is opened (`PROT_NONE`, `MAP_NORESERVE`). Allocates
/// nothing (the guarded heap's `malloc` calls it).
pub(crate) fn reserve(len: usize) -> Option<usize> {
    // SAFETY: an anonymous mapping of a range the kernel chooses; the result is checked.
    let map = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    (map != libc::MAP_FAILED).then_some(map as usize)
}

/// `mprotect` of `len` bytes at `addr`: readable and writable, or inaccessible.
fn protect(addr: usize, len: usize, open: bool) -> bool {
    let prot = if open {
        libc::PROT_READ | libc::PROT_WRITE
    } else {
        libc::PROT_NONE
    };
    // SAFETY: called on pages of a mapping this module owns.
    unsafe { libc::mprotect(addr as *mut c_void, len, prot) == 0 }
}

/// Keep the mapping of a copy no longer used for the next copy, when none is kept; else
/// unmap it.
fn keep_or_unmap(l: Layout) {
    // SAFETY: single-threaded use (the worker's); the mapping is owned by the caller, which
    // hands it over.
    unsafe {
        let idle = std::ptr::addr_of_mut!(IDLE);
        if (*idle).map == 0 {
            *idle = l;
        } else {
            libc::munmap(l.map as *mut c_void, l.len);
        }
    }
}

/// Give up every live guarded copy: those of a call abandoned by a recovery (`recover`),
/// whose [`Guarded`] values are never dropped. Their mappings are kept or unmapped as a
/// dropped copy's are: the next copy finds a kept mapping as a fresh one would be.
pub fn release_all() {
    // SAFETY: single-threaded use (the worker's); each mapping is handed over once, its
    // owner never dropped.
    unsafe {
        let n = *std::ptr::addr_of!(COUNT);
        let live = &*std::ptr::addr_of!(LIVE);
        for l in &live[..n] {
            keep_or_unmap(*l);
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
    /// Its mapping ([`Layout::NONE`] for a block of ASan's heap, see `asan_input`).
    layout: Layout,
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

    /// A copy with at least `before` inaccessible pages before it and `after` after it, for
    /// readers that may jump far from the section (a length they take from it, not from the
    /// caller): the guard is address space only (`PROT_NONE`, `MAP_NORESERVE`), however large.
    pub fn with_guards(bytes: &[u8], before: usize, after: usize) -> Option<Guarded> {
        if let Some(heap) = crate::asan_input::heap() {
            // SAFETY: ASan's malloc; the block (at least one byte) is filled from `bytes`
            // and freed by `Drop` with ASan's free.
            let p = unsafe { (heap.malloc)(bytes.len().max(1)) } as *mut u8;
            if p.is_null() {
                return None;
            }
            // SAFETY: `p` holds at least `bytes.len()` bytes and does not overlap `bytes`.
            unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len()) };
            return Some(Guarded {
                layout: Layout {
                    map: p as usize,
                    ..Layout::NONE
                },
                data: p,
                len: bytes.len(),
            });
        }
        // SAFETY: sysconf has no preconditions.
        let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) })
            .ok()
            .filter(|p| *p > 0)?;
        let data_pages = bytes.len().div_ceil(page);
        let layout = match take_idle(page, before, data_pages, after) {
            Some(l) => l,
            None => {
                let end = before.checked_add(data_pages.max(ROOM_PAGES))?;
                let len = end.checked_add(after)?.checked_mul(page)?;
                // Inaccessible until the data pages are opened below.
                let map = reserve(len)? as *mut c_void;
                let l = Layout {
                    map: map as usize,
                    len,
                    end,
                    writable: data_pages,
                };
                if data_pages > 0
                    && !protect(l.map + (end - data_pages) * page, data_pages * page, true)
                {
                    // SAFETY: the mapping just made, owned by nobody else.
                    unsafe { libc::munmap(map, len) };
                    return None;
                }
                l
            }
        };
        note(layout);
        let first = layout.map + (layout.end - data_pages) * page;
        let start = layout.map + layout.end * page - bytes.len();
        // SAFETY: `first..start + len` are the writable data pages of the mapping, ending
        // where its guard begins: the bytes before the input are zeroed (a kept mapping's
        // held an earlier input), as in a fresh mapping, and the input copied after them (an
        // empty input points at the first guard page after them and is never read).
        let data = unsafe {
            std::ptr::write_bytes(first as *mut u8, 0, start - first);
            if !bytes.is_empty() {
                std::ptr::copy_nonoverlapping(bytes.as_ptr(), start as *mut u8, bytes.len());
            }
            start as *const u8
        };
        Some(Guarded {
            layout,
            data,
            len: bytes.len(),
        })
    }

    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: `data` points to `len` initialised bytes of the mapping, which lives as
        // long as `self`.
        unsafe { std::slice::from_raw_parts(self.data, self.len) }
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        if self.layout.len == 0 {
            if let Some(heap) = crate::asan_input::heap() {
                // SAFETY: the block ASan's malloc gave in `with_guards`, freed once.
                unsafe { (heap.free)(self.layout.map as *mut c_void) };
            }
            return;
        }
        forget(self.layout.map);
        keep_or_unmap(self.layout);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page() -> usize {
        // SAFETY: sysconf has no preconditions.
        unsafe { libc::sysconf(libc::_SC_PAGESIZE) as usize }
    }

    /// The readable and writable ranges of `g`'s mapping, as the kernel lists them.
    fn writable(g: &Guarded) -> Vec<(usize, usize)> {
        let (map, len) = (g.layout.map, g.layout.len);
        std::fs::read_to_string("/proc/self/maps")
            .unwrap()
            .lines()
            .filter_map(|l| {
                let (range, rest) = l.split_once(' ')?;
                let (a, b) = range.split_once('-')?;
                let (a, b) = (
                    usize::from_str_radix(a, 16).ok()?,
                    usize::from_str_radix(b, 16).ok()?,
                );
                (a >= map && b <= map + len && rest.starts_with("rw")).then_some((a, b))
            })
            .collect()
    }

    /// The bytes of `g`'s data pages, which must be exactly its mapping's writable range.
    fn data_pages(g: &Guarded) -> Vec<u8> {
        let end = g.data as usize + g.len;
        let start = end - g.len.div_ceil(page()).max(1) * page();
        assert_eq!(
            writable(g),
            [(start, end)],
            "the data pages alone are writable, up to the guard"
        );
        // SAFETY: `start..end` are the data pages of the live mapping of `g`.
        unsafe { std::slice::from_raw_parts(start as *const u8, end - start) }.to_vec()
    }

    // One test: the kept mapping is the module's state, shared by the test threads.
    #[test]
    fn a_kept_mapping_is_given_as_a_fresh_one_would_be() {
        let long = vec![0xaa; 3000];
        let first = Guarded::with_guards(&long, 1, 1).unwrap();
        let at = first.layout.map;
        assert!(in_guard(at));
        assert_eq!(data_pages(&first)[page() - 3000..], long[..]);
        drop(first);
        // Kept, not live: a fault there is no guard page's.
        assert!(!in_guard(at));
        // A shorter input: the same mapping, the longer input's bytes before it zeroed as a
        // fresh mapping's are.
        let short = Guarded::with_guards(&[1, 2, 3], 1, 1).unwrap();
        assert_eq!(short.layout.map, at);
        assert_eq!(short.as_slice(), [1, 2, 3]);
        let pages = data_pages(&short);
        assert_eq!(&pages[pages.len() - 3..], [1, 2, 3]);
        assert!(pages[..pages.len() - 3].iter().all(|&b| b == 0));
        drop(short);
        // A longer input, of more pages: the same mapping, its writable pages grown to end
        // where the guard begins; then fewer again.
        let wide = Guarded::with_guards(&[7; 3 * 4096 + 5], 1, 1).unwrap();
        assert_eq!(wide.layout.map, at);
        let pages = data_pages(&wide);
        assert!(pages[..pages.len() - (3 * 4096 + 5)]
            .iter()
            .all(|&b| b == 0));
        drop(wide);
        let again = Guarded::with_guards(&[8; 10], 1, 1).unwrap();
        assert_eq!(again.layout.map, at);
        assert_eq!(data_pages(&again)[page() - 10..], [8; 10]);
        // Another alongside: a mapping of its own. Dropped second, it is unmapped.
        let other = Guarded::with_guards(&[9; 5000], 2, 2).unwrap();
        assert_ne!(other.layout.map, at);
        assert_eq!(other.as_slice(), [9; 5000]);
        drop(again);
        drop(other);
        // No room for the guard asked: the kept mapping goes, a fresh one comes.
        let guarded = Guarded::with_guards(&[5; 100], 1, 3).unwrap();
        assert_ne!(guarded.layout.map, at);
        assert!(data_pages(&guarded)[..page() - 100].iter().all(|&b| b == 0));
        // A copy a recovery abandons (never dropped) is kept as a dropped one is.
        let abandoned = guarded.layout;
        std::mem::forget(guarded);
        release_all();
        assert!(!in_guard(abandoned.map));
        // SAFETY: single-threaded test of the module's state.
        assert_eq!(unsafe { *std::ptr::addr_of!(IDLE) }, abandoned);
    }
}
