import type mongoose from 'mongoose';
import {
  BUILT_IN_CUSTOMER_STATUSES,
  STATUS_POSITION_MIN,
  type CreateStatusInput,
  type CustomerStatusSnapshot,
  type UpdateStatusInput,
} from '@helpdesk/contracts';
import {
  ApiError,
  changeSet,
  conflict,
  conflictOnDuplicate,
  eventScopeOf,
  foundOr404,
  parameterInvalid,
  scoped,
  withOutbox,
  type RequestContext,
  type Scope,
  type Unscoped,
} from '@helpdesk/kit';
import type { CustomersModels } from '../collections';
import type { StatusDoc } from './model';
import { statusView } from './view';

export interface StatusRulesDeps {
  conn: mongoose.Connection;
  models: CustomersModels;
}

export type BuiltInStatus = (typeof BUILT_IN_CUSTOMER_STATUSES)[number];

/** The built-ins: always listed first, in this order (positions 0 to 3), and never changed or deleted. */
export const BUILT_IN_STATUSES: readonly { key: BuiltInStatus; label: string; color: string; position: number }[] = [
  { key: 'active', label: 'Active', color: '#22c55e', position: 0 },
  { key: 'inactive', label: 'Inactive', color: '#9ca3af', position: 1 },
  { key: 'churned', label: 'Churned', color: '#ef4444', position: 2 },
  { key: 'pending', label: 'Pending', color: '#f59e0b', position: 3 },
];
export const isBuiltInStatus = (key: string): key is BuiltInStatus => (BUILT_IN_CUSTOMER_STATUSES as readonly string[]).includes(key);

export const DEFAULT_COLOR = '#6b7280';

const BUILT_IN_VIEWS = BUILT_IN_STATUSES.map((s) => statusView(s, true));

function protectedStatus(key: string): ApiError {
  return conflict(`'${key}' is a built-in customer status; built-in statuses cannot be changed or deleted.`);
}

/** The rules of customer statuses: the four built-ins and the team's own (docs/adr/0006). */
export function statusRules({ conn, models }: StatusRulesDeps) {
  return {
    /** Built-ins first (fixed positions 0 to 3), then the team's own by position, then key. */
    async list(ctx: RequestContext): Promise<CustomerStatusSnapshot[]> {
      const own = await scoped(models, ctx).statuses.find().sort({ position: 1, key: 1 }).lean<StatusDoc[]>();
      return [...BUILT_IN_VIEWS, ...own.map((s) => statusView(s))];
    },

    /**
     * Refuses a status that is neither built-in nor added by the team (`400`, naming `param`).
     * Given a session, it also writes the team status's `lastAssignedAt`, so that assigning a status
     * and deleting it conflict (see StatusDoc).
     */
    async assertKnown(scope: Scope, key: string, param: string, session?: mongoose.ClientSession): Promise<void> {
      if (isBuiltInStatus(key)) return;
      const statuses = scoped(models, scope).statuses;
      const found = session
        ? await statuses.findOneAndUpdate({ key }, { $set: { lastAssignedAt: new Date() } }, { session }).lean()
        : await statuses.exists({ key });
      if (!found) {
        throw parameterInvalid(param, `Invalid ${param}: '${key}' is neither a built-in customer status nor one the team added.`);
      }
    },

    async create(ctx: RequestContext, input: CreateStatusInput): Promise<CustomerStatusSnapshot> {
      if (isBuiltInStatus(input.key)) throw conflict(`'${input.key}' is a built-in customer status.`, 'key');
      const db = scoped(models, ctx);
      const now = new Date();
      return conflictOnDuplicate(
        () =>
          withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
            let position = input.position;
            if (position === undefined) {
              // Default: after the last one (read in the transaction; two concurrent defaults may share a position).
              const last = await db.statuses.findOne({}, { position: 1 }).sort({ position: -1 }).session(session).lean();
              position = Math.max(STATUS_POSITION_MIN, (last?.position ?? STATUS_POSITION_MIN - 1) + 1);
            }
            const doc: Omit<Unscoped<StatusDoc>, '_id'> = {
              key: input.key, label: input.label, color: input.color ?? DEFAULT_COLOR, position, lastAssignedAt: null, createdAt: now, updatedAt: now,
            };
            await db.statuses.create([doc], { session });
            const status = statusView(doc);
            emit({ type: 'customer_status.created', data: { status } });
            return status;
          }),
        { key: { param: 'key', message: `A customer status with key '${input.key}' already exists.` } },
      );
    },

    async update(ctx: RequestContext, key: string, input: UpdateStatusInput): Promise<CustomerStatusSnapshot> {
      if (isBuiltInStatus(key)) throw protectedStatus(key);
      const db = scoped(models, ctx);
      return withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const cur = await foundOr404(db.statuses.findOne({ key }).session(session).lean<StatusDoc>(), 'customer status', key);
        const { set, previous, change, changes: changedFields } = changeSet<StatusDoc>(cur);
        if (input.label !== undefined) change('label', input.label);
        if (input.color !== undefined) change('color', input.color);
        if (input.position !== undefined) change('position', input.position);
        const changes = changedFields();
        if (!changes.length) return statusView(cur);
        set.updatedAt = new Date();
        const next = await db.statuses.findOneAndUpdate({ key }, { $set: set }, { session, returnDocument: 'after' }).lean<StatusDoc>();
        const status = statusView(next!);
        emit({ type: 'customer_status.updated', data: { status, changes, previous } });
        return status;
      });
    },

    /** Refused (409) while any customer has the status: move them first. */
    async remove(ctx: RequestContext, key: string): Promise<{ key: string; deleted: true }> {
      if (isBuiltInStatus(key)) throw protectedStatus(key);
      const db = scoped(models, ctx);
      await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        // The delete first: it conflicts with any transaction assigning this status right now.
        const cur = await foundOr404(db.statuses.findOneAndDelete({ key }, { session }).lean<StatusDoc>(), 'customer status', key);
        const inUse = await db.customers.countDocuments({ status: key }).session(session);
        if (inUse > 0) {
          throw conflict(
            `The customer status '${key}' is used by ${inUse} customer${inUse === 1 ? '' : 's'}; give them another status before deleting it.`,
          );
        }
        emit({ type: 'customer_status.deleted', data: { key, status: statusView(cur) } });
      });
      return { key, deleted: true };
    },
  };
}

export type StatusRules = ReturnType<typeof statusRules>;
