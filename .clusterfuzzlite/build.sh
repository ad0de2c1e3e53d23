#!/usr/bin/env bash
# ClusterFuzzLite builds as OSS-Fuzz does: the one build script is ci/oss-fuzz/build.sh, in
# the source tree the Dockerfile copies to $SRC/sframe-conform.
set -euo pipefail
exec bash "$SRC/sframe-conform/ci/oss-fuzz/build.sh" "$@"
