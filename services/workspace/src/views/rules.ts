import type mongoose from 'mongoose';
import { z } from 'zod';
import { VIEW_FILTERS, VIEW_SORT_FIELDS, type CreateViewInput, type SavedViewSnapshot, type UpdateViewInput, type ViewEntityType } from '@helpdesk/contracts';
import {
  eventScopeOf,
  foundOr404,
  newId,
  parameterInvalid,
  parseInput,
  scoped,
  withOutbox,
  type RequestContext,
  type ScopedFilter,
  type Unscoped,
} from '@helpdesk/kit';
import type { WorkspaceModels } from '../collections';
import type { SavedViewDoc } from './model';
import { savedViewView } from './view';

/** Who a view belongs to: the member behind the key, or the key itself. */
const ownerOf = (ctx: RequestContext) => ctx.memberId ?? ctx.keyId;

/** What the caller can see: team views, and its own private ones (anyone else's is 404). */
const visibleTo = (ctx: RequestContext): ScopedFilter<SavedViewDoc> => ({ $or: [{ visibility: 'team' as const }, { createdBy: ownerOf(ctx) }] });

/** `filters` as that entity's list validates them (400 naming `filters.<name>`), kept as parsed. */
function checkedFilters(entity: ViewEntityType, filters: Record<string, unknown>): Record<string, unknown> {
  const parsed = parseInput(z.strictObject({ filters: VIEW_FILTERS[entity] }), { filters }) as { filters: Record<string, unknown> };
  return Object.fromEntries(Object.entries(parsed.filters).filter(([, v]) => v !== undefined));
}

function checkedSortField(entity: ViewEntityType, sortField: string): string {
  const allowed: readonly string[] = VIEW_SORT_FIELDS[entity];
  if (!allowed.includes(sortField)) throw parameterInvalid('sortField', `Invalid sortField: ${entity} views sort by ${allowed.join(', ')}.`);
  return sortField;
}

/** The rules of saved views (docs/adr/0035). */
export function savedViewRules({ conn, models }: { conn: mongoose.Connection; models: WorkspaceModels }) {
  const findVisible = (ctx: RequestContext, id: string, session?: mongoose.ClientSession) =>
    foundOr404(scoped(models, ctx).savedViews.findOne({ _id: id, ...visibleTo(ctx) }).session(session ?? null).lean<SavedViewDoc>(), 'saved view', id);

  return {
    async list(ctx: RequestContext, q: { entityType?: ViewEntityType }): Promise<SavedViewSnapshot[]> {
      const filter = { ...visibleTo(ctx), ...(q.entityType ? { entityType: q.entityType } : {}) };
      const rows = await scoped(models, ctx).savedViews.find(filter).sort({ createdAt: -1, _id: -1 }).lean<SavedViewDoc[]>();
      return rows.map(savedViewView);
    },

    async get(ctx: RequestContext, id: string): Promise<SavedViewSnapshot> {
      return savedViewView(await findVisible(ctx, id));
    },

    async create(ctx: RequestContext, input: CreateViewInput): Promise<SavedViewSnapshot> {
      const now = new Date();
      const doc: Unscoped<SavedViewDoc> = {
        _id: newId('view'),
        name: input.name,
        entityType: input.entityType,
        filters: checkedFilters(input.entityType, input.filters ?? {}),
        sortField: checkedSortField(input.entityType, input.sortField ?? 'created_at'),
        sortDirection: input.sortDirection ?? 'desc',
        visibility: input.visibility ?? 'team',
        createdBy: ownerOf(ctx),
        createdAt: now,
        updatedAt: now,
      };
      return withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        await scoped(models, ctx).savedViews.insertMany([doc], { session, lean: true });
        const view = savedViewView({ ...doc, teamId: ctx.teamId, mode: ctx.mode });
        emit({ type: 'saved_view.created', data: { view } });
        return view;
      });
    },

    async update(ctx: RequestContext, id: string, input: UpdateViewInput): Promise<SavedViewSnapshot> {
      return withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const cur = await findVisible(ctx, id, session);
        const next: SavedViewDoc = {
          ...cur,
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.filters !== undefined ? { filters: checkedFilters(cur.entityType, input.filters) } : {}),
          ...(input.sortField !== undefined ? { sortField: checkedSortField(cur.entityType, input.sortField) } : {}),
          ...(input.sortDirection !== undefined ? { sortDirection: input.sortDirection } : {}),
          ...(input.visibility !== undefined ? { visibility: input.visibility } : {}),
        };
        const fields = ['name', 'filters', 'sortField', 'sortDirection', 'visibility'] as const;
        const changes = fields.filter((f) => JSON.stringify(cur[f]) !== JSON.stringify(next[f]));
        if (!changes.length) return savedViewView(cur);
        next.updatedAt = new Date();
        const { name, filters, sortField, sortDirection, visibility, updatedAt } = next;
        await scoped(models, ctx).savedViews.updateOne({ _id: id }, { $set: { name, filters, sortField, sortDirection, visibility, updatedAt } }, { session });
        const view = savedViewView(next);
        emit({ type: 'saved_view.updated', data: { view, changes: [...changes], previous: Object.fromEntries(changes.map((f) => [f, cur[f]])) } });
        return view;
      });
    },

    async remove(ctx: RequestContext, id: string): Promise<{ id: string; deleted: true }> {
      await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const cur = await findVisible(ctx, id, session);
        await scoped(models, ctx).savedViews.deleteOne({ _id: id }, { session });
        emit({ type: 'saved_view.deleted', data: { viewId: id, view: savedViewView(cur) } });
      });
      return { id, deleted: true };
    },
  };
}
export type SavedViewRules = ReturnType<typeof savedViewRules>;
