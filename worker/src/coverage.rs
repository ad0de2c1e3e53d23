//! Coverage from inside the hosted C library, for steering a fuzzer into its code.
//!
//! A SanitizerCoverage build of libsframe or glibc's reader (`ci/instrumented-libs --flavour
//! sancov`: `-fsanitize-coverage=inline-8bit-counters,pc-table`) calls
//! `__sanitizer_cov_8bit_counters_init` and `__sanitizer_cov_pcs_init` from its constructor
//! when the worker `dlopen`s it; the worker provides both ([`export_coverage_hooks!`], in the
//! `sframe-worker` binary) and keeps the library's counter range.
//!
//! With `SFRAME_WORKER_COVERAGE=PREFIX`, the worker maps two files shared with the fuzzing
//! process: `PREFIX.cur`, this request's counters (the fuzzer zeroes it before an input and
//! reads it after: what it hands libFuzzer as extra counters), and `PREFIX.ever`, one byte
//! per edge, set once the edge was reached in this run (never cleared: the distinct edges a
//! run reached, for measuring). Each file has one byte per counter of the library. Requests
//! are served in forked children ([`crate::forking`]), whose counters are their own copies:
//! [`Covered`] zeroes them before each request and adds them into the shared files after
//! it, in the child. A request that crashes the child reports no coverage.

use sframe_harness::impls::{BenchTiming, Decoded, Found, Hosting, Implementation, Outcome};
use sframe_spec::{Section, Version};
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

static START: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
static LEN: AtomicUsize = AtomicUsize::new(0);

/// Called by the instrumented library's constructor with its counters (one module: the
/// worker hosts one library; a second call replaces the first).
pub fn counters_init(start: *mut u8, stop: *mut u8) {
    let len = (stop as usize).saturating_sub(start as usize);
    START.store(start, Ordering::SeqCst);
    LEN.store(len, Ordering::SeqCst);
}

/// Export the SanitizerCoverage hooks from the binary (with `--export-dynamic-symbol`, see
/// `cli/build.rs`), so that a `dlopen`ed instrumented library finds them.
#[macro_export]
macro_rules! export_coverage_hooks {
    () => {
        /// SanitizerCoverage: the library's inline 8-bit counters.
        ///
        /// # Safety
        /// Called by instrumented code's constructor with its counter section.
        #[no_mangle]
        pub unsafe extern "C" fn __sanitizer_cov_8bit_counters_init(start: *mut u8, stop: *mut u8) {
            $crate::coverage::counters_init(start, stop)
        }
        /// SanitizerCoverage: the library's PC table (not used: counters are enough).
        ///
        /// # Safety
        /// Called by instrumented code's constructor.
        #[no_mangle]
        pub unsafe extern "C" fn __sanitizer_cov_pcs_init(_beg: *const usize, _end: *const usize) {}
    };
}

/// The two shared files, mapped (addresses: the worker is single-threaded).
struct Shared {
    cur: usize,
    ever: usize,
    len: usize,
}

fn map(path: &str, len: usize) -> Option<usize> {
    use std::os::fd::AsRawFd;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .ok()?;
    f.set_len(len as u64).ok()?;
    // SAFETY: a shared mapping of `len` bytes of a file just sized to `len`; it outlives the
    // descriptor, which may be closed.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED,
            f.as_raw_fd(),
            0,
        )
    };
    (p != libc::MAP_FAILED).then_some(p as usize)
}

/// The library's counters, as a slice (empty when it is not instrumented).
fn counters() -> Option<(*mut u8, usize)> {
    let p = START.load(Ordering::SeqCst);
    let n = LEN.load(Ordering::SeqCst);
    (!p.is_null() && n > 0).then_some((p, n))
}

/// An implementation whose requests report the hosted library's coverage.
pub struct Covered<I> {
    inner: I,
    shared: Shared,
}

impl<I: Implementation> Covered<I> {
    /// Wrap `inner` when `SFRAME_WORKER_COVERAGE` is set: `Err(inner)` when it is not; a
    /// message when it is set but the library is not instrumented or the files cannot be
    /// mapped.
    pub fn wrap(inner: I) -> Result<Result<Covered<I>, I>, String> {
        let Some(prefix) = std::env::var_os("SFRAME_WORKER_COVERAGE") else {
            return Ok(Err(inner));
        };
        let prefix = prefix.to_string_lossy().into_owned();
        let Some((_, len)) = counters() else {
            return Err(format!(
                "SFRAME_WORKER_COVERAGE={prefix}: the hosted library has no SanitizerCoverage counters (build it with ci/instrumented-libs --flavour sancov)"
            ));
        };
        let cur = map(&format!("{prefix}.cur"), len);
        let ever = map(&format!("{prefix}.ever"), len);
        match (cur, ever) {
            (Some(cur), Some(ever)) => Ok(Ok(Covered {
                inner,
                shared: Shared { cur, ever, len },
            })),
            _ => Err(format!(
                "SFRAME_WORKER_COVERAGE={prefix}: cannot map {prefix}.cur/.ever"
            )),
        }
    }

    fn covered<T>(&self, f: impl FnOnce(&I) -> T) -> T {
        let Some((c, n)) = counters() else {
            return f(&self.inner);
        };
        let n = n.min(self.shared.len);
        // SAFETY: `c..c+n` is the library's counter section (it lives as long as the
        // library, loaded for the worker's life); nothing else writes it here.
        unsafe { std::ptr::write_bytes(c, 0, n) };
        let out = f(&self.inner);
        // SAFETY: the counters as above, and the two shared mappings of `shared.len >= n`
        // bytes, which live for the worker's life.
        unsafe {
            for i in 0..n {
                let v = *c.add(i);
                if v != 0 {
                    let cur = (self.shared.cur as *mut u8).add(i);
                    *cur = (*cur).saturating_add(v);
                    *(self.shared.ever as *mut u8).add(i) = 1;
                }
            }
        }
        out
    }
}

impl<I: Implementation> Implementation for Covered<I> {
    fn name(&self) -> String {
        self.inner.name()
    }
    fn version(&self) -> String {
        self.inner.version()
    }
    fn supports(&self, version: Version) -> bool {
        self.inner.supports(version)
    }
    fn hosting(&self) -> Hosting {
        self.inner.hosting()
    }
    fn decode(&self, data: &[u8]) -> Outcome<Decoded> {
        self.covered(|i| i.decode(data))
    }
    fn find_fre(&self, data: &[u8], pc: i64) -> Outcome<Option<Found>> {
        self.covered(|i| i.find_fre(data, pc))
    }
    fn find_fres(&self, data: &[u8], pcs: &[i64]) -> Vec<Outcome<Option<Found>>> {
        self.covered(|i| i.find_fres(data, pcs))
    }
    fn encode(&self, model: &Section) -> Outcome<Vec<u8>> {
        self.covered(|i| i.encode(model))
    }
    fn bench_find(&self, data: &[u8], pcs: &[i64], rounds: u32) -> Outcome<BenchTiming> {
        self.inner.bench_find(data, pcs, rounds)
    }
}
