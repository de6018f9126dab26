import { API_KEY_EVENTS_INTERNAL } from './api-key-events';
import { AUDIT_LOG } from './audit-log';
import { BILLING, BILLING_INTERNAL } from './billing';
import { CUSTOM_FIELDS } from './custom-fields';
import { INVITES, INVITES_INTERNAL } from './invites';
import { MEMBERS, MEMBERS_INTERNAL } from './members';
import { SETTINGS } from './settings';

/**
 * The workspace service's operations, one file per resource: members, invites, settings, custom fields,
 * audit log, billing, saved views, sessions (docs/adr/0012 members and roles, 0013 invites and keys,
 * 0014 settings). Everything here is per team: a test key and a live key of one team see the same
 * members and settings.
 */
export { isTimeZone, MEMBER_EMAIL_MAX } from './common';
export * from './members';
export * from './invites';
export * from './settings';
export * from './custom-fields';
export * from './audit-log';
export * from './billing';
export * from './api-key-events';
export * from './views';
export * from './sessions';
export * from './widget-config';

export const WORKSPACE = { ...MEMBERS, ...INVITES, ...SETTINGS, ...CUSTOM_FIELDS, ...AUDIT_LOG, ...BILLING };
export const WORKSPACE_INTERNAL = { ...MEMBERS_INTERNAL, ...INVITES_INTERNAL, ...BILLING_INTERNAL, ...API_KEY_EVENTS_INTERNAL };
