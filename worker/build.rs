//! The jump back to the request loop (`recover.c`, see `src/recover.rs`).

fn main() {
    println!("cargo:rerun-if-changed=src/recover.c");
    cc::Build::new()
        .file("src/recover.c")
        .compile("sframe_worker_recover");
}
