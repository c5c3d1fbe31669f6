#!/usr/bin/env bash
# Run one fuzz target for SECONDS (default 600), single-threaded and nice'd, from the
# committed seeds into a scratch corpus (fuzz/corpus/<target>, not committed). Build first:
#   cargo +nightly fuzz build        (from fuzz/)
# Usage: fuzz/run.sh <target> [seconds]
set -euo pipefail
target=$1
secs=${2:-600}
here=$(cd "$(dirname "$0")" && pwd)
bin=$here/target/x86_64-unknown-linux-gnu/release/$target
mkdir -p "$here/corpus/$target" "$here/artifacts/$target" "$here/logs/$target"
# With -jobs=1 libFuzzer runs the fuzzer in one child process logging to fuzz-0.log in the
# working directory; the final stats (-print_final_stats) are at its end.
cd "$here/logs/$target"
nice -n 19 "$bin" "$here/corpus/$target" "$here/seeds/$target" \
  -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 -max_len=65536 \
  -jobs=1 -workers=1 -print_final_stats=1 \
  -artifact_prefix="$here/artifacts/$target/"
tail -n 30 fuzz-0.log
