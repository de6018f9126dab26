import type mongoose from 'mongoose';
import type { mongo } from 'mongoose';
import type { Scope } from './context';
import { collectionOf } from './lean-reads';
import { idempotentRequestModel, leaseModel, outboxModel, processedModel } from './outbox/models';
import { newScopedHandle, withScopeFields, type LeanBulkOp, type ScopedModel, type ScopeFields } from './scoped';
import { teamTenancyPlugin, tenancyPlugin, TenancyError } from './tenancy';

/**
 * One data-access layer for team data (docs/adr/0065). Each service declares every collection once,
 * in its `collections.ts`, as one of three kinds:
 *
 * - `teamAndPartition(model)`: one team's data in one partition (rows carry `teamId` and `mode`);
 * - `teamWide(model)`: one team's data, the same in both partitions (rows kept under the live
 *   partition, `{teamId, mode: 'live'}`; or, declared with `key`, rows that name their team in
 *   `teamId` alone, or one row per team whose `_id` is the team's id);
 * - `platformWide(model)`: no team's data (a scheduler's lease).
 *
 * and reaches them only through the ways in below, each easy to grep for:
 *
 * - `scoped(models, scope)`: handles bound to one team and partition (team-wide collections to the
 *   scope's team); `scoped(models, { teamId })`: the team-wide collections alone;
 * - `acrossTeams(models)`: the driver's collection, for the sweeps that span every team on purpose
 *   (due SLA clocks, the webhook and mail work queues);
 * - `bulkWriteInScopes(models.x, ops)`: one bulk write whose operations each carry their own scope;
 * - `platform(models)`: the platform-wide collections' models.
 *
 * The declaration checks that a team collection's schema carries the tenancy plugin that matches its
 * kind, so the plugin's fail-closed hooks stay under everything that reaches mongoose.
 */

export type CollectionKind = 'team-and-partition' | 'team-wide' | 'platform-wide';
/** Where a team-wide row names its team: under the live partition (`teamId` + `mode: 'live'`), in `teamId`, or as its `_id`. */
export type TeamKey = 'live' | 'teamId' | '_id';

const MODEL = Symbol('model');

/** Any mongoose model, whatever its schema's inferred types. */
type AnyModel = mongoose.Model<any, any, any, any, any, any, any>;

/** A declared collection (what `models.<name>` is). It holds its model out of a service's reach. */
export interface Collection<K extends CollectionKind = CollectionKind, M extends AnyModel = AnyModel> {
  readonly kind: K;
  /** Its MongoDB collection's name. */
  readonly name: string;
  /** A team-wide collection's team key (null for the other kinds). */
  readonly teamKey: TeamKey | null;
  readonly [MODEL]: M;
}

/** A service's declared collections (its `collections.ts`). */
export type DataLayer = Record<string, Collection>;

type ModelOf<C> = C extends Collection<any, infer M> ? M : never;
type KeysOf<D, K extends CollectionKind> = { [P in keyof D]: D[P] extends Collection<K, any> ? P : never }[keyof D];

/** The handles `scoped` gives: one per collection of the kinds named. */
export type ScopedHandles<D extends DataLayer, K extends CollectionKind = 'team-and-partition' | 'team-wide'> = {
  readonly [P in KeysOf<D, K>]: ScopedModel<ModelOf<D[P]>>;
};

function usesPlugin(model: mongoose.Model<any>, fn: (...args: any[]) => void, key?: string): boolean {
  const plugins = (model.schema as unknown as { plugins: { fn: unknown; opts?: { key?: string } }[] }).plugins;
  return plugins.some((p) => p.fn === fn && (key === undefined || p.opts?.key === key));
}

function declare<K extends CollectionKind, M extends AnyModel>(kind: K, model: M, teamKey: TeamKey | null): Collection<K, M> {
  const plugged =
    kind === 'platform-wide' || (teamKey === 'teamId' || teamKey === '_id' ? usesPlugin(model, teamTenancyPlugin, teamKey) : usesPlugin(model, tenancyPlugin));
  if (!plugged) throw new TenancyError(`${model.modelName}: a ${kind} collection's schema must use ${teamKey === 'teamId' || teamKey === '_id' ? `teamTenancyPlugin({ key: '${teamKey}' })` : 'tenancyPlugin'}`);
  return Object.freeze({ kind, name: model.collection.collectionName, teamKey, [MODEL]: model });
}

/** One team's data in one partition: rows carry `teamId` and `mode` (schema: `tenancyPlugin`). */
export const teamAndPartition = <M extends AnyModel>(model: M) => declare('team-and-partition', model, null);

/**
 * One team's data, the same in both partitions. By default its rows are kept under the live partition
 * (`tenancyPlugin`, `{teamId, mode: 'live'}`: the scope-first unique indexes hold as for the others);
 * `key: 'teamId'` for rows that carry only `teamId`, `key: '_id'` for one row per team (both with
 * `teamTenancyPlugin({ key })`).
 */
export const teamWide = <M extends AnyModel>(model: M, opts: { key?: 'teamId' | '_id' } = {}) => declare('team-wide', model, opts.key ?? 'live');

/** No team's data (platform bookkeeping such as a scheduler's lease): reached only through `platform(models)`. */
export const platformWide = <M extends AnyModel>(model: M) => declare('platform-wide', model, null);

/** The fields a collection's handle adds for `scope` (a team-wide collection takes only the team). */
function fieldsOf(c: Collection, scope: { teamId: string; mode?: string }): ScopeFields {
  if (typeof scope?.teamId !== 'string') throw new TenancyError(`tenancy: ${c.name} without a team`);
  if (c.kind === 'team-and-partition') {
    if (scope.mode !== 'test' && scope.mode !== 'live') throw new TenancyError(`tenancy: ${c.name} without a partition`);
    return { teamId: scope.teamId, mode: scope.mode };
  }
  if (c.kind === 'team-wide') {
    if (c.teamKey === 'teamId') return { teamId: scope.teamId };
    if (c.teamKey === '_id') return { _id: scope.teamId };
    return { teamId: scope.teamId, mode: 'live' };
  }
  throw new TenancyError(`tenancy: ${c.name} is platform-wide`);
}

const STATE = Symbol('scope');
interface ScopedState {
  /** The scope, and its team-and-partition fields once a handle needed them (shared by that kind's handles). */
  [STATE]: { teamId: string; mode?: string; fields?: ScopeFields };
}

/**
 * Per declared models object, a prototype whose getters build each handle when first used (a
 * request touches one or two) and keep it on the instance; built once, so `scoped` costs one small
 * object per call and one per handle used.
 */
const prototypes = new WeakMap<DataLayer, { partition: object; team: object }>();

function prototypesOf(data: DataLayer): { partition: object; team: object } {
  let protos = prototypes.get(data);
  if (!protos) {
    protos = { partition: {}, team: {} };
    for (const [key, c] of Object.entries(data)) {
      if (c.kind === 'platform-wide') continue;
      const getter = {
        enumerable: true,
        configurable: true,
        get(this: ScopedState) {
          const st = this[STATE];
          const fields = c.kind === 'team-and-partition' ? (st.fields ??= fieldsOf(c, st)) : fieldsOf(c, st);
          const handle = newScopedHandle(c[MODEL], fields);
          Object.defineProperty(this, key, { value: handle, enumerable: true });
          return handle;
        },
      };
      Object.defineProperty(protos.partition, key, getter);
      if (c.kind === 'team-wide') Object.defineProperty(protos.team, key, getter);
    }
    prototypes.set(data, protos);
  }
  return protos;
}

/**
 * The service's collections bound to one scope: `scoped(models, ctx).tickets.findOne({ _id })`. A
 * request's or an event's scope gives every team collection (team-wide ones in its team); a bare
 * `{ teamId }` gives the team-wide ones alone.
 */
export function scoped<D extends DataLayer>(data: D, scope: Scope): ScopedHandles<D>;
export function scoped<D extends DataLayer>(data: D, team: { teamId: string; mode?: undefined }): ScopedHandles<D, 'team-wide'>;
export function scoped<D extends DataLayer>(data: D, scope: { teamId: string; mode?: Scope['mode'] }): ScopedHandles<D, CollectionKind> {
  if (typeof scope?.teamId !== 'string') throw new TenancyError('tenancy: scoped() without a team');
  const protos = prototypesOf(data);
  const out = Object.create(scope.mode === undefined ? protos.team : protos.partition) as ScopedState;
  out[STATE] = { teamId: scope.teamId, mode: scope.mode };
  return out as unknown as ScopedHandles<D, CollectionKind>;
}

/** One declared collection bound to one scope (kit's own helpers over one collection, e.g. custom field definitions). */
export function scopedCollection<M extends AnyModel>(c: Collection<'team-and-partition' | 'team-wide', M>, scope: { teamId: string; mode?: Scope['mode'] }): ScopedModel<M> {
  return newScopedHandle(c[MODEL], fieldsOf(c, scope)) as unknown as ScopedModel<M>;
}

type RawOf<M> = M extends mongoose.Model<infer T, any, any, any, any, any, any> ? T : never;
/** A stored document as the driver types it (a mapped copy: the driver's filters and updates are typed by its fields). */
export type Swept<T> = { [K in keyof T]: T[K] };

/**
 * The driver's collection of every team collection, for the sweeps that span every team on purpose
 * (the SLA scan's due clocks, the webhook and mail work queues): no scope is added, so each use is a
 * line a reviewer reads. Whatever such a sweep then does to one team's data goes through `scoped`.
 */
export function acrossTeams<D extends DataLayer>(data: D): { readonly [P in KeysOf<D, 'team-and-partition' | 'team-wide'>]: mongo.Collection<Swept<RawOf<ModelOf<D[P]>>>> } {
  const out: Record<string, mongo.Collection<any>> = {};
  for (const [key, c] of Object.entries(data)) if (c.kind !== 'platform-wide') Object.defineProperty(out, key, { get: () => collectionOf(c[MODEL]), enumerable: true });
  return out as any;
}

/** One operation of `bulkWriteInScopes`: a driver bulk operation and the scope it is in. */
export type BulkOpInScope = LeanBulkOp & { scope: { teamId: string; mode?: Scope['mode'] } };

/**
 * One driver bulk write (one command) whose operations each name their own scope (a micro-batch of
 * several teams' events): each gets its scope's fields added as a handle adds them.
 */
export function bulkWriteInScopes(
  c: Collection<'team-and-partition' | 'team-wide'>,
  ops: readonly BulkOpInScope[],
  opts: { session?: mongo.ClientSession; ordered?: boolean } = {},
): Promise<mongo.BulkWriteResult> {
  const writes = ops.map(({ scope, ...op }) => withScopeFields(fieldsOf(c, scope), op)) as mongo.AnyBulkWriteOperation[];
  return collectionOf(c[MODEL]).bulkWrite(writes, { ...(opts.session ? { session: opts.session } : {}), ordered: opts.ordered ?? true });
}

/** The platform-wide collections' models (no team's data: no scope to add). */
export function platform<D extends DataLayer>(data: D): { readonly [P in KeysOf<D, 'platform-wide'>]: ModelOf<D[P]> } {
  const out: Record<string, mongoose.Model<any>> = {};
  for (const [key, c] of Object.entries(data)) if (c.kind === 'platform-wide') out[key] = c[MODEL];
  return out as any;
}

/** What a service declared: each collection's key, kind, MongoDB name and team key (the census test reads it). */
export function describeCollections(data: DataLayer): CollectionDescription[] {
  return Object.entries(data).map(([key, c]) => ({ key, kind: c.kind, name: c.name, teamKey: c.teamKey }));
}

/** A declared collection as the census reads it. */
export interface CollectionDescription {
  key: string;
  kind: CollectionKind;
  name: string;
  teamKey: TeamKey | null;
}

/**
 * kit's own collections in every service's database: the outbox, the relay's lease, the consumers'
 * de-duplication records and the idempotent requests, all platform-wide (keyed by event id, relay
 * group or request key; each outbox row's envelope names its team).
 */
export const kitCollections = (conn: mongoose.Connection) => ({
  'kit.outbox': platformWide(outboxModel(conn)),
  'kit.outboxLease': platformWide(leaseModel(conn)),
  'kit.processedEvents': platformWide(processedModel(conn)),
  'kit.idempotentRequests': platformWide(idempotentRequestModel(conn)),
});

/** Per database of this process, its service's declaration and connection (recorded by startService). */
const declaredDatabases = new Map<string, { conn: mongoose.Connection; collections: CollectionDescription[] }>();

/** @internal startService records what the service on `conn` declared, kit's own collections included. */
export function recordDeclaration(conn: mongoose.Connection, data: DataLayer): void {
  declaredDatabases.set(conn.name, { conn, collections: [...describeCollections(data), ...describeCollections(kitCollections(conn))] });
}

/**
 * The census (deploy/local/test/registry-platform.test.ts): every collection each running service's
 * database holds and every model registered on its connection that the service did not declare.
 * Empty when every collection is declared.
 */
export async function undeclaredCollections(): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const [db, { conn, collections }] of declaredDatabases) {
    if (conn.readyState !== 1) continue;
    const declared = new Set(collections.map((c) => c.name));
    const stored = (await conn.db!.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
    const modelled = Object.values(conn.models).map((m) => m.collection.collectionName);
    out[db] = [...new Set([...stored, ...modelled])].filter((name) => !declared.has(name) && !name.startsWith('system.')).sort();
  }
  return out;
}

/** What each running service of this process declared, by database (the census reads it). */
export const declarations = (): Record<string, CollectionDescription[]> =>
  Object.fromEntries([...declaredDatabases].map(([db, d]) => [db, d.collections]));

/** @internal every declared model (kit's start-up builds their indexes). */
export const declaredModels = (data: DataLayer): mongoose.Model<any>[] => Object.values(data).map((c) => c[MODEL]);
