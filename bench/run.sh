#!/usr/bin/env bash
# Every benchmark, one after the other; each prints its figures as ratios against a baseline of its own run.
set -euo pipefail
cd "$(dirname "$0")/.."
# stream.bench.ts holds 5,000 streams: three sockets each in the platform's process, one in the bench's.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
for b in bench/*.bench.ts; do
  echo "== $b"
  npx tsx "$b"
done
