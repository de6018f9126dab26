import type { MessageSnapshot } from '@helpdesk/contracts';

/**
 * The citation rule of `useCount` (docs/adr/0015): a reply uses an article when its content contains
 * `[[article:art_…]]` or the article's help-center link (`…/help/<teamSlug>/articles/art_…`, with or
 * without the title slug after the id). A reply is a public message from an agent or the AI; customer
 * and system messages and internal notes are not. Each article counts once per message.
 */
const CITATION_RE = /\[\[article:(art_[A-Za-z0-9]{8,64})\]\]|\/help\/[a-z0-9-]{1,100}\/articles\/(art_[A-Za-z0-9]{8,64})(?![A-Za-z0-9])/g;

export function citedArticleIds(content: string): string[] {
  const ids = new Set<string>();
  for (const m of content.matchAll(CITATION_RE)) ids.add(m[1] ?? m[2]);
  return [...ids];
}

export const isReply = (m: Pick<MessageSnapshot, 'sender' | 'isInternal'>) => (m.sender === 'agent' || m.sender === 'ai') && !m.isInternal;

/** Every (article id → uses) the replies among `messages` cite. */
export function usesIn(messages: Pick<MessageSnapshot, 'sender' | 'isInternal' | 'content'>[]): Map<string, number> {
  const uses = new Map<string, number>();
  for (const m of messages) {
    if (!isReply(m)) continue;
    for (const id of citedArticleIds(m.content)) uses.set(id, (uses.get(id) ?? 0) + 1);
  }
  return uses;
}
