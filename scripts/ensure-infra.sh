#!/usr/bin/env bash
# Makes sure a RabbitMQ (127.0.0.1:5672) and a Redis (127.0.0.1:6379) answer on loopback, and that
# Debian's Chromium (the browser test of /docs) and docker-compose (the compose parser check) are there.
# Where they already run (developer machines, CI) nothing is started. Otherwise they are installed
# from Debian's packages when missing and started in the background; their pids go to
# ${INFRA_DIR:-/tmp/helpdesk-infra}/*.pid so scripts/stop-infra.sh stops exactly what this started.
set -euo pipefail
INFRA_DIR=${INFRA_DIR:-/tmp/helpdesk-infra}
mkdir -p "$INFRA_DIR"

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

need_pkg() {
  command -v "$1" >/dev/null 2>&1 && return 0
  if [ "$(id -u)" != 0 ]; then echo "ensure-infra: $1 is missing; install Debian's $2 package" >&2; exit 1; fi
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null
}

if port_open 6379; then echo "ensure-infra: Redis already answers on 6379"
else
  need_pkg redis-server redis-server
  redis-server --daemonize no --bind 127.0.0.1 --port 6379 --save "" --appendonly no --dir "$INFRA_DIR" \
    >"$INFRA_DIR/redis.log" 2>&1 &
  echo $! >"$INFRA_DIR/redis.pid"
  for _ in $(seq 1 50); do port_open 6379 && break; sleep 0.2; done
  port_open 6379 || { echo "ensure-infra: Redis did not start (see $INFRA_DIR/redis.log)" >&2; exit 1; }
  echo "ensure-infra: started Redis (pid $(cat "$INFRA_DIR/redis.pid"))"
fi

if port_open 5672; then echo "ensure-infra: RabbitMQ already answers on 5672"
else
  need_pkg rabbitmq-server rabbitmq-server
  RABBITMQ_PORT=5672 RABBITMQ_DIST=25672 NODE_NAME=helpdesk-ci bash "$(dirname "$0")/rabbitmq-start.sh" "$INFRA_DIR/rabbitmq"
fi

# The browser test of /docs drives Debian's Chromium with playwright-core (never a downloaded browser).
need_pkg chromium chromium
# deploy/test/ops-compose.test.ts checks docker-compose.yml with a real compose parser (no engine needed).
need_pkg docker-compose docker-compose
