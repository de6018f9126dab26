import type { Permission } from '@helpdesk/contracts';
import { ApiError, type RequestContext } from '@helpdesk/kit';

/** The permission to read each entity type a cross-service operation can cover. */
export const VIEW_PERMISSION = {
  tickets: 'view_tickets',
  customers: 'view_customers',
  articles: 'view_articles',
  community_posts: 'view_community',
} as const satisfies Record<string, Permission>;
export const MANAGE_PERMISSION = {
  tickets: 'manage_tickets',
  customers: 'manage_customers',
  articles: 'manage_articles',
} as const satisfies Record<string, Permission>;

/** 403 `insufficient_permissions` naming every permission the key lacks among `needed`. */
export function requirePermissions(ctx: Pick<RequestContext, 'permissions'>, needed: readonly Permission[]): void {
  const missing = [...new Set(needed)].filter((p) => !ctx.permissions.includes(p));
  if (missing.length) throw new ApiError('insufficient_permissions', `This API key lacks the permission${missing.length > 1 ? 's' : ''} ${missing.join(', ')}.`);
}
