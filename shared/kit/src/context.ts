import type { Response } from 'express';
import type { Actor, EventEnvelope, InternalClaims, Partition } from '@helpdesk/contracts';

/** What a service knows about the caller: the verified internal-token claims. */
export type RequestContext = InternalClaims;

/** The tenancy scope every stored document and every query carries. */
export interface Scope {
  teamId: string;
  mode: Partition;
}

export function ctxOf(res: Response): RequestContext {
  const ctx = res.locals.ctx as RequestContext | undefined;
  if (!ctx) throw new Error('request context missing: route mounted outside the internal-auth middleware');
  return ctx;
}

export const scopeOf = (ctx: Pick<RequestContext, 'teamId' | 'mode'>): Scope => ({ teamId: ctx.teamId, mode: ctx.mode });

/** The caller as events name it: the key's member (and the console session it acted through, docs/adr/0068), else the key. */
export function actorOf(ctx: RequestContext): Actor {
  if (!ctx.memberId) return { type: 'key', id: ctx.keyId };
  return ctx.keyType === 'session' ? { type: 'member', id: ctx.memberId, sessionId: ctx.keyId } : { type: 'member', id: ctx.memberId };
}

/**
 * Who events are attributed to, in which team and partition, for which request: a request's caller,
 * or, for events a consumer emits in reaction to an event, that event's own actor and request.
 */
export function eventScopeOf(source: RequestContext | Pick<EventEnvelope, 'teamId' | 'mode' | 'requestId' | 'actor'>): {
  teamId: string;
  mode: Partition;
  requestId: string | null;
  actor: Actor;
} {
  return { ...scopeOf(source), requestId: source.requestId, actor: 'actor' in source ? source.actor : actorOf(source) };
}
