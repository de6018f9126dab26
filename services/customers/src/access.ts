import type { Response } from 'express';
import type { Permission } from '@helpdesk/contracts';
import { ApiError, ctxOf, requirePermission, type RequestContext } from '@helpdesk/kit';

/**
 * Defence in depth (the gateway checks the same): customers, groups and statuses are staff
 * resources, so a publishable key may neither read (`publishable_key_forbidden`) nor write
 * (`publishable_key_write`) them, and the key must carry the route's permission.
 */
export function readAccess(res: Response, permission: Permission = 'view_customers'): RequestContext {
  const ctx = ctxOf(res);
  if (ctx.keyType === 'publishable') {
    throw new ApiError('publishable_key_forbidden', 'Publishable keys cannot read customers; use a secret key.');
  }
  requirePermission(ctx, permission);
  return ctx;
}

export function writeAccess(res: Response, permission: Permission = 'manage_customers'): RequestContext {
  const ctx = ctxOf(res);
  if (ctx.keyType === 'publishable') {
    throw new ApiError('publishable_key_write', 'Publishable keys cannot create, update or delete; use a secret key.');
  }
  requirePermission(ctx, permission);
  return ctx;
}

/**
 * The internal endpoints answer another service acting for a request (ticketing forwards the
 * caller's token): no customer permission is required (creating a ticket needs `manage_tickets`,
 * not `manage_customers`), but a publishable key is still refused.
 */
export function internalAccess(res: Response, write: boolean): RequestContext {
  const ctx = ctxOf(res);
  if (ctx.keyType === 'publishable') {
    throw write
      ? new ApiError('publishable_key_write', 'Publishable keys cannot create customers.')
      : new ApiError('publishable_key_forbidden', 'Publishable keys cannot read customers.');
  }
  return ctx;
}
