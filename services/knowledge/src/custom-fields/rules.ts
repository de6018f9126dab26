import { resolveCustomFieldValues, type CustomFieldSnapshot, type EventEnvelope } from '@helpdesk/contracts';
import { parameterInvalid, scoped, type Scope } from '@helpdesk/kit';
import type { KnowledgeModels } from '../models';
import type { CustomFieldDefDoc } from './model';

const PARTITIONS = ['test', 'live'] as const;
/** Definitions are per team: kept under the live scope, whichever key changed them. */
const teamScope = (teamId: string): Scope => ({ teamId, mode: 'live' });

/** Checks articles' `customFields` against the team's article definitions; follows `custom_field.*` (docs/adr/0022). */
export function customFieldRules({ models }: { models: KnowledgeModels }) {
  const defs = (teamId: string) => scoped(models, teamScope(teamId)).customFieldDefs;

  return {
    /**
     * An article's values after a write (`current` null on create): throws 400 `parameter_invalid`
     * with param `customFields.<fieldId>` for an unknown field, a bad value or a missing required one.
     */
    async resolve(scope: Scope, given: Record<string, unknown> | undefined, current: Record<string, unknown> | null): Promise<Record<string, unknown>> {
      const rows = await defs(scope.teamId).find({ deleted: false }).lean<CustomFieldDefDoc[]>();
      const result = resolveCustomFieldValues(rows.map((r) => ({ ...r, id: r._id })), given, current);
      if ('param' in result) throw parameterInvalid(result.param, `${result.message}.`);
      return result.values;
    },

    /** A definition's event, applied when newer than what is kept; a deletion removes the field's values from every article of the team. */
    async apply(event: EventEnvelope, f: CustomFieldSnapshot, rev: number, deleted: boolean): Promise<void> {
      if (f.contentType !== 'article') return;
      const row = await defs(event.teamId).findOne({ _id: f.id }).lean<CustomFieldDefDoc>();
      if (!row || row.rev < rev) {
        const { fieldType, options, minValue, maxValue, required, defaultValue } = f;
        // Only over an older revision: a concurrent newer event wins (the upsert then collides and is dropped).
        await defs(event.teamId)
          .updateOne({ _id: f.id, rev: { $lt: rev } }, { $set: { fieldType, options, minValue, maxValue, required, defaultValue, rev, deleted } }, { upsert: true })
          .catch((err: { code?: number }) => {
            if (err.code !== 11000) throw err;
          });
      }
      // Also on a redelivery: the removal is idempotent and a crash may have cut it short.
      if (!deleted) return;
      const path = `customFields.${f.id}`;
      for (const mode of PARTITIONS) {
        await scoped(models, { teamId: event.teamId, mode }).articles.updateMany({ [path]: { $exists: true } }, { $unset: { [path]: '' }, $inc: { rev: 1 } });
      }
    },
  };
}
export type CustomFieldRules = ReturnType<typeof customFieldRules>;
