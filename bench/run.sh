#!/usr/bin/env bash
# Every benchmark, one after the other; each prints its figures as ratios against a baseline of its own run.
set -euo pipefail
cd "$(dirname "$0")/.."
for b in bench/*.bench.ts; do
  echo "== $b"
  npx tsx "$b"
done
