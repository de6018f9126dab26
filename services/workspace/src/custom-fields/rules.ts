import type mongoose from 'mongoose';
import {
  CUSTOM_FIELD_CONTENT_TYPES,
  CUSTOM_FIELDS_PER_TYPE_MAX,
  customFieldValueProblem,
  type CreateCustomFieldInput,
  type CustomFieldContentType,
  type CustomFieldSnapshot,
  type ReorderCustomFieldsInput,
  type UpdateCustomFieldInput,
} from '@helpdesk/contracts';
import { eventScopeOf, newId, notFound, parameterInvalid, scoped, withOutbox, type RequestContext, type Unscoped } from '@helpdesk/kit';
import type { WorkspaceModels } from '../collections';
import { fieldChanges, givenFields } from '../settings/field-changes';
import type { CustomFieldDoc } from './model';
import { customFieldView, DISPLAY_ORDER } from './view';

export interface CustomFieldRulesDeps {
  conn: mongoose.Connection;
  models: WorkspaceModels;
}

type Definition = Pick<CustomFieldDoc, 'fieldType' | 'options' | 'minValue' | 'maxValue' | 'defaultValue'>;

/** The rules between a definition's fields, checked on create and on the merged result of a PATCH. */
function checkDefinition(d: Definition): void {
  if (d.fieldType === 'select' && !d.options) throw parameterInvalid('options', 'Missing options: a select field needs its choices.');
  if (d.fieldType !== 'select' && d.options) throw parameterInvalid('options', `Invalid options: only a select field has options, not ${d.fieldType}.`);
  if (d.fieldType !== 'number') {
    for (const bound of ['minValue', 'maxValue'] as const) {
      if (d[bound] !== null) throw parameterInvalid(bound, `Invalid ${bound}: only a number field has bounds, not ${d.fieldType}.`);
    }
  }
  if (d.minValue !== null && d.maxValue !== null && d.minValue > d.maxValue) {
    throw parameterInvalid('maxValue', `Invalid maxValue: must be at least minValue (${d.minValue}).`);
  }
  if (d.defaultValue !== null) {
    const problem = customFieldValueProblem(d, d.defaultValue);
    if (problem) throw parameterInvalid('defaultValue', `Invalid defaultValue: ${problem}.`);
  }
}

const typeRank = (t: CustomFieldContentType) => CUSTOM_FIELD_CONTENT_TYPES.indexOf(t);

/** Custom field definitions per team and record type, in display order (docs/adr/0022). */
export function customFieldRules({ conn, models }: CustomFieldRulesDeps) {
  const db = (ctx: { teamId: string }) => scoped(models, { teamId: ctx.teamId });

  async function findOr404(ctx: { teamId: string }, id: string, session?: mongoose.ClientSession): Promise<CustomFieldDoc> {
    const f = await db(ctx).customFields.findOne({ _id: id }).session(session ?? null).lean<CustomFieldDoc>();
    if (!f) throw notFound('custom field', id);
    return f;
  }

  return {
    async list(ctx: RequestContext, entity: CustomFieldContentType | undefined): Promise<CustomFieldSnapshot[]> {
      const rows = await db(ctx).customFields.find(entity ? { contentType: entity } : {}).sort(DISPLAY_ORDER).lean<CustomFieldDoc[]>();
      // Stable sort: within a type the query's order stays.
      return rows.sort((a, b) => typeRank(a.contentType) - typeRank(b.contentType)).map(customFieldView);
    },

    get: async (ctx: RequestContext, id: string) => customFieldView(await findOr404(ctx, id)),

    async create(ctx: RequestContext, input: CreateCustomFieldInput): Promise<CustomFieldSnapshot> {
      const def: Definition = {
        fieldType: input.fieldType,
        options: input.options ?? null,
        minValue: input.minValue ?? null,
        maxValue: input.maxValue ?? null,
        defaultValue: input.defaultValue ?? null,
      };
      checkDefinition(def);
      return withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const siblings = db(ctx).customFields.find({ contentType: input.contentType }, { sortOrder: 1 }).session(session);
        const orders = (await siblings.lean<Pick<CustomFieldDoc, 'sortOrder'>[]>()).map((f) => f.sortOrder);
        if (orders.length >= CUSTOM_FIELDS_PER_TYPE_MAX) {
          throw parameterInvalid('contentType', `Invalid contentType: a team has at most ${CUSTOM_FIELDS_PER_TYPE_MAX} ${input.contentType} custom fields.`);
        }
        const now = new Date();
        const doc: Unscoped<CustomFieldDoc> = {
          _id: newId('customField'),
          contentType: input.contentType,
          label: input.label,
          ...def,
          required: input.required ?? false,
          sortOrder: orders.length ? Math.max(...orders) + 1 : 0,
          rev: 1,
          createdAt: now,
          updatedAt: now,
        };
        await db(ctx).customFields.create([doc], { session });
        const customField = customFieldView(doc);
        emit({ type: 'custom_field.created', data: { customField, rev: doc.rev } });
        return customField;
      });
    },

    async update(ctx: RequestContext, id: string, input: UpdateCustomFieldInput): Promise<CustomFieldSnapshot> {
      return withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const cur = await findOr404(ctx, id, session);
        const next: CustomFieldDoc = { ...cur, ...givenFields(input) } as CustomFieldDoc;
        checkDefinition(next);
        const before = customFieldView(cur);
        const after = customFieldView(next);
        const { changes, previous } = fieldChanges(before, after);
        if (!changes.length) return before;
        next.rev = cur.rev + 1;
        next.updatedAt = new Date();
        const { label, options, defaultValue, minValue, maxValue, required, rev, updatedAt } = next;
        await db(ctx).customFields.updateOne({ _id: id }, { $set: { label, options, defaultValue, minValue, maxValue, required, rev, updatedAt } }, { session });
        emit({ type: 'custom_field.updated', data: { customField: after, rev, changes, previous } });
        return after;
      });
    },

    async remove(ctx: RequestContext, id: string): Promise<{ id: string; deleted: true }> {
      return withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const cur = await findOr404(ctx, id, session);
        await db(ctx).customFields.deleteOne({ _id: id }, { session });
        emit({ type: 'custom_field.deleted', data: { customField: customFieldView(cur), rev: cur.rev + 1 } });
        return { id, deleted: true as const };
      });
    },

    async reorder(ctx: RequestContext, input: ReorderCustomFieldsInput): Promise<CustomFieldSnapshot[]> {
      return withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const rows = await db(ctx).customFields.find({ contentType: input.contentType }).session(session).lean<CustomFieldDoc[]>();
        const given = new Set(input.fieldIds);
        const complete = given.size === input.fieldIds.length && rows.length === given.size && rows.every((r) => given.has(r._id));
        if (!complete) {
          throw parameterInvalid('fieldIds', `Invalid fieldIds: list every ${input.contentType} custom field exactly once (${rows.length} of them).`);
        }
        const byId = new Map(rows.map((r) => [r._id, r]));
        const now = new Date();
        const ordered: CustomFieldDoc[] = [];
        for (const [sortOrder, fid] of input.fieldIds.entries()) {
          const cur = byId.get(fid)!;
          if (cur.sortOrder === sortOrder) {
            ordered.push(cur);
            continue;
          }
          const next = { ...cur, sortOrder, rev: cur.rev + 1, updatedAt: now };
          await db(ctx).customFields.updateOne({ _id: fid }, { $set: { sortOrder, rev: next.rev, updatedAt: now } }, { session });
          emit({ type: 'custom_field.updated', data: { customField: customFieldView(next), rev: next.rev, changes: ['sortOrder'], previous: { sortOrder: cur.sortOrder } } });
          ordered.push(next);
        }
        return ordered.map(customFieldView);
      });
    },
  };
}
export type CustomFieldRules = ReturnType<typeof customFieldRules>;
