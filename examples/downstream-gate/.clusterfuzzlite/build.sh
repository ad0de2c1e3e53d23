#!/usr/bin/env bash
# ClusterFuzzLite / OSS-Fuzz build of the gate's fuzz target (fuzz/fuzz_targets/gate_diff.rs)
# into $OUT, with what it reads at run time beside it: the crate's findings ledger
# ($OUT/sframe-findings). Inputs (set by the infrastructure): $SRC, $OUT, $WORK; $SANITIZER
# (address by default; "none" builds without sanitizers, which works on a stable toolchain).
set -euo pipefail
cd "$SRC/tiny-sframe"
case "${SANITIZER:-address}" in
  none) sanitizer=(--sanitizer none) ;;
  *) sanitizer=() ;;  # cargo fuzz reads $SANITIZER's flags from the OSS-Fuzz RUSTFLAGS
esac
export CARGO_TARGET_DIR="$WORK/target"
cargo fuzz build --fuzz-dir fuzz -O "${sanitizer[@]}" --features libfuzzer gate_diff
cp "$CARGO_TARGET_DIR/x86_64-unknown-linux-gnu/release/gate_diff" "$OUT/"
rm -rf "$OUT/sframe-findings"
cp -r tests/sframe-findings "$OUT/sframe-findings"
