import type mongoose from 'mongoose';
import type { AiInput, AiResult, AiSettings, ArticleSnapshot, EventEnvelope } from '@helpdesk/contracts';
import { changeSet, eventScopeOf, notFound, scoped, withOutbox, type RequestContext, type Scope } from '@helpdesk/kit';
import type { TicketingModels } from '../models';
import { CHRONOLOGICAL, type MessageDoc } from '../tickets/messages/model';
import type { TicketDoc } from '../tickets/model';
import { keywords, localProvider } from './local-provider';
import type { AiSettingsDoc, ArticleRefDoc } from './model';
import { openAiProvider, type OpenAiProviderConfig } from './openai-provider';
import type { AiProvider, AiRequest, ArticleCandidate } from './provider';

export interface AiConfig {
  /** An OpenAI-compatible server (AI_BASE_URL…); without it the local provider answers. */
  openai?: OpenAiProviderConfig;
}

/** How many of the team's tags auto-tag chooses from, and how many articles suggest-reply reads. */
const KNOWN_TAGS_MAX = 200;
const ARTICLES_SCANNED_MAX = 500;
const ARTICLES_USED_MAX = 3;

const settingsId = (scope: Scope) => `${scope.mode}:${scope.teamId}`;
const settingsView = (s: AiSettingsDoc | null): AiSettings => ({
  object: 'ai_settings',
  includeInternalNotes: s?.includeInternalNotes ?? false,
  updatedAt: s?.updatedAt ? new Date(s.updatedAt).toISOString() : null,
});

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

/** The AI actions (docs/adr/0029): ticketing gathers what an action may read, the provider writes. */
export function aiRules({ conn, models }: { conn: mongoose.Connection; models: TicketingModels }, config: AiConfig = {}) {
  const provider: AiProvider = config.openai?.baseUrl ? openAiProvider(config.openai) : localProvider();

  async function settingsOf(scope: Scope): Promise<AiSettingsDoc | null> {
    return scoped(models, scope).aiSettings.findOne({ _id: settingsId(scope) }).lean<AiSettingsDoc>();
  }

  /** The partition's ticket tags, most used first. */
  async function knownTags(scope: Scope): Promise<string[]> {
    const rows = await scoped(models, scope).tickets.aggregate<{ _id: string }>([
      { $match: { 'tags.0': { $exists: true } } },
      { $unwind: '$tags' },
      { $group: { _id: '$tags', n: { $sum: 1 } } },
      { $sort: { n: -1, _id: 1 } },
      { $limit: KNOWN_TAGS_MAX },
    ]);
    return rows.map((r) => r._id);
  }

  return {
    provider,

    async settings(ctx: RequestContext): Promise<AiSettings> {
      return settingsView(await settingsOf(ctx));
    },

    async updateSettings(ctx: RequestContext, input: { includeInternalNotes?: boolean }): Promise<AiSettings> {
      return withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const db = scoped(models, ctx);
        const cur = await db.aiSettings.findOne({ _id: settingsId(ctx) }).session(session).lean<AiSettingsDoc>();
        const { set, previous, change, changes } = changeSet({ includeInternalNotes: cur?.includeInternalNotes ?? false });
        if (input.includeInternalNotes !== undefined) change('includeInternalNotes', input.includeInternalNotes);
        const changed = changes();
        if (!changed.length) return settingsView(cur);
        const next = { includeInternalNotes: set.includeInternalNotes!, updatedAt: new Date() };
        await db.aiSettings.updateOne({ _id: settingsId(ctx) }, { $set: next }, { session, upsert: true });
        const view = settingsView({ _id: settingsId(ctx), teamId: ctx.teamId, mode: ctx.mode, ...next });
        emit({ type: 'ai_settings.updated', data: { settings: view, changes: changed, previous } });
        return view;
      });
    },

    /** One action; suggest-reply's articles count as uses (`ai.reply_suggested`, after the provider answered). */
    async run(ctx: RequestContext, input: AiInput): Promise<AiResult> {
      const request: AiRequest = { action: input.action };
      if (input.action === 'improve') request.text = input.text;
      else {
        const db = scoped(models, ctx);
        const ticket = await db.tickets.findOne({ _id: input.ticketId }).lean<TicketDoc>();
        if (!ticket) throw notFound('ticket', input.ticketId);
        const [messages, settings] = await Promise.all([db.messages.find({ ticketId: ticket._id }).sort(CHRONOLOGICAL).lean<MessageDoc[]>(), settingsOf(ctx)]);
        // Internal notes never reach the provider unless the team allows it.
        const visible = settings?.includeInternalNotes ? messages : messages.filter((m) => !m.isInternal);
        request.ticket = { title: ticket.title, customerName: ticket.customerName ?? null, tags: ticket.tags ?? [] };
        request.thread = visible.map((m) => ({ sender: m.sender, content: m.content, isInternal: m.isInternal }));
        if (input.action === 'auto-tag') request.knownTags = await knownTags(ctx);
        if (input.action === 'suggest-reply') {
          const published = await db.articleRefs.find({ status: 'published', deleted: false }).limit(ARTICLES_SCANNED_MAX).lean<ArticleRefDoc[]>();
          // What the customer asks: the title and the customer's messages.
          const asked = [ticket.title, ...visible.filter((m) => m.sender === 'customer').map((m) => m.content)].join('\n');
          request.articles = rankArticles(published, keywords(asked));
        }
      }
      const result = await provider.run(request);
      if (input.action === 'suggest-reply' && result.articleIds?.length) {
        await withOutbox(conn, eventScopeOf(ctx), async (_session, emit) => {
          emit({ type: 'ai.reply_suggested', data: { ticketId: input.ticketId!, articleIds: result.articleIds! } });
        });
      }
      return { object: 'ai_result', action: input.action, provider: provider.name, result };
    },

    /** `article.*`: the projection suggest-reply searches, applied by `rev` (an older event never wins). */
    async applyArticle(e: EventEnvelope, a: ArticleSnapshot, deleted = false): Promise<void> {
      const db = scoped(models, { teamId: e.teamId, mode: e.mode });
      const fields = { title: a.title, content: a.content, tags: a.tags, status: a.status, rev: a.rev, deleted };
      const res = await db.articleRefs.updateOne({ _id: a.id, rev: { $lt: a.rev + (deleted ? 1 : 0) } }, { $set: fields });
      if (res.matchedCount) return;
      try {
        await db.articleRefs.insertMany([{ _id: a.id, ...fields }], { lean: true });
      } catch (err) {
        // Already there with a newer (or the same) revision.
        if ((err as { code?: number }).code !== 11000) throw err;
      }
    },
  };
}

export type AiRules = ReturnType<typeof aiRules>;
