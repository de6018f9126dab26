import type { Scope } from '@helpdesk/kit';
import { scoped } from '@helpdesk/kit';
import type { TicketingModels } from '../collections';

/** How many mails an hour one sender, and one partition in all, may send in (docs/adr/0063). */
export interface InboundMailLimits {
  perSenderPerHour: number;
  perTeamPerHour: number;
}

/** A careful default: a person writes a few mails an hour; a mail loop or a flood sends hundreds. */
export const DEFAULT_INBOUND_MAIL_LIMITS: InboundMailLimits = { perSenderPerHour: 30, perTeamPerHour: 1000 };

const WINDOW_MS = 3600_000;

/** Over a limit: which one, and in how many seconds its window ends. */
export interface InboundMailRefusal {
  limit: 'sender' | 'team';
  retryAfterS: number;
}

/**
 * Counts each inbound mail against its sender's and its partition's hourly window (fixed windows, in
 * ticketing's database so that replicas agree). The sender's count is taken first; a mail refused for
 * its sender does not use up the partition's allowance, so one flooding address never locks other
 * senders out.
 */
export function inboundMailLimiter(models: TicketingModels, limits: InboundMailLimits, now: () => number = Date.now) {
  async function take(scope: Scope, key: string, max: number, window: number): Promise<boolean> {
    const db = scoped(models, scope);
    const row = await db.inboundMailCounters
      .findOneAndUpdate({ _id: `${scope.teamId}:${scope.mode}:${key}:${window}` }, { $inc: { n: 1 }, $setOnInsert: { expiresAt: new Date(window + 2 * WINDOW_MS) } }, { upsert: true, returnDocument: 'after' })
      .lean<{ n: number }>();
    return (row?.n ?? 1) <= max;
  }
  return {
    /** Counts one mail from `sender` into the partition; a refusal when a limit is reached. */
    async take(scope: Scope, sender: string): Promise<InboundMailRefusal | null> {
      const t = now();
      const window = t - (t % WINDOW_MS);
      const retryAfterS = Math.max(1, Math.ceil((window + WINDOW_MS - t) / 1000));
      if (!(await take(scope, `sender:${sender.toLowerCase()}`, limits.perSenderPerHour, window))) return { limit: 'sender', retryAfterS };
      if (!(await take(scope, 'team', limits.perTeamPerHour, window))) return { limit: 'team', retryAfterS };
      return null;
    },
  };
}

export type InboundMailLimiter = ReturnType<typeof inboundMailLimiter>;

/** What a refused sender is told (SMTP's text and the webhook's message alike). */
export const refusalMessage = (r: InboundMailRefusal, sender: string): string =>
  r.limit === 'sender'
    ? `Too many mails from ${sender || 'this sender'} this hour; try again in ${r.retryAfterS} s.`
    : `This team has received too many mails this hour; try again in ${r.retryAfterS} s.`;
