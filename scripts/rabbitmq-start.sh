#!/usr/bin/env bash
# Starts a private RabbitMQ node from Debian's rabbitmq-server on RABBITMQ_PORT (dist port RABBITMQ_DIST)
# with all its state under the folder given as $1, and waits until it accepts AMQP connections.
# Prints the pid and writes it to $1/pid: stop it with scripts/rabbitmq-stop.sh $1 (by pid, never by name).
# RabbitMQ drops to its own user, so the folders are made and owned by `rabbitmq`.
set -euo pipefail
BASE=${1:?usage: rabbitmq-start.sh FOLDER}
PORT=${RABBITMQ_PORT:?set RABBITMQ_PORT}
DIST=${RABBITMQ_DIST:-$((PORT + 20000))}
NAME=${NODE_NAME:-helpdesk-$PORT}
mkdir -p "$BASE/mnesia" "$BASE/log" "$BASE/home"
if id rabbitmq >/dev/null 2>&1; then chown -R rabbitmq:rabbitmq "$BASE"; fi
export RABBITMQ_MNESIA_BASE="$BASE/mnesia" RABBITMQ_LOG_BASE="$BASE/log" \
  RABBITMQ_FEATURE_FLAGS_FILE="$BASE/feature_flags" RABBITMQ_ENABLED_PLUGINS_FILE="$BASE/enabled_plugins" \
  HOME="$BASE/home" RABBITMQ_NODENAME="$NAME@localhost" RABBITMQ_NODE_IP_ADDRESS=127.0.0.1 \
  RABBITMQ_NODE_PORT="$PORT" RABBITMQ_DIST_PORT="$DIST" RABBITMQ_PID_FILE="$BASE/rabbit.pid" \
  RABBITMQ_CONFIG_FILE="$BASE/rabbitmq.conf" RABBITMQ_CONF_ENV_FILE="$BASE/rabbitmq-env.conf"
setsid rabbitmq-server >"$BASE/server.out" 2>&1 &
echo $! >"$BASE/pid"
for _ in $(seq 1 120); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then echo "rabbitmq-start: node $NAME up on $PORT (pid $(cat "$BASE/pid"))"; exit 0; fi
  sleep 0.5
done
echo "rabbitmq-start: node did not open $PORT in 60 s; see $BASE/log and $BASE/server.out" >&2
exit 1
