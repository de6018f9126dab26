import { CUSTOMERS_BULK_INTERNAL, KNOWLEDGE_BULK_INTERNAL, TICKETING_BULK_INTERNAL } from './bulk-internal';
import { COMMUNITY } from './community';
import { NOTIFICATIONS } from './notifications';
import { CUSTOMERS, CUSTOMERS_INTERNAL } from './customers';
import { DATAOPS } from './dataops';
import { SEARCH_INTERNAL } from './search-internal';
import { VIEWS, VIEWS_INTERNAL } from './views';
import { GAME } from './game';
import { GATEWAY } from './gateway';
import { KNOWLEDGE, KNOWLEDGE_INTERNAL } from './knowledge';
import type { OperationDef } from './operation';
import { TICKETING } from './ticketing';
import { TICKETING_AUTOMATIONS } from './ticketing-automations';
import { WEBHOOKS } from './webhooks';
import { WORKSPACE, WORKSPACE_INTERNAL } from './workspace';
import { SESSIONS, WORKSPACE_SESSIONS, WORKSPACE_SESSIONS_INTERNAL } from './sessions';
import { INBOUND_EMAIL, INBOUND_EMAIL_INTERNAL } from './inbound-email';
import { CUSTOMERS_WIDGET_INTERNAL, WIDGET, WIDGET_CONFIG, WIDGET_CONFIRMATION, WIDGET_INTERNAL, WIDGET_STREAM } from './widget';

export * from './operation';
export * from './access';
export * from './routes';
export * from './gateway';
export * from './ticketing';
export * from './ticketing-automations';
export * from './customers';
export * from './webhooks';
export * from './workspace';
export * from './knowledge';
export * from './community';
export * from './notifications';
export * from './dataops';
export * from './search-internal';
export * from './views';
export * from './game';
export * from './bulk-internal';
export * from './inbound-email';
export * from './widget';
export * from './sessions';

/**
 * The API manifest: every public operation, by operation id. One file per service; a new service adds
 * its file above and one line here. The gateway's routes, each service's handler registration, the
 * OpenAPI document and the typed client are all derived from it.
 */
export const PUBLIC_OPERATIONS = { ...GATEWAY, ...TICKETING, ...TICKETING_AUTOMATIONS, ...CUSTOMERS, ...WEBHOOKS, ...WORKSPACE, ...KNOWLEDGE, ...COMMUNITY, ...NOTIFICATIONS, ...DATAOPS, ...VIEWS, ...GAME, ...WIDGET_CONFIG, ...WIDGET, ...WIDGET_CONFIRMATION, ...WIDGET_STREAM, ...INBOUND_EMAIL, ...SESSIONS, ...WORKSPACE_SESSIONS } satisfies Record<string, OperationDef>;

/** Service-to-service operations (never routed by the gateway, never in the public document). */
export const INTERNAL_OPERATIONS = { ...CUSTOMERS_INTERNAL, ...KNOWLEDGE_INTERNAL, ...WORKSPACE_INTERNAL, ...TICKETING_BULK_INTERNAL, ...CUSTOMERS_BULK_INTERNAL, ...KNOWLEDGE_BULK_INTERNAL, ...SEARCH_INTERNAL, ...VIEWS_INTERNAL, ...WIDGET_INTERNAL, ...CUSTOMERS_WIDGET_INTERNAL, ...INBOUND_EMAIL_INTERNAL, ...WORKSPACE_SESSIONS_INTERNAL } satisfies Record<string, OperationDef>;

export type PublicOperationId = keyof typeof PUBLIC_OPERATIONS;
