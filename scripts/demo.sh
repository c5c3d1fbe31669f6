#!/usr/bin/env bash
# Build everything and run the main job: replay seed 003's conversation through engram.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
ensure_rust
assets="${ENGRAM_ASSETS:-target/engram-assets}"
if [ ! -f "$assets/o200k_base.engtok" ]; then
  cargo run --release -q -p engram-testkit --bin export-token-tables -- "$assets"
fi
cargo build --release --workspace --all-targets -q
bash scripts/build-wasm.sh
cargo run --release -q -p engram-core --example replay -- "$assets/o200k_base.engtok"
