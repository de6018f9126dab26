import { COMMUNITY_SEARCH_INTERNAL, COMMUNITY } from './community';
import { CUSTOMERS, CUSTOMERS_BULK_INTERNAL, CUSTOMERS_INTERNAL, CUSTOMERS_SEARCH_INTERNAL, CUSTOMERS_WIDGET_INTERNAL } from './customers';
import { DATAOPS } from './dataops';
import { GAME } from './game';
import { GATEWAY, SESSIONS } from './gateway';
import { KNOWLEDGE, KNOWLEDGE_BULK_INTERNAL, KNOWLEDGE_INTERNAL, KNOWLEDGE_SEARCH_INTERNAL } from './knowledge';
import { NOTIFICATIONS, WIDGET_STREAM } from './notifications';
import type { OperationDef } from './operation';
import {
  INBOUND_EMAIL,
  INBOUND_EMAIL_INTERNAL,
  TICKETING,
  TICKETING_AUTOMATIONS,
  TICKETING_BULK_INTERNAL,
  TICKETING_SEARCH_INTERNAL,
  WIDGET,
  WIDGET_CONFIRMATION,
  WIDGET_INTERNAL,
} from './ticketing';
import { WEBHOOKS } from './webhooks';
import { VIEWS, VIEWS_INTERNAL, WIDGET_CONFIG, WORKSPACE, WORKSPACE_INTERNAL, WORKSPACE_SESSIONS, WORKSPACE_SESSIONS_INTERNAL } from './workspace';

export * from './operation';
export * from './access';
export * from './routes';
export * from './gateway';
export * from './ticketing';
export * from './customers';
export * from './webhooks';
export * from './workspace';
export * from './knowledge';
export * from './community';
export * from './notifications';
export * from './dataops';
export * from './game';

/**
 * The API manifest: every public operation, by operation id. One folder per service (`<service>/`, one
 * file per resource, its index.ts naming what it exports); a new service adds its folder and its lines
 * here. The gateway's routes, each service's handler registration, the OpenAPI document and the typed
 * client are all derived from it. The order below is the OpenAPI document's order of paths and tags.
 */
export const PUBLIC_OPERATIONS = { ...GATEWAY, ...TICKETING, ...TICKETING_AUTOMATIONS, ...CUSTOMERS, ...WEBHOOKS, ...WORKSPACE, ...KNOWLEDGE, ...COMMUNITY, ...NOTIFICATIONS, ...DATAOPS, ...VIEWS, ...GAME, ...WIDGET_CONFIG, ...WIDGET, ...WIDGET_CONFIRMATION, ...WIDGET_STREAM, ...INBOUND_EMAIL, ...SESSIONS, ...WORKSPACE_SESSIONS } satisfies Record<string, OperationDef>;

/** Service-to-service operations (never routed by the gateway, never in the public document). */
export const INTERNAL_OPERATIONS = { ...CUSTOMERS_INTERNAL, ...KNOWLEDGE_INTERNAL, ...WORKSPACE_INTERNAL, ...TICKETING_BULK_INTERNAL, ...CUSTOMERS_BULK_INTERNAL, ...KNOWLEDGE_BULK_INTERNAL, ...TICKETING_SEARCH_INTERNAL, ...CUSTOMERS_SEARCH_INTERNAL, ...KNOWLEDGE_SEARCH_INTERNAL, ...COMMUNITY_SEARCH_INTERNAL, ...VIEWS_INTERNAL, ...WIDGET_INTERNAL, ...CUSTOMERS_WIDGET_INTERNAL, ...INBOUND_EMAIL_INTERNAL, ...WORKSPACE_SESSIONS_INTERNAL } satisfies Record<string, OperationDef>;

export type PublicOperationId = keyof typeof PUBLIC_OPERATIONS;
