import { randomBytes } from 'node:crypto';
import type { EventEnvelope } from '@helpdesk/contracts';
import type { ApiResponse } from '@helpdesk/testing';
import type { TestPlatform } from '../support/platform';
import { expectError, expectOk } from './helpdesk-helpers';

export const ART_ID = /^art_[A-Za-z0-9]{24}$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const ARTICLE_KEYS = [
  'categoryId', 'content', 'createdAt', 'customFields', 'helpCenterVisible', 'hiddenBecause', 'id', 'isPublic', 'metadata', 'publiclyVisible', 'status', 'tags',
  'title', 'updatedAt', 'useCount', 'viewCount',
];
export const PUBLIC_ARTICLE_KEYS = ARTICLE_KEYS.filter((k) => k !== 'metadata' && k !== 'customFields');
export const CATEGORY_KEYS = ['color', 'createdAt', 'description', 'icon', 'id', 'isPublic', 'name', 'object', 'slug', 'sortOrder', 'updatedAt'];

/** Which record an event of the knowledge service is about (article or category id). */
const subjectOf = (e: EventEnvelope<any>): string | undefined => e.data.article?.id ?? e.data.articleId ?? e.data.category?.id ?? e.data.categoryId;

/** Collects every event the knowledge service publishes (article.*, category.*), for the file's lifetime. */
export class KnowledgeEvents {
  readonly events: EventEnvelope<any>[] = [];
  private constructor(private readonly tp: TestPlatform) {}

  static async start(tp: TestPlatform): Promise<KnowledgeEvents> {
    const log = new KnowledgeEvents(tp);
    await tp.observe('knowledge', ['article.#', 'category.#'], async (e: EventEnvelope) => {
      log.events.push(e as EventEnvelope<any>);
    });
    return log;
  }

  about(subject: string): EventEnvelope<any>[] {
    return this.events.filter((e) => subjectOf(e) === subject);
  }

  ofRequest(requestId: string): EventEnvelope<any>[] {
    return this.events.filter((e) => e.requestId === requestId);
  }

  /** Polls (never a fixed sleep) until `count` events of the request are in; then returns them. */
  async waitForRequest(requestId: string, count: number, timeoutMs = 15_000): Promise<EventEnvelope<any>[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.ofRequest(requestId);
      if (found.length >= count) return found;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${count} events of ${requestId}; have ${JSON.stringify(found.map((e) => e.type))}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /**
   * Proves nothing more is coming for earlier requests: a marker category created and deleted, and
   * both its events in. The knowledge outbox publishes in commit order and one queue delivers in order.
   */
  async settle(): Promise<void> {
    const created = await this.tp.api.post(`${this.tp.teamPath}/categories`, { name: `marker ${randomBytes(4).toString('hex')}` });
    const c = expectOk(created, 201);
    await this.waitForRequest(created.body.meta.requestId, 1);
    const del = await this.tp.api.delete(`${this.tp.teamPath}/categories/${c.id}`);
    await this.waitForRequest(del.body.meta.requestId, 1);
  }
}

/** Articles and categories of the first team's test partition, counted through the API. */
export async function knowledgeCounts(tp: TestPlatform): Promise<{ articles: number; categories: number }> {
  const a = await tp.api.get(`${tp.teamPath}/articles`, { query: { pageSize: 1 } });
  const c = await tp.api.get(`${tp.teamPath}/categories`, { query: { pageSize: 1 } });
  return { articles: a.body.meta.pagination.total, categories: c.body.meta.pagination.total };
}

/** A refused request: the documented error, no event for it, nothing stored. */
export async function expectRefusedWithoutEffect(
  tp: TestPlatform,
  log: KnowledgeEvents,
  send: () => Promise<ApiResponse>,
  status: number,
  type: string,
  code: string,
  param?: string,
): Promise<void> {
  await log.settle();
  const before = await knowledgeCounts(tp);
  const res = await send();
  expectError(res, status, type, code, param);
  await log.settle();
  expect(log.ofRequest(res.body.error.request_id)).toEqual([]);
  expect(await knowledgeCounts(tp)).toEqual(before);
}

/** Creates an article (secret test key unless given) and returns it. */
export async function createArticle(tp: TestPlatform, body: Record<string, unknown>, key?: string, teamPath = tp.teamPath): Promise<any> {
  return expectOk(await tp.api.post(`${teamPath}/articles`, body, key ? { key } : {}), 201);
}

/** Creates a category (secret test key unless given) and returns it. */
export async function createCategory(tp: TestPlatform, body: Record<string, unknown>, key?: string, teamPath = tp.teamPath): Promise<any> {
  return expectOk(await tp.api.post(`${teamPath}/categories`, body, key ? { key } : {}), 201);
}

/** The team's slug, as the gateway knows it (`/auth/whoami`). */
export async function teamSlugOf(tp: TestPlatform, key = tp.team.sk_test): Promise<string> {
  return expectOk(await tp.api.get('/auth/whoami', { key }), 200).teamSlug;
}

/** The platform's origin (the help center lives outside `/api/v1`). */
export const originOf = (tp: TestPlatform) => tp.baseUrl.replace(/\/api\/v1$/, '');
