/**
 * One RabbitMQ user per service, allowed exactly what the kit's bus does for that service
 * (shared/kit/src/bus/amqp-bus.ts; docs/adr/0060), and allowed to publish only the event types the
 * service owns. Everything deploy writes about broker users is generated from here by
 * `npx tsx deploy/generate.ts`: compose's and the local overlay's definitions file, and the production
 * overlay's Messaging Topology Operator objects (deploy/test/rabbitmq.test.ts fails when one is stale).
 *
 * The names the kit uses (AMQP_EXCHANGE and AMQP_QUEUE_PREFIX unset, as deployed):
 *   - topic exchange `helpdesk.events`, routing key = the event type; its dead-letter exchange
 *     `helpdesk.events.dlx` (direct);
 *   - per service: queues `helpdesk.<service>`, `helpdesk.<service>.retry`, `helpdesk.<service>.dead`;
 *     retry and dead-letter copies are sent through the default exchange (`amq.default`).
 * The user of a service is the service's registry name (`ticketing`), the value the AMQP `user_id`
 * property of its messages carries.
 */
import { createHash } from 'node:crypto';
import { EVENTS_EXCHANGE, EVENT_TYPES } from '@helpdesk/contracts';
import { AGGREGATE_OWNERS } from '@helpdesk/kit';
import { PROCESSES, amqpSecretName } from '../registry';

export const EXCHANGE = EVENTS_EXCHANGE;
export const DEAD_LETTER_EXCHANGE = `${EXCHANGE}.dlx`;
/** The name permissions give the default exchange (`sendToQueue`). */
export const DEFAULT_EXCHANGE = 'amq.default';
export const QUEUE_PREFIX = 'helpdesk';
export const VHOST = '/';
/** The operators' user (management UI, `dead-letters` of the operator CLI): every permission. */
export const ADMIN_USER = 'helpdesk';
/**
 * The development password of every user in compose and the local overlay (docs/adr/0005's
 * RABBITMQ_PASSWORD default). Production users take theirs from Secrets (never in this repository).
 */
export const DEV_PASSWORD = 'helpdesk-dev-password';

/**
 * Which service owns (publishes) each event type, by the type's first word: the catalog
 * (shared/contracts/src/events.ts and catalog/*.ts) names types `<aggregate>.<what happened>` and every
 * aggregate belongs to one service. One table, the kit's (shared/kit/src/bus/ownership.ts), which its
 * consumers check each event's publishing user against; deploy/test/rabbitmq.test.ts checks each owner
 * against the code: the one service whose source emits the type.
 */
export { AGGREGATE_OWNERS };

/** The service that publishes `type` (throws for a type whose aggregate has no owner here). */
export function eventOwner(type: string): string {
  const owner = AGGREGATE_OWNERS[type.split('.')[0]];
  if (!owner) throw new Error(`event type ${type}: its aggregate ${type.split('.')[0]} has no owner in AGGREGATE_OWNERS (shared/kit/src/bus/ownership.ts)`);
  return owner;
}

/** The catalog's types `service` publishes, sorted. */
export const ownedEventTypes = (service: string): string[] => EVENT_TYPES.filter((t) => eventOwner(t) === service).sort();

/** The kit's queue names of one service (AmqpBus.queueNames with the default prefix). */
export function queueNames(service: string): { main: string; retry: string; dead: string } {
  const main = `${QUEUE_PREFIX}.${service}`;
  return { main, retry: `${main}.retry`, dead: `${main}.dead` };
}

const escape = (name: string): string => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const anyOf = (names: string[]): string => `^(${names.map(escape).join('|')})$`;
/** A regular expression no routing key matches (a service that owns no event type). */
export const MATCHES_NOTHING = '^(?!)$';

export interface BrokerUser {
  /** The registry name of the service, and the RabbitMQ user name. */
  name: string;
  /** Resource permissions on the vhost (regular expressions over exchange and queue names). */
  configure: string;
  write: string;
  read: string;
  /** Topic permissions on the events exchange (regular expressions over routing keys). */
  topicWrite: string;
  topicRead: string;
  /** The routing keys it may publish (its own event types). */
  publishes: string[];
}

/**
 * The user of a service, holding what its bus needs and nothing more:
 *   - configure: declare the two exchanges (assertExchange) and its own three queues;
 *   - write: publish to the events exchange (its own types only: topicWrite) and to the default
 *     exchange (retry and dead-letter copies), bind its own queues; and the dead-letter exchange, which
 *     RabbitMQ requires of a queue declared with it as `x-dead-letter-exchange`;
 *   - read: consume and read its own queues, bind them from the two exchanges (any event: topicRead).
 */
export function brokerUser(service: string): BrokerUser {
  const { main, retry, dead } = queueNames(service);
  const publishes = ownedEventTypes(service);
  return {
    name: service,
    configure: anyOf([EXCHANGE, DEAD_LETTER_EXCHANGE, main, retry, dead]),
    write: anyOf([EXCHANGE, DEAD_LETTER_EXCHANGE, DEFAULT_EXCHANGE, main, retry, dead]),
    read: anyOf([EXCHANGE, DEAD_LETTER_EXCHANGE, main, retry, dead]),
    topicWrite: publishes.length ? anyOf(publishes) : MATCHES_NOTHING,
    topicRead: '.*',
    publishes,
  };
}

/** Every process that connects to RabbitMQ (registry `stores` has `amqp`), in registry order. */
export const brokerUsers = (): BrokerUser[] => PROCESSES.filter((p) => p.stores.includes('amqp')).map((p) => brokerUser(p.name));

/**
 * RabbitMQ's `rabbit_password_hashing_sha256`: base64(salt ‖ sha256(salt ‖ password)), 4-byte salt.
 * The salt is derived from the user name so that the generated file is the same on every run.
 */
export function passwordHash(user: string, password: string): string {
  const salt = createHash('sha256').update(`helpdesk-rabbitmq-salt:${user}`).digest().subarray(0, 4);
  return Buffer.concat([salt, createHash('sha256').update(Buffer.concat([salt, Buffer.from(password, 'utf8')])).digest()]).toString('base64');
}

/** RabbitMQ definitions (users, the vhost, permissions, topic permissions) for compose and the local overlay. */
export function definitions(password = DEV_PASSWORD): Record<string, unknown> {
  const users = brokerUsers();
  const user = (name: string, tags: string[]) => ({ name, password_hash: passwordHash(name, password), hashing_algorithm: 'rabbit_password_hashing_sha256', tags });
  return {
    users: [user(ADMIN_USER, ['administrator']), ...users.map((u) => user(u.name, []))],
    vhosts: [{ name: VHOST }],
    permissions: [
      { user: ADMIN_USER, vhost: VHOST, configure: '.*', write: '.*', read: '.*' },
      ...users.map((u) => ({ user: u.name, vhost: VHOST, configure: u.configure, write: u.write, read: u.read })),
    ],
    topic_permissions: users.map((u) => ({ user: u.name, vhost: VHOST, exchange: EXCHANGE, write: u.topicWrite, read: u.topicRead })),
  };
}

/** The Secret (namespace helpdesk-infra) a production User's credentials are imported from: keys `username`, `password`. */
export const credentialsSecretName = (service: string): string => `${amqpSecretName(service)}-credentials`;

/**
 * The production overlay's Messaging Topology Operator objects (namespace helpdesk-infra, beside the
 * RabbitmqCluster `rabbitmq`): a User per service (credentials imported from its Secret), its
 * Permission and its TopicPermission on the events exchange.
 */
export function topologyOperatorObjects(cluster = 'rabbitmq'): Record<string, unknown>[] {
  const ref = { name: cluster };
  return brokerUsers().flatMap((u) => [
    {
      apiVersion: 'rabbitmq.com/v1beta1',
      kind: 'User',
      metadata: { name: `helpdesk-${u.name}` },
      spec: { tags: [], rabbitmqClusterReference: ref, importCredentialsSecret: { name: credentialsSecretName(u.name) } },
    },
    {
      apiVersion: 'rabbitmq.com/v1beta1',
      kind: 'Permission',
      metadata: { name: `helpdesk-${u.name}` },
      spec: { vhost: VHOST, user: u.name, permissions: { configure: u.configure, write: u.write, read: u.read }, rabbitmqClusterReference: ref },
    },
    {
      apiVersion: 'rabbitmq.com/v1beta1',
      kind: 'TopicPermission',
      metadata: { name: `helpdesk-${u.name}` },
      spec: { vhost: VHOST, user: u.name, permissions: { exchange: EXCHANGE, write: u.topicWrite, read: u.topicRead }, rabbitmqClusterReference: ref },
    },
  ]);
}
