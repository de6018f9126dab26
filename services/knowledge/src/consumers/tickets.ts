import type mongoose from 'mongoose';
import { consumeOnce, type TypedEvent } from '@helpdesk/kit';
import { usesIn } from '../articles/citations';
import type { ArticleRules } from '../articles/rules';

/** The consumer name events are de-duplicated under (`processed_events`: `knowledge:<event id>`). */
export const CONSUMER = 'knowledge';

/**
 * `useCount`: each ticket reply that cites an article adds one use (the rule: ../articles/citations.ts).
 * A derived counter, like viewCount: increments commute, an unknown id is left alone, no article event
 * is published for it; each event is applied once (consumeOnce).
 */
export function ticketConsumers(conn: mongoose.Connection, articles: ArticleRules) {
  const apply = async (e: TypedEvent<'ticket.created'> | TypedEvent<'ticket.message_added'>, uses: Map<string, number>) => {
    if (!uses.size) return;
    await consumeOnce(conn, CONSUMER, e, (session) => articles.addUses(e, uses, session));
  };
  return {
    /** The messages a ticket is created with. */
    created: (e: TypedEvent<'ticket.created'>) => apply(e, usesIn(e.data.messages ?? [])),
    messageAdded: (e: TypedEvent<'ticket.message_added'>) => apply(e, usesIn([e.data.message])),
    /** A reply ticketing's AI suggested from articles (docs/adr/0029): one use of each. */
    replySuggested: async (e: TypedEvent<'ai.reply_suggested'>) => {
      await consumeOnce(conn, CONSUMER, e, (session) => articles.addUses(e, new Map(e.data.articleIds.map((id) => [id, 1])), session));
    },
  };
}
