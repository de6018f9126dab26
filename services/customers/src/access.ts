import type { Response } from 'express';
import type { Permission } from '@helpdesk/contracts';
import { ApiError, ctxOf, staffAccess, type RequestContext } from '@helpdesk/kit';

/** Customers, groups and statuses are staff resources (kit's staffAccess: publishable keys refused, then the permission). */
export const readAccess = (res: Response, permission: Permission = 'view_customers'): RequestContext =>
  staffAccess(res, 'read', permission, 'customers');
export const writeAccess = (res: Response, permission: Permission = 'manage_customers'): RequestContext =>
  staffAccess(res, 'write', permission, 'customers');

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
