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

