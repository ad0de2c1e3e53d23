#!/usr/bin/env bash
# ClusterFuzzLite / OSS-Fuzz build: every cargo-fuzz target into $OUT, each with a seed corpus
# archive ($OUT/<target>_seed_corpus.zip) made from the real corpus.
# Inputs (set by the infrastructure): $SRC, $OUT, $WORK; $SANITIZER (address by default;
# "none" builds without sanitizers, which is what works on a stable toolchain).
set -euo pipefail
cd "$SRC/sframe-conform"
san="${SANITIZER:-address}"
case "$san" in
  none) sanitizer=(--sanitizer none) ;;
  *) sanitizer=() ;;  # cargo fuzz reads $SANITIZER's flags from the OSS-Fuzz RUSTFLAGS
esac
export CARGO_TARGET_DIR="$WORK/target"
cargo fuzz build -O "${sanitizer[@]}" --features libfuzzer
bin="$CARGO_TARGET_DIR/x86_64-unknown-linux-gnu/release"
ci/fuzz-seeds "$WORK/seeds"
for t in $(cargo fuzz list); do
  cp "$bin/$t" "$OUT/$t"
  (cd "$WORK/seeds" && python3 -c "
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1], 'w') as z:
    for f in sorted(os.listdir('.')):
        z.write(f)
" "$OUT/${t}_seed_corpus.zip")
done
