/**
 * Permission keys and the six roles' permission sets. The spec names game_participation,
 * manage_settings, manage_members and "view/manage permissions per resource"; the full list is ours
 * (docs/adr/0003-permissions.md).
 */
export const PERMISSIONS = [
  'view_tickets', 'manage_tickets',
  'view_customers', 'manage_customers',
  'view_articles', 'manage_articles',
  'view_community', 'manage_community',
  'view_webhooks', 'manage_webhooks',
  'view_members', 'manage_members',
  'manage_settings',
  'view_analytics',
  'manage_automations',
  'view_audit_log',
  'manage_billing',
  'import_export',
  'use_ai',
  'game_participation',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const ROLES = ['owner', 'admin', 'manager', 'librarian', 'agent', 'spectator'] as const;
export type Role = (typeof ROLES)[number];

const all = [...PERMISSIONS];
const views: Permission[] = ['view_tickets', 'view_customers', 'view_articles', 'view_community', 'view_members'];

export const ROLE_PERMISSIONS: Record<Role, readonly Permission[]> = {
  owner: all,
  admin: all.filter((p) => p !== 'manage_billing'),
  manager: [
    ...views, 'manage_tickets', 'manage_customers', 'manage_articles', 'manage_community', 'view_webhooks',
    'view_analytics', 'manage_automations', 'view_audit_log', 'import_export', 'use_ai', 'game_participation',
  ],
  librarian: [...views, 'manage_articles', 'manage_community', 'use_ai', 'game_participation'],
  agent: [...views, 'manage_tickets', 'manage_customers', 'use_ai', 'game_participation'],
  spectator: [...views, 'view_analytics'],
};

/** The game title shown for each role (Member.roleDisplayName). */
export const ROLE_DISPLAY_NAMES: Record<Role, string> = {
  owner: 'Guild Master',
  admin: 'Champion',
  manager: 'Captain',
  librarian: 'Loremaster',
  agent: 'Adventurer',
  spectator: 'Scout',
};

/** What a publishable key may do: read the public, customer-facing data only. */
export const PUBLISHABLE_PERMISSIONS: readonly Permission[] = ['view_articles', 'view_community'];
