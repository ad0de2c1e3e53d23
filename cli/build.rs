//! Export the worker's allocator (`sframe_worker::guarded_heap`) from the `sframe-worker`
//! binary, so that the C libraries it `dlopen`s allocate through it, and the SanitizerCoverage
//! hooks (`sframe_worker::coverage`) that an instrumented library's constructor calls, and
//! `__assert_fail` (`sframe_worker::recover`), so that a failed assertion of such a library is
//! recovered from.

fn main() {
    for sym in [
        "malloc",
        "calloc",
        "realloc",
        "free",
        "__assert_fail",
        "__sanitizer_cov_8bit_counters_init",
        "__sanitizer_cov_pcs_init",
    ] {
        println!("cargo:rustc-link-arg-bin=sframe-worker=-Wl,--export-dynamic-symbol={sym}");
    }
}
