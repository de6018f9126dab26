import type { Response } from 'express';
import type { Actor, EventEnvelope, InternalClaims } from '@helpdesk/contracts';
import type { Permission } from '@helpdesk/contracts';
import { ApiError } from './errors';

/** What a service knows about the caller: the verified internal-token claims. */
export type RequestContext = InternalClaims;

/** The tenancy scope every stored document and every query carries. */
export interface Scope {
  teamId: string;
  mode: 'test' | 'live';
}

export function ctxOf(res: Response): RequestContext {
  const ctx = res.locals.ctx as RequestContext | undefined;
  if (!ctx) throw new Error('request context missing: route mounted outside the internal-auth middleware');
  return ctx;
}

export const scopeOf = (ctx: Pick<RequestContext, 'teamId' | 'mode'>): Scope => ({ teamId: ctx.teamId, mode: ctx.mode });

export function actorOf(ctx: RequestContext): Actor {
  return ctx.memberId ? { type: 'member', id: ctx.memberId } : { type: 'key', id: ctx.keyId };
}

/** Defence in depth: the gateway checks permissions too, but a service never relies on it alone. */
export function requirePermission(ctx: RequestContext, permission: Permission): void {
  if (!ctx.permissions.includes(permission)) {
    throw new ApiError('insufficient_permissions', `This key lacks the permission ${permission}.`);
  }
}

/**
 * Who events are attributed to, in which team and partition, for which request: a request's caller,
 * or, for events a consumer emits in reaction to an event, that event's own actor and request.
 */
export function eventScopeOf(source: RequestContext | Pick<EventEnvelope, 'teamId' | 'mode' | 'requestId' | 'actor'>): {
  teamId: string;
  mode: 'test' | 'live';
  requestId: string | null;
  actor: Actor;
} {
  return { ...scopeOf(source), requestId: source.requestId, actor: 'actor' in source ? source.actor : actorOf(source) };
}

/**
 * Defence in depth for a staff resource (the gateway checks the same): a publishable key may neither
 * read it (`publishable_key_forbidden`) nor write it (`publishable_key_write`), and the key must
 * carry `permission`. `what` names the resource in the message ("tickets").
 */
export function staffAccess(res: Response, access: 'read' | 'write', permission: Permission, what: string): RequestContext {
  const ctx = ctxOf(res);
  if (ctx.keyType === 'publishable') {
    throw access === 'read'
      ? new ApiError('publishable_key_forbidden', `Publishable keys cannot read ${what}; use a secret key.`)
      : new ApiError('publishable_key_write', 'Publishable keys cannot create, update or delete; use a secret key.');
  }
  requirePermission(ctx, permission);
  return ctx;
}
