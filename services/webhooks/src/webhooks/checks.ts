import { unreadablePattern } from '@helpdesk/contracts';
import { ApiError, conflict, duplicateKeyOf, parameterInvalid, type RequestContext } from '@helpdesk/kit';
import { urlProblem } from '../delivery/safety';
import type { WebhookSettings } from '../settings';
import type { ReadAs } from './model';

export const isDuplicateKey = (err: unknown) => duplicateKeyOf(err) !== null;
export const duplicate = () => conflict('A webhook with this url and the same events already exists in this team and partition.', 'url');

/**
 * Whom a webhook will read as once `ctx`'s key chooses its url or events (docs/adr/0066): that key,
 * which must be able to read something of every pattern (403 `insufficient_permissions`, param
 * `events`); patterns only narrow what it may read, never widen it.
 */
export function readAsOf(ctx: RequestContext, events: readonly string[]): ReadAs {
  const unreadable = unreadablePattern(events, ctx);
  if (unreadable !== null) throw new ApiError('insufficient_permissions', `${unreadable} A webhook delivers only what the key that sets it up may read.`, 'events');
  return { keyId: ctx.keyId, memberId: ctx.memberId, permissions: [...ctx.permissions] };
}

/** The URL as stored: checked against the deployment's rules, then normalised by the URL parser. */
export function checkedUrl(settings: Pick<WebhookSettings, 'allowLoopback'>, raw: string): string {
  const problem = urlProblem(raw, { allowLoopback: settings.allowLoopback });
  if (problem) throw parameterInvalid('url', `Invalid url: ${problem}.`);
  return new URL(raw).href;
}
