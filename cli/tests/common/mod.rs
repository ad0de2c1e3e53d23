//! What the CLI tests share.

/// A v2 AMD64 section written by hand (v3 manual §2.2, v2 info §2.3): one function at 0x40,
/// 16 bytes, one FRE (CFA = SP + 8). Literal on purpose: these bytes are the texts' layout,
/// the expected value the reader and `check` are tested against, not the writer's output.
#[allow(dead_code)] // not every test file needs it
pub fn valid_v2() -> Vec<u8> {
    let mut b = vec![0xe2, 0xde, 2, 1, 3, 0, 0xf8, 0];
    for v in [1u32, 1, 3, 0, 20] {
        b.extend(v.to_le_bytes());
    }
    b.extend(0x40i32.to_le_bytes());
    b.extend(16u32.to_le_bytes());
    b.extend(0u32.to_le_bytes());
    b.extend(1u32.to_le_bytes());
    b.extend([0, 0, 0, 0]); // info, rep_size, padding
    b.extend([0, 0b11, 8]); // FRE: start 0, info (1 word, SP), CFA offset 8
    b
}

/// `sframe-conform ARGS` run in the crate's directory (so the default ledger is the
/// repository's).
#[allow(dead_code)] // not every test file runs the binary
pub fn run(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_sframe-conform"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

/// `sframe-conform ARGS`, which must exit 0, with its stdout read as JSON.
#[allow(dead_code)] // not every test file reads JSON
pub fn run_json(args: &[&str]) -> serde_json::Value {
    let out = run(args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "sframe-conform {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the output is JSON")
}

/// The emulator options whole-stack walks are checked with (`cli/tests/stackwalk.rs`, and the
/// stack-walk claims of `cli/tests/claims.rs`, which must walk the same stacks): two runs and
/// two extra runs per function, seed 7, one job, the deepest point of each run kept.
#[allow(dead_code)] // not every test file needs it
pub fn stack_walk_options() -> sframe_oracle::Options {
    sframe_oracle::Options {
        runs: 2,
        extra_runs: 2,
        seed: 7,
        jobs: 1,
        snapshots: true,
        ..sframe_oracle::Options::default()
    }
}
