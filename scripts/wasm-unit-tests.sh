#!/usr/bin/env bash
# The core's unit tests (kernels, codecs, BM25, decay, ...) built for wasm32-wasip1 with
# simd128 and run in Node: the simd128 kernels are what run there, so this is where they
# are checked against double-precision sums and the portable kernels.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! rustup target list --installed | grep -qx wasm32-wasip1; then
  rustup target add wasm32-wasip1
fi
export NODE_NO_WARNINGS=1
export CARGO_TARGET_WASM32_WASIP1_RUNNER="node $(pwd)/scripts/wasi-run.mjs"
export PROPTEST_DISABLE_FAILURE_PERSISTENCE=1
cargo test -q --release -p engram-core --lib --target wasm32-wasip1 --target-dir target/wasip1
