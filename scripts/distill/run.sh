#!/usr/bin/env bash
# Distill the default embedder's table (one-off; not part of CI: torch from PyPI is ~6 GB).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${DISTILL_VENV:-$HOME/.cache/engram-distill-venv}"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q -r "$here/requirements.txt"
"$venv/bin/python" "$here/distill.py" "$@"
