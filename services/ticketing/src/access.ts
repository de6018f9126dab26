import type { Response } from 'express';
import { ApiError, ctxOf, requirePermission, type RequestContext } from '@helpdesk/kit';

/**
 * Defence in depth (the gateway checks the same): tickets are a staff resource, so a publishable key
 * may neither read (`publishable_key_forbidden`) nor write (`publishable_key_write`) them, and the key
 * must carry `view_tickets` / `manage_tickets`.
 */
export function readAccess(res: Response): RequestContext {
  const ctx = ctxOf(res);
  if (ctx.keyType === 'publishable') {
    throw new ApiError('publishable_key_forbidden', 'Publishable keys cannot read tickets; use a secret key.');
  }
  requirePermission(ctx, 'view_tickets');
  return ctx;
}

export function writeAccess(res: Response): RequestContext {
  const ctx = ctxOf(res);
  if (ctx.keyType === 'publishable') {
    throw new ApiError('publishable_key_write', 'Publishable keys cannot create, update or delete; use a secret key.');
  }
  requirePermission(ctx, 'manage_tickets');
  return ctx;
}
