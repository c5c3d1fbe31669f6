#!/usr/bin/env bash
# The Cloudflare Worker's tests in real workerd (wrangler 4.86.0 `dev --local`), offline:
# installs worker/'s pinned tools (npm ci, cached in ~/.npm), installs the SDK into worker/
# from its packed tarball, type-checks the worker, then runs tests/worker/*.test.mjs with
# `node --test` — inside a network namespace with only loopback when `unshare` allows it.
# The tests start and stop (by process group) every wrangler/workerd, origin and SecantusDB
# they need. Assumes pkg/wasm, pkg/dist and pkg/assets are built (scripts/build-wasm.sh)
# and target/release/engram-origin exists. Fails on any failing test.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)

for need in pkg/wasm/engram_wasm_bg.wasm pkg/dist/entrypoints/workerd.js pkg/assets/o200k_base.engtok pkg/assets/minilm-l6-v2-static-256.engemb target/release/engram-origin; do
  [ -e "$need" ] || { echo "test-worker: $need is missing (run scripts/build-wasm.sh and cargo build --release -p engram-origin)" >&2; exit 1; }
done

export WRANGLER_SEND_METRICS=false CLOUDFLARE_CF_FETCH_ENABLED=false WRANGLER_HIDE_BANNER=true NO_COLOR=1
export ENGRAM_MONGO_PORT="${ENGRAM_MONGO_PORT:-27141}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== worker: npm ci (pinned wrangler, workers-types, typescript) =="
# Skipped when node_modules was installed from this very lockfile (npm ci would delete it
# under anything else using worker/'s wrangler at the moment).
lock_sum=$(sha256sum worker/package-lock.json | cut -d' ' -f1)
if [ "$(cat worker/node_modules/.engram-ci-lock 2>/dev/null)" = "$lock_sum" ] && [ -x worker/node_modules/.bin/wrangler ]; then
  echo "(node_modules already matches package-lock.json)"
else
  (cd worker && npm ci --prefer-offline --ignore-scripts --no-audit --no-fund --silent)
  echo "$lock_sum" > worker/node_modules/.engram-ci-lock
fi

echo "== worker: the SDK from its packed tarball =="
npm pack ./pkg --pack-destination "$tmp" --silent >/dev/null
ENGRAM_TARBALL=$(ls "$tmp"/engram-*.tgz)
export ENGRAM_TARBALL
(cd worker && node scripts/setup.mjs "$ENGRAM_TARBALL")

echo "== worker: typecheck =="
(cd worker && node_modules/.bin/tsc -p tsconfig.json)

echo "== worker: tests in workerd =="
run=(node --test --test-concurrency=1 --test-reporter=spec tests/worker/)
rc=0
if unshare -rn true 2>/dev/null; then
  echo "(offline by construction: a network namespace with only loopback)"
  timeout 420 unshare -rn bash -c 'ip link set lo up 2>/dev/null || true; exec "$@"' _ "${run[@]}" || rc=$?
else
  timeout 420 "${run[@]}" || rc=$?
fi

echo "test-worker: $(( $(date +%s) - started )) s, exit $rc"
exit "$rc"
