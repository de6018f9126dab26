#!/usr/bin/env bash
# Makes sure a RabbitMQ (127.0.0.1:5672) and a Redis (127.0.0.1:6379) answer on loopback, and that
# Debian's Chromium (the browser test of /docs), docker-compose (the compose parser check) and promtool
# (the alert rules' checks, from Debian's prometheus package) are there.
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
  # Its plugins, on loopback only: the management API (deploy/test/rabbitmq-permissions.platform.test.ts
  # makes its temporary vhost and users through it) and rabbitmq_prometheus (per-queue metrics on 15692,
  # which the alert rules read; the same test checks their names).
  mkdir -p "$INFRA_DIR/rabbitmq"
  echo '[rabbitmq_management,rabbitmq_prometheus].' >"$INFRA_DIR/rabbitmq/enabled_plugins"
  printf '%s\n' 'management.tcp.ip = 127.0.0.1' 'prometheus.tcp.ip = 127.0.0.1' >"$INFRA_DIR/rabbitmq/rabbitmq.conf"
  RABBITMQ_PORT=5672 RABBITMQ_DIST=25672 NODE_NAME=helpdesk-ci bash "$(dirname "$0")/rabbitmq-start.sh" "$INFRA_DIR/rabbitmq"
fi

# The browser test of /docs drives Debian's Chromium with playwright-core (never a downloaded browser).
need_pkg chromium chromium
# deploy/test/ops-compose.test.ts checks docker-compose.yml with a real compose parser (no engine needed).
need_pkg docker-compose docker-compose

# The alert rules' checks (deploy/test/promtool.platform.test.ts, which fails in test:infra without it):
# promtool, from Debian's prometheus package, installed without its recommended node exporter. The
# package may start a Prometheus server (systemd, or its init script where no policy-rc.d forbids it);
# this script wants only the tool, so that server is stopped, by the pid it was started with.
if command -v promtool >/dev/null 2>&1; then echo "ensure-infra: promtool already installed"
else
  if [ "$(id -u)" != 0 ]; then echo "ensure-infra: promtool is missing; install Debian's prometheus package" >&2; exit 1; fi
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus >/dev/null
  started=""
  if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
    started=$(systemctl show -p MainPID --value prometheus 2>/dev/null || true)
  fi
  if { [ -z "$started" ] || [ "$started" = 0 ]; } && [ -s /run/prometheus/prometheus.pid ]; then
    started=$(cat /run/prometheus/prometheus.pid)
  fi
  if [ -n "$started" ] && [ "$started" != 0 ] && kill -0 "$started" 2>/dev/null; then
    kill "$started" && echo "ensure-infra: stopped the Prometheus server the package started (pid $started)"
  fi
  command -v promtool >/dev/null 2>&1 || { echo "ensure-infra: promtool still missing after installing prometheus" >&2; exit 1; }
  echo "ensure-infra: installed promtool ($(promtool --version 2>&1 | head -1))"
fi
