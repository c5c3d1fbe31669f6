#!/usr/bin/env bash
# Test the package as users install it: `npm pack`, install the tarball into a fresh
# Node project (ESM), run a smoke script that remembers, recalls and builds a context.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd pkg && npm pack --silent --pack-destination "$tmp" >/dev/null)
tarball=$(ls "$tmp"/engram-*.tgz)
echo "packed $(basename "$tarball"): $(stat -c %s "$tarball") bytes"
mkdir "$tmp/app"
cd "$tmp/app"
cat > package.json <<'JSON'
{ "name": "engram-smoke", "private": true, "type": "module" }
JSON
npm install --silent --no-audit --no-fund "$tarball" >/dev/null
cat > smoke.mjs <<'JS'
import assert from "node:assert/strict";
import { Engram, MemoryStorage } from "engram";
const mem = await Engram.open({ user: "smoke", storage: new MemoryStorage() });
await mem.tokenizerReady();
await mem.remember({ text: "Smoke tester prefers Rust", key: { subject: "smoke", attribute: "language" } });
await mem.session("s").append("user", "hello, which language do I like?");
const hits = await mem.recall("which language do I like");
assert.equal(hits.hits[0].record.text, "Smoke tester prefers Rust");
const ctx = await mem.buildContext("which language do I like", { session: "s", budget: 300 });
assert.ok(ctx.exact && ctx.tokens <= 300 && ctx.text.includes("prefers Rust"));
console.log(`smoke ok: ${hits.hits.length} hit(s), context ${ctx.tokens} tokens (exact=${ctx.exact})`);
JS
node smoke.mjs
