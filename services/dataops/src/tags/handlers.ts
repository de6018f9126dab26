import { DATAOPS, TAG_ENTITIES, type TagEntity } from '@helpdesk/contracts';
import { handlersFor, parameterInvalid, type RequestContext } from '@helpdesk/kit';
import { MANAGE_PERMISSION, requirePermissions, VIEW_PERMISSION } from '../access';
import type { DataopsRules } from '../rules';

type Counts = Partial<Record<TagEntity, number>>;

/**
 * `GET`/`POST`/`DELETE /tags` (docs/adr/0034): the tag list is each owning service's counts, merged;
 * a merge or a delete is each owning service rewriting its own records through its update rule.
 */
export const tagHandlers = ({ owners }: DataopsRules) => {
  const entitiesOf = (entity: TagEntity | undefined): TagEntity[] => (entity ? [entity] : [...TAG_ENTITIES]);

  /** Asks each entity's service to merge (`toTag`) or remove (`toTag` null) `fromTag`; how many records each changed. */
  async function rewrite(ctx: RequestContext, token: string, entities: TagEntity[], body: { fromTag: string; toTag: string | null }) {
    const input = { body };
    const ask: Record<TagEntity, () => Promise<{ updated: number } | null>> = {
      tickets: () => owners.rewrite.ticketing.forRequest(token, ctx.requestId).call('rewriteTicketTagInternal', input),
      customers: () => owners.rewrite.customers.forRequest(token, ctx.requestId).call('rewriteCustomerTagInternal', input),
      articles: () => owners.rewrite.knowledge.forRequest(token, ctx.requestId).call('rewriteArticleTagInternal', input),
    };
    const counts: Counts = {};
    await Promise.all(entities.map(async (e) => (counts[e] = (await ask[e]())?.updated ?? 0)));
    return { total: Object.values(counts).reduce((n, c) => n + c, 0), counts };
  }

  return handlersFor(DATAOPS)({
    listTags: async ({ ctx, query, token }) => {
      const entities = entitiesOf(query.entity);
      requirePermissions(ctx, entities.map((e) => VIEW_PERMISSION[e]));
      const input = { query: { limit: String(query.limit), ...(query.search?.trim() ? { search: query.search.trim() } : {}) } };
      const ask: Record<TagEntity, () => Promise<{ tags: { tag: string; count: number }[] } | null>> = {
        tickets: () => owners.ticketing.forRequest(token, ctx.requestId).call('listTicketTagsInternal', input),
        customers: () => owners.customers.forRequest(token, ctx.requestId).call('listCustomerTagsInternal', input),
        articles: () => owners.knowledge.forRequest(token, ctx.requestId).call('listArticleTagsInternal', input),
      };
      const answers = await Promise.all(entities.map(async (entity) => ({ entity, found: await ask[entity]() })));
      return answers
        .flatMap(({ entity, found }) => (found?.tags ?? []).map((t) => ({ tag: t.tag, entity, count: t.count })))
        .sort((a, b) => b.count - a.count || a.tag.localeCompare(b.tag) || a.entity.localeCompare(b.entity))
        .slice(0, query.limit);
    },

    mergeTags: async ({ ctx, body, token }) => {
      if (body.fromTag === body.toTag) throw parameterInvalid('toTag', 'Invalid toTag: must differ from fromTag.');
      const entities = entitiesOf(body.entity);
      requirePermissions(ctx, entities.map((e) => MANAGE_PERMISSION[e]));
      const { total, counts } = await rewrite(ctx, token, entities, { fromTag: body.fromTag, toTag: body.toTag });
      return { merged: total, fromTag: body.fromTag, toTag: body.toTag, entities: counts };
    },

    deleteTag: async ({ ctx, body, token }) => {
      const entities = entitiesOf(body.entity);
      requirePermissions(ctx, entities.map((e) => MANAGE_PERMISSION[e]));
      const { total, counts } = await rewrite(ctx, token, entities, { fromTag: body.tag, toTag: null });
      return { deleted: true as const, tag: body.tag, removedFrom: total, entities: counts };
    },
  });
};
