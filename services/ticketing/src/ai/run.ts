import type mongoose from 'mongoose';
import type { AiInput, AiResult } from '@helpdesk/contracts';
import { eventScopeOf, notFound, scoped, withOutbox, type RequestContext, type Scope } from '@helpdesk/kit';
import type { TicketingModels } from '../collections';
import { CHRONOLOGICAL, type MessageDoc } from '../tickets/messages/model';
import type { TicketDoc } from '../tickets/model';
import { keywords } from './local-provider';
import type { ArticleRefDoc } from './model';
import type { AiProvider, AiRequest, ArticleCandidate } from './provider';
import { aiSettingsOf } from './settings';

/** How many of the team's tags auto-tag chooses from, and how many articles suggest-reply reads. */
const KNOWN_TAGS_MAX = 200;
const ARTICLES_SCANNED_MAX = 500;
const ARTICLES_USED_MAX = 3;

export interface RunAiDeps {
  conn: mongoose.Connection;
  models: TicketingModels;
  aiProvider: AiProvider;
}

/** Published articles sharing at least two of the ticket's words, scored: title words count double, then tags and content. */
function rankArticles(articles: ArticleRefDoc[], query: string[]): ArticleCandidate[] {
  const wanted = new Set(query);
  if (!wanted.size) return [];
  return articles
    .map((a) => {
      const inTitle = new Set(keywords(a.title));
      const inBody = new Set(keywords(`${a.tags.join(' ')}\n${a.content}`));
      let score = 0;
      let matched = 0;
      for (const w of wanted) {
        score += (inTitle.has(w) ? 2 : 0) + (inBody.has(w) ? 1 : 0);
        if (inTitle.has(w) || inBody.has(w)) matched++;
      }
      return { a, score, matched };
    })
    // One shared word is chance ("times"); two or more is a subject.
    .filter((x) => x.matched >= 2)
    .sort((x, y) => y.score - x.score || x.a._id.localeCompare(y.a._id))
    .slice(0, ARTICLES_USED_MAX)
    .map(({ a }) => ({ id: a._id, title: a.title, content: a.content }));
}

/** The partition's ticket tags, most used first. */
async function knownTags(models: TicketingModels, scope: Scope): Promise<string[]> {
  const rows = await scoped(models, scope).tickets.aggregate<{ _id: string }>([
    { $match: { 'tags.0': { $exists: true } } },
    { $unwind: '$tags' },
    { $group: { _id: '$tags', n: { $sum: 1 } } },
    { $sort: { n: -1, _id: 1 } },
    { $limit: KNOWN_TAGS_MAX },
  ]);
  return rows.map((r) => r._id);
}

/** What a ticket's action may read: the ticket, its thread (internal notes only when the team allows it), and the tags or articles its action needs. */
async function ticketRequest(deps: RunAiDeps, ctx: RequestContext, input: AiInput, request: AiRequest): Promise<void> {
  const db = scoped(deps.models, ctx);
  const ticket = await db.tickets.findOne({ _id: input.ticketId }).lean<TicketDoc>();
  if (!ticket) throw notFound('ticket', input.ticketId);
  const [messages, settings] = await Promise.all([db.messages.find({ ticketId: ticket._id }).sort(CHRONOLOGICAL).lean<MessageDoc[]>(), aiSettingsOf(deps, ctx)]);
  // Internal notes never reach the provider unless the team allows it.
  const visible = settings?.includeInternalNotes ? messages : messages.filter((m) => !m.isInternal);
  request.ticket = { title: ticket.title, customerName: ticket.customerName ?? null, tags: ticket.tags ?? [] };
  request.thread = visible.map((m) => ({ sender: m.sender, content: m.content, isInternal: m.isInternal }));
  if (input.action === 'auto-tag') request.knownTags = await knownTags(deps.models, ctx);
  if (input.action === 'suggest-reply') {
    const published = await db.articleRefs.find({ status: 'published', deleted: false }).limit(ARTICLES_SCANNED_MAX).lean<ArticleRefDoc[]>();
    // What the customer asks: the title and the customer's messages.
    const asked = [ticket.title, ...visible.filter((m) => m.sender === 'customer').map((m) => m.content)].join('\n');
    request.articles = rankArticles(published, keywords(asked));
  }
}

/** `POST /ai` (docs/adr/0029): ticketing gathers what an action may read, the provider writes; suggest-reply's articles count as uses (`ai.reply_suggested`, after the provider answered). */
export async function runAiAction(deps: RunAiDeps, ctx: RequestContext, input: AiInput): Promise<AiResult> {
  const request: AiRequest = { action: input.action };
  if (input.action === 'improve') request.text = input.text;
  else await ticketRequest(deps, ctx, input, request);
  const result = await deps.aiProvider.run(request);
  if (input.action === 'suggest-reply' && result.articleIds?.length) {
    await withOutbox(deps.conn, eventScopeOf(ctx), async (_session, emit) => {
      emit({ type: 'ai.reply_suggested', data: { ticketId: input.ticketId!, articleIds: result.articleIds! } });
    });
  }
  return { object: 'ai_result', action: input.action, provider: deps.aiProvider.name, result };
}
