//! Export the worker's allocator (`sframe_worker::guarded_heap`) from the `sframe-worker`
//! binary, so that the C libraries it `dlopen`s allocate through it.

fn main() {
    for sym in ["malloc", "calloc", "realloc", "free"] {
        println!("cargo:rustc-link-arg-bin=sframe-worker=-Wl,--export-dynamic-symbol={sym}");
    }
}
