#!/usr/bin/env bash
# Start a MongoDB-wire-compatible server for tests and the demo when MONGODB_URI is unset:
# SecantusDB (PyPI) in memory on 127.0.0.1:${ENGRAM_MONGO_PORT:-27017}. Installs it once into
# .ci-mongo/venv. Prints the server's pid; the caller stops it (kill PID). In memory, every
# test's database lives in the WiredTiger cache: the default 1G fills during the SDK's tests
# (WT_CACHE_FULL after the 9.6 MB sync test), so the cache is 4G.
# Usage: pid=$(bash scripts/mongo.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
port="${ENGRAM_MONGO_PORT:-27017}"
venv=.ci-mongo/venv
if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
  echo "port $port is taken: stop that server or set ENGRAM_MONGO_PORT" >&2
  exit 1
fi
if [ ! -x "$venv/bin/secantusd-py" ]; then
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install -q "SecantusDB==0.7.0b3" >&2
fi
setsid "$venv/bin/secantusd-py" --host 127.0.0.1 --port "$port" --storage-path :memory: --cache-size 4G \
  > ".ci-mongo/server-$port.log" 2>&1 < /dev/null &
pid=$!
for _ in $(seq 1 200); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "$pid"; exit 0; fi
  if ! kill -0 "$pid" 2>/dev/null; then cat ".ci-mongo/server-$port.log" >&2; exit 1; fi
  sleep 0.1
done
echo "SecantusDB did not open port $port (see .ci-mongo/server-$port.log)" >&2
kill "$pid" 2>/dev/null || true
exit 1
