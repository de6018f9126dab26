/**
 * The platform's processes, declared once (the pattern of eShop's AppHost): what each runs, which
 * ports it opens, which servers and other services it reaches, what must be shared when it has
 * several replicas, and how it scales. Everything that starts or deploys the platform follows this
 * list or is checked against it:
 *
 * - `npm run start:processes` (deploy/local/src/processes.ts) starts every entry from it;
 * - `npm start` (deploy/local/src/platform.ts) boots every service from it, through the start functions
 *   `npm run generate` lists in deploy/local/src/services.generated.ts;
 * - generated from it (`npm run generate`, `npm run env-docs`): deploy/prometheus/prometheus.yml, the
 *   gateway's SERVICE_URLS in docker-compose.yml and the Kubernetes base, deploy/local's dependencies,
 *   the RabbitMQ users, the variables tables of docs/configuration.md and .env.example;
 * - checked against it: docker-compose.yml and the Kubernetes base and overlays (deploy/test:
 *   registry-gaps.test.ts names each file lacking a process, registry.test.ts checks each one's details).
 *
 * Adding a service (docs/adding-a-service.md): its folder under services/ (with `src/main.ts` calling
 * kit's runServiceMain and `src/index.ts` exporting `start<Name>`), its manifest file in
 * shared/contracts, and one entry here; the tests then name every deployment file that still lacks it.
 *
 * Pure data: no imports, so scripts, tests and the launcher read it without starting anything.
 */

/** A server the platform runs on (embedded stand-ins in `npm start`). */
export type Store = 'mongo' | 'amqp' | 'redis';

export interface ProcessCall {
  /** The service called (a registry name). */
  service: string;
  /** The variable that holds its URL. */
  env: string;
  /** Why: shown in the docs and the deployment files' comments. */
  why: string;
}

export interface ExtraPort {
  /** Port name in Kubernetes and compose. */
  name: string;
  /** Default port (the variable's default). */
  port: number;
  /** The variable that sets it. */
  env: string;
  /** Reached from outside the cluster (a LoadBalancer Service, a published compose port). */
  public: boolean;
  /** The variable that sets the interface it listens on (the launchers set it to their HOST). */
  hostEnv?: string;
}

export interface ProcessEntry {
  name: string;
  kind: 'gateway' | 'service';
  /** What it is for (one line). */
  summary: string;
  /** Entry file from the repository root: `node --require tsx/cjs <entry>` (the image's command). */
  entry: string;
  /** HTTP port (`PORT`'s default in deployments) and Prometheus port (`METRICS_PORT`). */
  port: number;
  metricsPort: number;
  extraPorts: ExtraPort[];
  /** Servers it cannot run without (in production; HELPDESK_EMBEDDED=1 allows stand-ins for development). */
  stores: Store[];
  /**
   * Other services it calls over HTTP while running. None is needed to START: a process starts on
   * its stores alone, and a call to a service that is down answers 503 (or waits for an event),
   * so services can be deployed one at a time.
   */
  calls: ProcessCall[];
  /**
   * State that several replicas must share, and so live in Redis (REDIS_URL): with more than one
   * replica and no Redis, each would keep its own copy. The process refuses to start without
   * REDIS_URL unless HELPDESK_EMBEDDED=1.
   */
  sharedState: string[];
  /** Replicas: in the Kubernetes local overlay, the production minimum, the production maximum (HPA). */
  replicas: { local: number; production: number; max: number };
  /**
   * Stateless request serving that may scale on CPU (an HPA in production). Consumers of one shared
   * queue scale too, but on queue depth, not CPU; those keep a fixed count.
   */
  autoscale: boolean;
  /** Replicas `npm run start:processes` runs (2 where one replica's shared state is worth trying on one machine). */
  localProcesses: number;
  /** It keeps secrets at rest or seals what it stores with SECRETS_KEY (docs/adr/0067): the launchers hand it the key. */
  secretsAtRest: boolean;
  /**
   * Pages of the gateway it links to in mail or redirects: variable → path on the gateway's public
   * address. `npm run start:processes` points each at its own gateway unless the variable is set.
   */
  gatewayLinks: Record<string, string>;
}

const service = (e: Pick<ProcessEntry, 'name' | 'summary' | 'replicas' | 'autoscale'> & Partial<ProcessEntry>): ProcessEntry => ({
  kind: 'service',
  entry: `services/${e.name}/src/main.ts`,
  port: 3000,
  metricsPort: 9464,
  extraPorts: [],
  stores: ['mongo', 'amqp'],
  calls: [],
  sharedState: [],
  localProcesses: 1,
  secretsAtRest: false,
  gatewayLinks: {},
  ...e,
});

const customersCall = (why: string): ProcessCall => ({ service: 'customers', env: 'CUSTOMERS_URL', why });

export const PROCESSES: readonly ProcessEntry[] = [
  {
    name: 'gateway',
    kind: 'gateway',
    summary: 'The only public entry: API keys, limits, idempotency, routing to the services; the widget, docs, help center and billing pages.',
    entry: 'gateway/src/main.ts',
    port: 8080,
    metricsPort: 9464,
    extraPorts: [],
    stores: ['mongo', 'redis'],
    // SERVICE_URLS names every service it routes to; any subset may be configured (a route to one
    // without a URL answers 503 service_unavailable).
    calls: [],
    sharedState: ['rate-limit counters', 'Idempotency-Key records'],
    replicas: { local: 1, production: 3, max: 20 },
    autoscale: true,
    localProcesses: 1,
    secretsAtRest: true,
    gatewayLinks: {},
  },
  service({
    name: 'ticketing',
    summary: 'Tickets, messages, SLA, automations, AI actions, ticket analytics, the widget conversations and inbound email.',
    extraPorts: [
      { name: 'smtp', port: 2525, env: 'INBOUND_SMTP_PORT', public: true, hostEnv: 'INBOUND_SMTP_HOST' },
      { name: 'inbound-http', port: 2580, env: 'INBOUND_HTTP_PORT', public: true, hostEnv: 'INBOUND_HTTP_HOST' },
    ],
    // Seals the Idempotency-Key answers it keeps.
    secretsAtRest: true,
    calls: [customersCall('first sight of a customer id a ticket names (known customers come from customer events)')],
    replicas: { local: 1, production: 3, max: 10 },
    autoscale: true,
  }),
  service({
    name: 'customers',
    summary: 'Customers, customer groups and memberships, customer statuses.',
    replicas: { local: 1, production: 3, max: 10 },
    autoscale: true,
  }),
  service({
    name: 'webhooks',
    summary: 'Webhook subscriptions, signed deliveries, retries and the delivery log.',
    // Webhook signing secrets, sealed.
    secretsAtRest: true,
    replicas: { local: 1, production: 3, max: 10 },
    autoscale: true,
  }),
  service({
    name: 'knowledge',
    summary: 'Knowledge-base articles and categories.',
    replicas: { local: 1, production: 2, max: 6 },
    autoscale: true,
  }),
  service({
    name: 'workspace',
    summary: 'Members, invites, roles, settings, custom fields, saved views, billing and the audit log.',
    gatewayLinks: { INVITE_ACCEPT_URL: '/invites/accept', BILLING_PORTAL_URL: '/billing/portal', SIGN_IN_URL: '/app/sign-in' },
    replicas: { local: 1, production: 3, max: 10 },
    autoscale: true,
  }),
  service({
    name: 'community',
    summary: 'Community topics, posts, comments, votes and attachments.',
    calls: [customersCall('the customer a secret key writes for')],
    replicas: { local: 1, production: 2, max: 6 },
    autoscale: true,
  }),
  service({
    name: 'notifications',
    summary: 'Per-member notifications, outgoing email and the server-sent-events stream with its replay log.',
    stores: ['mongo', 'amqp', 'redis'],
    calls: [
      { service: 'workspace', env: 'WORKSPACE_URL', why: 'members and their preferences for notification mail' },
      { service: 'ticketing', env: 'TICKETING_URL', why: "a widget conversation token's stream" },
    ],
    sharedState: ['the event stream log (every replica serves every event to its own streams)'],
    replicas: { local: 1, production: 2, max: 10 },
    // Scaled on held streams, not CPU: a fixed count sized in the overlay.
    autoscale: false,
    localProcesses: 2,
  }),
  service({
    name: 'dataops',
    summary: 'Search, tags, saved-view execution, bulk changes, export and import across the owning services.',
    calls: [
      { service: 'ticketing', env: 'TICKETING_URL', why: 'fan-out to the owning service' },
      customersCall('fan-out to the owning service'),
      { service: 'knowledge', env: 'KNOWLEDGE_URL', why: 'fan-out to the owning service' },
      { service: 'community', env: 'COMMUNITY_URL', why: 'fan-out to the owning service' },
      { service: 'workspace', env: 'WORKSPACE_URL', why: 'fan-out to the owning service' },
    ],
    replicas: { local: 1, production: 2, max: 6 },
    autoscale: true,
  }),
  service({
    name: 'game',
    summary: 'Player stats, XP, levels, seasons, boss battles, achievements, quests and leaderboards.',
    // Its consumers take ticket events in micro-batches; more replicas share the queue.
    replicas: { local: 1, production: 2, max: 6 },
    autoscale: false,
  }),
];

export const SERVICES: readonly ProcessEntry[] = PROCESSES.filter((p) => p.kind === 'service');

export function processNamed(name: string): ProcessEntry {
  const found = PROCESSES.find((p) => p.name === name);
  if (!found) throw new Error(`no process named ${name} in deploy/registry.ts`);
  return found;
}

/** The variable holding a process's image tag in compose (`TICKETING_TAG`), so each is deployed on its own. */
export const imageTagVariable = (name: string): string => `${name.toUpperCase().replace(/-/g, '_')}_TAG`;

/**
 * The Secret holding a process's own MONGO_URL (key `MONGO_URL`): a URL with its own database in the
 * path and its own user, so one leaked credential or one wrong URL never reaches another service's data.
 */
export const mongoSecretName = (name: string): string => `helpdesk-mongo-${name}`;

/**
 * The Secret holding a process's own AMQP_URL (key `AMQP_URL`): a URL with its own RabbitMQ user, whose
 * permissions let it publish only its own event types (deploy/rabbitmq/topology.ts, docs/adr/0060).
 */
export const amqpSecretName = (name: string): string => `helpdesk-amqp-${name}`;

/** A service's workspace package (`services/<name>`), whose index exports its start function. */
export const servicePackage = (name: string): string => `@helpdesk/${name}`;

/** The function a service's package exports to run it in a process it shares (`startKnowledge`); npm start boots each through it. */
export const startFunctionName = (name: string): string => `start${name.replace(/(^|-)([a-z])/g, (_m, _dash: string, c: string) => c.toUpperCase())}`;

/** The start option holding the URL a `calls` variable names: CUSTOMERS_URL → customersUrl. */
export const callOption = (env: string): string => env.toLowerCase().replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

/**
 * The services in the order one process can boot them: each after the services it calls (it is
 * handed their URLs at start), otherwise in registry order.
 */
export function bootOrder(services: readonly ProcessEntry[] = SERVICES): ProcessEntry[] {
  const order: ProcessEntry[] = [];
  const pending = [...services];
  while (pending.length) {
    const next = pending.findIndex((s) => s.calls.every((c) => order.some((o) => o.name === c.service)));
    if (next === -1) throw new Error(`deploy/registry.ts: the calls of ${pending.map((s) => s.name).join(', ')} form a cycle`);
    order.push(...pending.splice(next, 1));
  }
  return order;
}
