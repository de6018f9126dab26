import type mongoose from 'mongoose';
import type { CustomerStatusSnapshot } from '@helpdesk/contracts';
import {
  ApiError,
  changeSet,
  conflict,
  conflictOnDuplicate,
  eventScopeOf,
  notFound,
  parameterInvalid,
  scopeOf,
  withOutbox,
  type RequestContext,
  type Scope,
} from '@helpdesk/kit';
import type { CustomerModel } from '../customers/model';
import type { StatusDoc, StatusModel } from './model';
import {
  BUILT_IN_STATUSES,
  DEFAULT_COLOR,
  isBuiltInStatus,
  POSITION_MIN,
  type CreateStatusInput,
  type UpdateStatusInput,
} from './schema';

export interface StatusDeps {
  conn: mongoose.Connection;
  statuses: StatusModel;
  customers: CustomerModel;
}

/** The public entry (and the event snapshot): `{key, label, color, position, isProtected}`. */
export function statusView(s: Pick<StatusDoc, 'key' | 'label' | 'color' | 'position'>, isProtected = false): CustomerStatusSnapshot {
  return { key: s.key, label: s.label, color: s.color, position: s.position, isProtected };
}

const BUILT_IN_VIEWS = BUILT_IN_STATUSES.map((s) => statusView(s, true));

function protectedStatus(key: string): ApiError {
  return conflict(`'${key}' is a built-in customer status; built-in statuses cannot be changed or deleted.`);
}

export function createStatusService(deps: StatusDeps) {
  const { conn, statuses: Statuses, customers: Customers } = deps;

  return {
    /** Built-ins first (fixed positions 0 to 3), then the team's own by position, then key. */
    async list(ctx: RequestContext): Promise<CustomerStatusSnapshot[]> {
      const own = await Statuses.find(scopeOf(ctx)).sort({ position: 1, key: 1 }).lean<StatusDoc[]>();
      return [...BUILT_IN_VIEWS, ...own.map((s) => statusView(s))];
    },

    /**
     * Refuses a status that is neither built-in nor added by the team (`400`, naming `param`).
     * Given a session, it also writes the team status's `lastAssignedAt`, so that assigning a status
     * and deleting it conflict (see StatusDoc).
     */
    async assertKnown(scope: Scope, key: string, param: string, session?: mongoose.ClientSession): Promise<void> {
      if (isBuiltInStatus(key)) return;
      const found = session
        ? await Statuses.findOneAndUpdate({ ...scope, key }, { $set: { lastAssignedAt: new Date() } }, { session }).lean()
        : await Statuses.exists({ ...scope, key });
      if (!found) {
        throw parameterInvalid(param, `Invalid ${param}: '${key}' is neither a built-in customer status nor one the team added.`);
      }
    },

    async create(ctx: RequestContext, input: CreateStatusInput): Promise<CustomerStatusSnapshot> {
      if (isBuiltInStatus(input.key)) throw conflict(`'${input.key}' is a built-in customer status.`, 'key');
      const now = new Date();
      return conflictOnDuplicate(
        () =>
          withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
            let position = input.position;
            if (position === undefined) {
              // Default: after the last one (read in the transaction; two concurrent defaults may share a position).
              const last = await Statuses.findOne(scopeOf(ctx), { position: 1 }).sort({ position: -1 }).session(session).lean();
              position = Math.max(POSITION_MIN, (last?.position ?? POSITION_MIN - 1) + 1);
            }
            const doc = {
              ...scopeOf(ctx), key: input.key, label: input.label, color: input.color ?? DEFAULT_COLOR, position,
              lastAssignedAt: null, createdAt: now, updatedAt: now,
            };
            await Statuses.create([doc], { session });
            const status = statusView(doc);
            emit({ type: 'customer_status.created', data: { status } });
            return status;
          }),
        { key: { param: 'key', message: `A customer status with key '${input.key}' already exists.` } },
      );
    },

    async update(ctx: RequestContext, key: string, input: UpdateStatusInput): Promise<CustomerStatusSnapshot> {
      if (isBuiltInStatus(key)) throw protectedStatus(key);
      return withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const cur = await Statuses.findOne({ ...scopeOf(ctx), key }).session(session).lean<StatusDoc>();
        if (!cur) throw notFound('customer status', key);
        const { set, previous, change, changes: changedFields } = changeSet<StatusDoc>(cur);
        if (input.label !== undefined) change('label', input.label);
        if (input.color !== undefined) change('color', input.color);
        if (input.position !== undefined) change('position', input.position);
        const changes = changedFields();
        if (!changes.length) return statusView(cur);
        set.updatedAt = new Date();
        const next = await Statuses.findOneAndUpdate({ ...scopeOf(ctx), key }, { $set: set }, { session, returnDocument: 'after' }).lean<StatusDoc>();
        const status = statusView(next!);
        emit({ type: 'customer_status.updated', data: { status, changes, previous } });
        return status;
      });
    },

    /** Refused (409) while any customer has the status: move them first. */
    async remove(ctx: RequestContext, key: string): Promise<{ key: string; deleted: true }> {
      if (isBuiltInStatus(key)) throw protectedStatus(key);
      await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        // The delete first: it conflicts with any transaction assigning this status right now.
        const cur = await Statuses.findOneAndDelete({ ...scopeOf(ctx), key }, { session }).lean<StatusDoc>();
        if (!cur) throw notFound('customer status', key);
        const inUse = await Customers.countDocuments({ ...scopeOf(ctx), status: key }).session(session);
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

export type StatusService = ReturnType<typeof createStatusService>;
