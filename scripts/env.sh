# Shared setup for scripts: toolchain checks that install only what is missing.
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
ensure_rust() {
  if ! command -v cargo >/dev/null; then
    echo "cargo not found: install Rust with rustup first" >&2
    exit 1
  fi
  if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
    rustup target add wasm32-unknown-unknown
  fi
}

# wasm-bindgen-cli pinned to the wasm-bindgen crate (=0.2.130); built once per machine.
ensure_wasm_bindgen() {
  local want=0.2.130
  if ! wasm-bindgen --version 2>/dev/null | grep -q " $want"; then
    cargo install -q wasm-bindgen-cli --version "$want"
  fi
}


# A MongoDB-wire server for the origin: use MONGODB_URI when set, else start SecantusDB
# (scripts/mongo.sh) on port $1 and stop it when the calling script exits.
ensure_mongo() {
  if [ -z "${MONGODB_URI:-}" ]; then
    export ENGRAM_MONGO_PORT="${ENGRAM_MONGO_PORT:-$1}"
    ENGRAM_MONGO_PID=$(bash scripts/mongo.sh)
    trap 'kill "$ENGRAM_MONGO_PID" 2>/dev/null || true' EXIT
    export MONGODB_URI="mongodb://127.0.0.1:$ENGRAM_MONGO_PORT/"
  fi
}
