import type { SearchHits } from '@helpdesk/contracts';
import { escapeRegex, searchWords, snippetOf } from '@helpdesk/kit';
import type { ScopedHandles } from '@helpdesk/kit';
import type { TicketingModels } from '../collections';
import { CHRONOLOGICAL, type MessageDoc } from '../tickets/messages/model';
import type { TicketDoc } from '../tickets/model';

/**
 * Search finds a ticket's words in its lowercased search text (the customer's name and every message);
 * the snippet a person reads keeps the text as it was written. For each hit with a snippet, the
 * snippet is cut again, by the same rule (kit's snippetOf), from the first text that holds one of the
 * words, in the search text's order: the customer's name, then the messages, oldest first. A snippet
 * no longer crosses from one message into the next.
 */
export async function inOriginalCase(db: Pick<ScopedHandles<TicketingModels>, 'tickets' | 'messages'>, q: string, found: SearchHits): Promise<SearchHits> {
  const ids = found.hits.filter((h) => h.snippet !== null).map((h) => h.id);
  const words = searchWords(q);
  if (!ids.length || !words.length) return found;
  const anyWord = { $regex: words.map(escapeRegex).join('|'), $options: 'i' };
  const [tickets, messages] = await Promise.all([
    db.tickets.find({ _id: { $in: ids } }, { customerName: 1 }).lean<Pick<TicketDoc, '_id' | 'customerName'>[]>(),
    db.messages.find({ ticketId: { $in: ids }, content: anyWord }, { ticketId: 1, content: 1 }).sort(CHRONOLOGICAL).lean<Pick<MessageDoc, 'ticketId' | 'content'>[]>(),
  ]);
  const texts = new Map<string, string[]>(tickets.map((t) => [t._id, t.customerName ? [t.customerName] : []]));
  for (const m of messages) texts.get(m.ticketId)?.push(m.content);
  const cut = (id: string, lowered: string) => {
    for (const text of texts.get(id) ?? []) {
      const snippet = snippetOf(text, words);
      if (snippet !== null) return snippet;
    }
    return lowered; // nothing found as written (it cannot be, unless a message changed meanwhile): keep what search found
  };
  return { ...found, hits: found.hits.map((h) => (h.snippet === null ? h : { ...h, snippet: cut(h.id, h.snippet) })) };
}
