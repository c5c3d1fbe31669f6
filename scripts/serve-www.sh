#!/usr/bin/env bash
# Build the demo chat app (www/) against the packed engram package and serve it on
# 127.0.0.1, printing the URL. pkg/ must be built (scripts/build-wasm.sh).
#   scripts/serve-www.sh           serve until interrupted (PORT, default 4173)
#   scripts/serve-www.sh --check   serve, fetch the page, its script and both tables, stop (CI)
#   scripts/serve-www.sh --dev     the Vite dev server instead (edits to www/src reload)
set -euo pipefail
cd "$(dirname "$0")/.."
port="${PORT:-4173}"
if [ "${1:-}" = "--check" ] && [ -z "${PORT:-}" ]; then
  # A free port, so a check never collides with a server already running.
  port=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
fi

sum=$(sha256sum www/package-lock.json | cut -d' ' -f1)
if [ "$(cat www/node_modules/.lock-sha256 2>/dev/null)" != "$sum" ]; then
  (cd www && npm install --prefer-offline --no-audit --no-fund --loglevel=error)
  echo "$sum" > www/node_modules/.lock-sha256
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; [ -n "${server:-}" ] && kill "$server" 2>/dev/null || true' EXIT
(cd pkg && npm pack --silent --pack-destination "$tmp" >/dev/null)
(cd www && npm install --no-save --no-package-lock --prefer-offline --no-audit --no-fund --loglevel=error "$tmp"/engram-*.tgz \
  && rm -f .engram-tarball && npx vite build --logLevel warn)

url="http://127.0.0.1:$port/"
if [ "${1:-}" = "--dev" ]; then
  echo "engram chat app (dev server): $url"
  cd www && exec npx vite --host 127.0.0.1 --port "$port" --strictPort
fi
if [ "${1:-}" != "--check" ]; then
  echo "engram chat app: $url"
  cd www && exec npx vite preview --host 127.0.0.1 --port "$port" --strictPort
fi

# vite itself (not through npx, whose child would outlive a kill of npx).
(cd www && exec node node_modules/vite/bin/vite.js preview --host 127.0.0.1 --port "$port" --strictPort >/dev/null) &
server=$!
for _ in $(seq 1 100); do curl -sf "$url" >/dev/null && break; sleep 0.1; done
html=$(curl -sf "$url")
for path in $(echo "$html" | grep -o '/assets/[^"]*\.js') $(ls www/dist/assets | grep -E '\.(engtok|engemb|wasm)$' | sed 's|^|/assets/|'); do
  curl -sf -o /dev/null "http://127.0.0.1:$port$path" || { echo "serve-www: $path did not load" >&2; exit 1; }
done
echo "engram chat app: $url (checked: page, script, wasm, tables; stopped)"
