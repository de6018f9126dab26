import type { Response } from 'express';
import { ApiError, ctxOf, requirePermission, type RequestContext } from '@helpdesk/kit';

/**
 * Defence in depth (the gateway checks the same): webhooks are a staff resource, so a publishable key
 * may neither read (`publishable_key_forbidden`) nor write (`publishable_key_write`) them, and the key
 * must carry `view_webhooks` / `manage_webhooks`.
 */
export function readAccess(res: Response): RequestContext {
  const ctx = ctxOf(res);
  if (ctx.keyType === 'publishable') {
    throw new ApiError('publishable_key_forbidden', 'Publishable keys cannot read webhooks; use a secret key.');
  }
  requirePermission(ctx, 'view_webhooks');
  return ctx;
}

export function writeAccess(res: Response): RequestContext {
  const ctx = ctxOf(res);
  if (ctx.keyType === 'publishable') {
    throw new ApiError('publishable_key_write', 'Publishable keys cannot create, update or delete; use a secret key.');
  }
  requirePermission(ctx, 'manage_webhooks');
  return ctx;
}
