#!/usr/bin/env bash
# The platform suite a second time, against real RabbitMQ and Redis on their standard loopback ports.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-infra.sh
export AMQP_URL=${AMQP_URL:-amqp://guest:guest@127.0.0.1:5672}
export REDIS_URL=${REDIS_URL:-redis://127.0.0.1:6379}
export HELPDESK_INFRA=real
# Two workers: each platform boot has its own exchange, queues and Redis key space, and each fault
# test's private broker its own port, so suites do not meet. `platform` also selects the deployment's
# checks that need this machine's tools and broker (HELPDESK_INFRA=real makes them fail rather than
# skip): promtool on the alert rules (deploy/test/promtool.platform.test.ts) and the generated broker
# users' permissions in a temporary vhost (deploy/test/rabbitmq-permissions.platform.test.ts).
npx jest --passWithNoTests --maxWorkers=2 --testPathPatterns 'platform' "$@"
# The stream suites once more against `npm run start:processes` (every process separate, two
# notifications replicas); the launcher's own suite (deploy/local/test/start-processes.platform.test.ts,
# run above) adds its fault cases: a frozen customers service, a killed process restarted.
HELPDESK_PLATFORM=processes npx jest --maxWorkers=2 --testPathPatterns 'e2e/platform/notifications-stream'
# The embedded server's conformance suites once more, reached as the one-process platform reaches it:
# in process, the driver's commands handed over as objects (docs/adr/0052). npm test runs them over TCP.
EMBEDDED_TRANSPORT=in-process npx jest --maxWorkers=2 --testPathPatterns 'shared/mongo-embedded/test/conformance'
