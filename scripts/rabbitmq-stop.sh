#!/usr/bin/env bash
# Stops the node that scripts/rabbitmq-start.sh started under $1: its whole process group, by pid.
set -uo pipefail
BASE=${1:?usage: rabbitmq-stop.sh FOLDER}
[ -f "$BASE/pid" ] || exit 0
PID=$(cat "$BASE/pid")
# rabbitmq-server drops to the rabbitmq user in a session of its own, so the Erlang VM (its pid in
# rabbit.pid) is not in the group started here: signal both, then wait for the VM to be gone.
VM=$(cat "$BASE/rabbit.pid" 2>/dev/null || true)
kill -TERM -- "-$PID" 2>/dev/null || kill -TERM "$PID" 2>/dev/null
[ -n "$VM" ] && kill -TERM "$VM" 2>/dev/null
for _ in $(seq 1 60); do
  { kill -0 "$PID" 2>/dev/null || { [ -n "$VM" ] && kill -0 "$VM" 2>/dev/null; }; } || break
  sleep 0.5
done
kill -KILL -- "-$PID" 2>/dev/null || true
[ -n "$VM" ] && kill -KILL "$VM" 2>/dev/null
# epmd is started by the node and outlives it; it is harmless and shared, so it is left running.
rm -f "$BASE/pid" "$BASE/rabbit.pid"
exit 0
