/**
 * Only an event's owner may publish it (issue 30, docs/adr/0060).
 *
 * Each event type belongs to one service, by the type's first word (`ticket.created` → ticketing).
 * deploy/rabbitmq/topology.ts generates the broker users' topic permissions from the same table
 * (shared/kit/test/bus/ownership.test.ts fails when the two differ).
 *
 * On RabbitMQ every message the kit publishes carries the AMQP `user_id` property = the connection's
 * user, which the broker validates (a message claiming another user is refused). A consumer maps the
 * publishing user to a service and refuses (dead-letters, never handles) an event its service does not
 * own:
 *   - a user named after a service (`ticketing`, the deployed users), or ending in `-<service>`
 *     (`helpdesk-ticketing`, `staging-ticketing`), is that service's user: it may publish that
 *     service's event types only;
 *   - any other user (`guest`, an operator's user) is trusted only when it is the consumer's own user:
 *     every process connects as the same user (`npm start`, local runs, tests), so the broker cannot
 *     tell services apart and nothing is gained by refusing. With per-service users another user's
 *     event is refused;
 *   - a message without `user_id` (published by something other than the kit) is refused when the
 *     consumer runs as a service's user, accepted when it runs as a shared user (same reason).
 *
 * Copies the kit makes of a message (retry, dead letter, an operator's replay) are published by
 * another user than the original publisher: they carry the original publisher in the
 * `x-helpdesk-publisher` header, believed only when the copy's own `user_id` is the consumer's own
 * user (its retry and dead-letter copies) or an operator user (`helpdesk`, deploy/rabbitmq's
 * ADMIN_USER: `dead-letters replay`). A service's user may write into its own queues only, so the
 * header cannot be forged by another service.
 */

/** The service that owns (publishes) each event type's aggregate (the type's first word). */
export const AGGREGATE_OWNERS: Readonly<Record<string, string>> = {
  ticket: 'ticketing',
  sla: 'ticketing',
  sla_rule: 'ticketing',
  inbound_email: 'ticketing',
  automation: 'ticketing',
  ai_settings: 'ticketing',
  ai: 'ticketing',
  customer: 'customers',
  customer_group: 'customers',
  customer_status: 'customers',
  webhook: 'webhooks',
  // api_key.*: the gateway owns keys but has no outbox; workspace emits their events (its internal route).
  api_key: 'workspace',
  member: 'workspace',
  invite: 'workspace',
  settings: 'workspace',
  feature_flags: 'workspace',
  ticket_status: 'workspace',
  business_hours: 'workspace',
  widget_settings: 'workspace',
  custom_field: 'workspace',
  billing: 'workspace',
  saved_view: 'workspace',
  // The console's sign-in links and sessions (docs/adr/0068).
  sign_in_link: 'workspace',
  session: 'workspace',
  article: 'knowledge',
  category: 'knowledge',
  community: 'community',
  notification: 'notifications',
  game: 'game',
};

/** Every service that connects to the broker (deploy/registry.ts), including those that own no event type. */
export const BUS_SERVICES: readonly string[] = ['ticketing', 'customers', 'webhooks', 'knowledge', 'workspace', 'community', 'notifications', 'dataops', 'game'];

/** The operators' broker user (deploy/rabbitmq/topology.ts ADMIN_USER): its replays keep the original publisher. */
export const DEFAULT_OPERATOR_USERS: readonly string[] = ['helpdesk'];

/** Header of a copy (retry, dead letter, replay): the user who published the original. */
export const PUBLISHER_HEADER = 'x-helpdesk-publisher';

/** The service that publishes `type`, or null for a type whose aggregate has no owner. */
export function eventOwner(type: string): string | null {
  return AGGREGATE_OWNERS[type.split('.')[0]] ?? null;
}

/** The service whose broker user `user` is (`ticketing`, `<anything>-ticketing`), or null (a shared or operator user). */
export function serviceOfUser(user: string | undefined | null): string | null {
  if (!user) return null;
  for (const service of BUS_SERVICES) if (user === service || user.endsWith(`-${service}`)) return service;
  return null;
}

/** The user of an AMQP URL (amqplib's default `guest` when it names none). */
export function amqpUser(url: string): string {
  try {
    return decodeURIComponent(new URL(url).username) || 'guest';
  } catch {
    return 'guest';
  }
}

export interface PublisherCheck {
  /** The consumer's own broker user. */
  ownUser: string;
  /** Users whose copies keep the original publisher (operators' replays). */
  operatorUsers?: readonly string[];
}

/**
 * Who published a message: its `user_id`, or for a copy made by the consumer itself or an operator,
 * the original publisher it carries. Undefined: no user_id at all.
 */
export function effectivePublisher(userId: string | undefined, headers: Record<string, unknown>, check: PublisherCheck): string | undefined {
  const carried = headers[PUBLISHER_HEADER];
  const trustedCopier = userId !== undefined && (userId === check.ownUser || (check.operatorUsers ?? DEFAULT_OPERATOR_USERS).includes(userId));
  if (trustedCopier && typeof carried === 'string' && carried) return carried;
  return userId;
}

/** Why `publisher` may not publish an event of `type` (null: it may). */
export function ownershipRefusal(type: string, publisher: string | undefined, check: PublisherCheck): string | null {
  const owner = eventOwner(type);
  if (!owner) return `not-owner: event type ${type} has no owning service`;
  if (publisher === undefined) {
    return serviceOfUser(check.ownUser)
      ? `not-owner: ${type} carries no user_id (its owner ${owner} publishes with one)`
      : null;
  }
  const service = serviceOfUser(publisher);
  if (service) return service === owner ? null : `not-owner: ${type} is owned by ${owner}, published by user ${publisher} (service ${service})`;
  if (publisher === check.ownUser) return null;
  return `not-owner: ${type} is owned by ${owner}, published by user ${publisher} (not a service's user)`;
}

/** In-process bus: why service `publisher` may not publish `type` (null: it may, or no publisher was named). */
export function inProcessOwnershipRefusal(type: string, publisher: string | undefined): string | null {
  if (publisher === undefined) return null;
  const owner = eventOwner(type);
  if (!owner) return `not-owner: event type ${type} has no owning service`;
  return owner === publisher ? null : `not-owner: ${type} is owned by ${owner}, published by service ${publisher}`;
}
