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
# What the differential and oracle targets read at run time, beside the binaries: the
# worker that hosts GNU libsframe and glibc's reader, the findings ledger, the corpus's ELF
# files (oracle_small), and their settings (sframe-fuzz.env; the infrastructure runs the
# binaries without our environment): strict, so that a new discrepancy is a crash the
# infrastructure reports, and the implementations this build's runner lacks excluded by
# name, from $SFRAME_FUZZ_EXCLUDE (the Dockerfile sets it): any other missing one fails.
cargo build --release -p sframe-conform --no-default-features --bin sframe-worker
cp "$CARGO_TARGET_DIR/release/sframe-worker" "$OUT/"
# The libraries the worker hosts, when the build image has them provisioned (ci/toolchains:
# Debian's libsframe of each release, with their -dbg symbols; ci/glibc-reader: glibc's
# reader): copied to $OUT/sframe-cache in the cache's layout, which the targets read as
# $SFRAME_CONFORM_CACHE (from sframe-fuzz.env). Debian's libsframe needs only GLIBC_2.14
# symbols, so it loads on the runner images too. What is carried is no longer excluded.
cache="${SFRAME_CONFORM_CACHE:-$HOME/.cache/sframe-conform}"
carried="$OUT/sframe-cache"
rm -rf "$carried" && mkdir -p "$carried/lib"
exclude="${SFRAME_FUZZ_EXCLUDE:-}"
drop() { exclude=$(printf '%s' "$exclude" | tr ',' '\n' | { grep -vxF "$1" || true; } | paste -sd, -); }
if compgen -G "$cache/lib/libsframe-*/libsframe.so.*" >/dev/null && [ -r "$cache/toolchains.json" ]; then
  cp -r "$cache"/lib/libsframe-* "$carried/lib/"
  cp "$cache/toolchains.json" "$carried/"
  drop 'libsframe-*'
fi
for g in "$cache"/glibc-*/glibc.json; do
  [ -r "$g" ] || continue
  d=$(dirname "$g"); rel=$(basename "$d")
  mkdir -p "$carried/$rel"
  cp "$d"/*.so "$carried/$rel/"
  python3 - "$g" "$carried/$rel" >"$carried/$rel/glibc.json" <<'PY'
import json, os, sys
e = json.load(open(sys.argv[1]))
e["path"] = os.path.join(sys.argv[2], os.path.basename(e["path"]))
print(json.dumps(e))
PY
  drop 'glibc-*'
done
printf '# written by ci/oss-fuzz/build.sh; the environment overrides it\nSFRAME_FUZZ_STRICT=1\nSFRAME_FUZZ_EXCLUDE=%s\nSFRAME_CONFORM_CACHE=%s\n' \
  "$exclude" "$carried" >"$OUT/sframe-fuzz.env"
rm -rf "$OUT/findings" "$OUT/corpus-elf"
cp -r corpus/findings "$OUT/findings"
cp -r corpus/elf "$OUT/corpus-elf"
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
