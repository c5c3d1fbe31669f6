#!/usr/bin/env bash
# Build the wasm core and the npm package `engram` (pkg/): cargo → wasm-bindgen (web
# target, one glue for every runtime; name and producers sections removed) → token
# tables → TypeScript. No wasm-opt: Debian's binaryen 108 turns wasm-bindgen 0.2.130's
# externref table into one that fails at instantiation ("Table.set(): Argument 1 is
# invalid"), with every feature flag tried; the module is within budget without it.
# Prints the wasm size, raw and gzip, against its budget.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
ensure_rust
ensure_wasm_bindgen

# A dependency's panic locations name its file from the registry's root, not by this
# machine's path (~2 KB raw, ~350 B of the gzip budget): the remap is added to the
# target's rustflags in .cargo/config.toml (cargo joins the two lists).
cargo fetch -q
remap=()
for reg in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/; do
  remap+=(--config "target.wasm32-unknown-unknown.rustflags=['--remap-path-prefix=${reg%/}=']")
done
cargo build -q --profile wasm --target wasm32-unknown-unknown -p engram-wasm "${remap[@]}"
raw=target/wasm32-unknown-unknown/wasm/engram_wasm.wasm
rm -rf pkg/wasm pkg/dist && mkdir -p pkg/wasm
wasm-bindgen --target web --remove-name-section --remove-producers-section --out-dir pkg/wasm "$raw"

assets=pkg/assets
if [ ! -f "$assets/o200k_base.engtok" ] || [ ! -f "$assets/cl100k_base.engtok" ]; then
  cargo run --release -q -p engram-testkit --bin export-token-tables -- "$assets"
fi
# The default embedder's table is a committed asset (scripts/distill/ made it).
cp assets/embed/minilm-l6-v2-static-256.engemb "$assets/"

(cd pkg && { [ -d node_modules ] || npm ci --no-audit --no-fund --loglevel=error; } && npx tsc -p tsconfig.json)

size=$(stat -c %s pkg/wasm/engram_wasm_bg.wasm)
gz=$(gzip -9 -c pkg/wasm/engram_wasm_bg.wasm | wc -c)
budget=$((512 * 1024))
printf 'wasm core: %d bytes raw, %d bytes gzip (budget %d gzip, without token tables)\n' "$size" "$gz" "$budget"
for f in "$assets"/*.engtok; do
  printf 'token table %s: %d bytes raw, %d bytes gzip (loaded lazily)\n' "$(basename "$f")" "$(stat -c %s "$f")" "$(gzip -9 -c "$f" | wc -c)"
done
f="$assets/minilm-l6-v2-static-256.engemb"
printf 'embedding table %s: %d bytes raw, %d bytes gzip (loaded lazily)\n' "$(basename "$f")" "$(stat -c %s "$f")" "$(gzip -9 -c "$f" | wc -c)"
if [ "$gz" -gt "$budget" ]; then echo "wasm core over its gzip budget" >&2; exit 1; fi
