#!/usr/bin/env bash
# Stops the node that scripts/rabbitmq-start.sh started under $1: its whole process group, by pid.
set -uo pipefail
BASE=${1:?usage: rabbitmq-stop.sh FOLDER}
[ -f "$BASE/pid" ] || exit 0
PID=$(cat "$BASE/pid")
kill -TERM -- "-$PID" 2>/dev/null || kill -TERM "$PID" 2>/dev/null
for _ in $(seq 1 60); do kill -0 "$PID" 2>/dev/null || break; sleep 0.5; done
kill -KILL -- "-$PID" 2>/dev/null || true
# epmd is started by the node and outlives it; it is harmless and shared, so it is left running.
rm -f "$BASE/pid"
