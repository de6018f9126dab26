import mongoose from 'mongoose';
import {
  CUSTOM_FIELD_TYPES,
  resolveCustomFieldValues,
  type CustomFieldContentType,
  type CustomFieldRule,
  type CustomFieldSnapshot,
  type EventEnvelope,
  type Partition,
  PARTITIONS,
} from '@helpdesk/contracts';
import type { Scope } from './context';
import { parameterInvalid } from './errors';
import { LookupCache } from './lookup-cache';
import { scopedCollection, type Collection } from './data-layer';
import { on } from './subscriptions';
import { tenancyPlugin } from './tenancy';

/**
 * A record owner's projection of the team's custom field definitions (tickets, customers, articles),
 * fed by workspace's `custom_field.*` events (docs/adr/0022): what checking a record's `customFields`
 * needs, without calling workspace on a write. Per team (kept under the live scope, as workspace keeps
 * them); `rev` orders events; `deleted` is a tombstone.
 */
export interface CustomFieldDefDoc extends Omit<CustomFieldRule, 'id'> {
  _id: string;
  teamId: string;
  mode: Partition;
  rev: number;
  deleted: boolean;
}

const schema = new mongoose.Schema<CustomFieldDefDoc>(
  {
    _id: { type: String, required: true },
    fieldType: { type: String, enum: CUSTOM_FIELD_TYPES, required: true },
    options: { type: [String], default: null },
    minValue: { type: Number, default: null },
    maxValue: { type: Number, default: null },
    required: { type: Boolean, required: true },
    defaultValue: { type: mongoose.Schema.Types.Mixed, default: null },
    rev: { type: Number, required: true },
    deleted: { type: Boolean, required: true },
  },
  { collection: 'custom_field_defs', versionKey: false, strict: 'throw' },
);
schema.plugin(tenancyPlugin);

export type CustomFieldDefModel = mongoose.Model<CustomFieldDefDoc>;

export function customFieldDefModel(conn: mongoose.Connection): CustomFieldDefModel {
  return (conn.models.CustomFieldDef as CustomFieldDefModel | undefined) ?? conn.model<CustomFieldDefDoc>('CustomFieldDef', schema);
}


/** Checks one record type's `customFields` against the team's definitions for it, and follows `custom_field.*`. */
export function customFieldRules({ definitions, records, contentType, soleInstance = false }: {
  /** Team-wide: a team's definitions are the same in both partitions, whichever key changed them. */
  definitions: Collection<'team-wide', CustomFieldDefModel>;
  /** The records that carry the values (a deleted definition's values are removed from them). */
  records: Collection<'team-and-partition'>;
  contentType: CustomFieldContentType;
  /**
   * The service's `soleInstance` (ServiceDeps): the team's definitions are then kept per process and
   * dropped when this process applies a definition's event, the projection's only writer (docs/adr/0045).
   */
  soleInstance?: boolean;
}) {
  const defs = (teamId: string) => scopedCollection(definitions, { teamId });
  const cache = new LookupCache<CustomFieldRule[]>({ enabled: soleInstance });
  const load = async (teamId: string): Promise<CustomFieldRule[]> =>
    (await defs(teamId).leanFind<CustomFieldDefDoc>({ deleted: false })).map((r) => ({ ...r, id: r._id }));

  /** `resolve` for many records at once (an import chunk): the definitions are read once, each record checked alone. */
  async function resolverFor(scope: Scope): Promise<(given: Record<string, unknown> | undefined, current: Record<string, unknown> | null) => Record<string, unknown>> {
    const rules = await cache.get(scope.teamId, () => load(scope.teamId));
    return (given, current) => {
      const result = resolveCustomFieldValues(rules, given, current);
      if ('param' in result) throw parameterInvalid(result.param, `${result.message}.`);
      return result.values;
    };
  }

  return {
    /**
     * A record's values after a write (`current` null on create): throws 400 `parameter_invalid`
     * with param `customFields.<fieldId>` for an unknown field, a bad value or a missing required one.
     */
    async resolve(scope: Scope, given: Record<string, unknown> | undefined, current: Record<string, unknown> | null): Promise<Record<string, unknown>> {
      return (await resolverFor(scope))(given, current);
    },

    resolverFor,

    /** A definition's event, applied when newer than what is kept; a deletion removes the field's values from every record of the team. */
    async apply(event: EventEnvelope, f: CustomFieldSnapshot, rev: number, deleted: boolean): Promise<void> {
      if (f.contentType !== contentType) return;
      const row = await defs(event.teamId).findOne({ _id: f.id }).lean<CustomFieldDefDoc>();
      if (!row || row.rev < rev) {
        const { fieldType, options, minValue, maxValue, required, defaultValue } = f;
        // Only over an older revision: a concurrent newer event wins (the upsert then collides and is dropped).
        await cache.afterWrite(event.teamId, () =>
          defs(event.teamId)
            .updateOne({ _id: f.id, rev: { $lt: rev } }, { $set: { fieldType, options, minValue, maxValue, required, defaultValue, rev, deleted } }, { upsert: true })
            .catch((err: { code?: number }) => {
              if (err.code !== 11000) throw err;
            }),
        );
      }
      // Also on a redelivery: the removal is idempotent and a crash may have cut it short.
      if (!deleted) return;
      const path = `customFields.${f.id}`;
      for (const mode of PARTITIONS) {
        await scopedCollection(records, { teamId: event.teamId, mode }).updateMany({ [path]: { $exists: true } }, { $unset: { [path]: '' }, $inc: { rev: 1 } });
      }
    },
  };
}
export type CustomFieldRules = ReturnType<typeof customFieldRules>;

/** The three `custom_field.*` subscriptions that keep a projection current. */
export const customFieldSubscriptions = (rules: CustomFieldRules) => [
  on('custom_field.created', (e) => rules.apply(e, e.data.customField, e.data.rev, false)),
  on('custom_field.updated', (e) => rules.apply(e, e.data.customField, e.data.rev, false)),
  on('custom_field.deleted', (e) => rules.apply(e, e.data.customField, e.data.rev, true)),
];
