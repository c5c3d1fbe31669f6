#!/usr/bin/env bash
# Build what the demo runs, then run it: replay seed 003's conversation through engram
# (engram-core's `replay` example), sync two devices through the origin (engram-origin),
# serve the chat app (www/, on the wasm package built by scripts/build-wasm.sh).
# Only those targets are built — not the workspace's tests (`scripts/test.sh` builds them).
# On a 2-core machine: 5 min 37 s from a fresh clone, 9 s once built (docs/contributing.md).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
ensure_rust
# No link-time optimisation for the demo's native binaries: the same artifacts as
# scripts/test.sh (which sets it too), and minutes less to link. The wasm profile sets its own.
export CARGO_PROFILE_RELEASE_LTO=false
t0=$SECONDS
echo "== build: the wasm package (pkg/), the replay example, the origin =="
bash scripts/build-wasm.sh   # also writes the token tables to pkg/assets
assets="${ENGRAM_ASSETS:-target/engram-assets}"
if [ ! -f "$assets/o200k_base.engtok" ]; then
  mkdir -p "$assets" && cp pkg/assets/o200k_base.engtok "$assets/"
fi
cargo build --release -q -p engram-core --example replay
cargo build --release -q -p engram-origin --bin engram-origin
echo "built in $((SECONDS - t0)) s"
echo
target/release/examples/replay "$assets/o200k_base.engtok"

# Sync: two devices of one user and another user through the origin (engram-origin over
# MongoDB; SecantusDB is started here when MONGODB_URI is unset).
echo
echo "== sync through the origin =="
ensure_mongo 27118
ENGRAM_SECRET=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
export ENGRAM_SECRET
log=target/origin-demo.log
ENGRAM_DB="engram_demo_$$" ENGRAM_BIND=127.0.0.1:0 target/release/engram-origin 2> "$log" &
origin_pid=$!
for _ in $(seq 1 100); do grep -q '"addr"' "$log" 2>/dev/null && break; sleep 0.1; done
addr=$(grep -o '"addr":"[^"]*"' "$log" | head -1 | cut -d'"' -f4)
[ -n "$addr" ] || { cat "$log" >&2; kill "$origin_pid"; exit 1; }
echo "origin on http://$addr over $MONGODB_URI"
ENGRAM_ORIGIN="http://$addr" \
TOKEN_ZHANG=$(target/release/engram-origin token demo zhang-san 600) \
TOKEN_LI=$(target/release/engram-origin token demo li-si 600) \
  node scripts/sync-demo.mjs
kill "$origin_pid"
echo "origin log (structured, no memory text): $(grep -c '"op":"sync"' "$log") sync requests, e.g."
grep '"op":"sync"' "$log" | head -1

# The demo chat app (www/), built against the packed package and served on 127.0.0.1 until
# interrupted. Not on a terminal (scripts/test.sh writes this to a file), with `--check` or
# with CI set, it serves the app, checks that the page, its script, the wasm and both tables
# load, and exits.
echo
echo "== the chat app (www/) =="
if [ "${1:-}" = "--check" ] || [ -n "${CI:-}" ] || [ ! -t 1 ]; then
  bash scripts/serve-www.sh --check
else
  echo "open the URL below; memory stays in your browser (IndexedDB). Ctrl-C to stop."
  bash scripts/serve-www.sh
fi
