/**
 * kit's service skeleton: a definition (manifest operations, models, rules, handlers, consumers,
 * workers) becomes a running service; handlers run only after the manifest's checks; the start-up
 * order and its undoing on failure and at stop.
 */
import mongoose from 'mongoose';
import { z } from 'zod';
import { defineOperations, EVENT_CATALOG, PERMISSIONS, type EventEnvelope, type Partition } from '@helpdesk/contracts';
import { startEmbeddedMongo, type EmbeddedMongo } from '@helpdesk/mongo-embedded';
import {
  createLogger,
  defineService,
  handlersFor,
  InternalTokens,
  MemoryBus,
  newId,
  on,
  onEvery,
  pageOf,
  scoped,
  startService,
  teamAndPartition,
  tenancyPlugin,
  type ServiceDefinition,
} from '../src';

const logger = createLogger('service-test', 'silent');
const tokens = new InternalTokens('s'.repeat(32));
const TEAM = '3f1c2a4e-8b7d-4c2a-9f1e-2b3c4d5e6f70';
let mongo: EmbeddedMongo;
beforeAll(async () => {
  mongo = await startEmbeddedMongo();
});
afterAll(() => mongo.close());

interface NoteDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  text: string;
}
const noteSchema = new mongoose.Schema<NoteDoc>({ _id: String, text: String }, { versionKey: false });
noteSchema.plugin(tenancyPlugin);
const models = (conn: mongoose.Connection) => ({ notes: teamAndPartition((conn.models.Note as mongoose.Model<NoteDoc> | undefined) ?? conn.model<NoteDoc>('Note', noteSchema)) });

const note = z.object({ id: z.string(), text: z.string() });
const OPS = defineOperations({
  listNotes: {
    service: 'demo', tag: 'Notes', method: 'GET', path: '/teams/{teamId}/notes', summary: 'List notes', permission: 'view_tickets',
    keys: 'staff', params: { teamId: 'team' }, query: z.strictObject({ page: z.coerce.number().default(1) }),
    success: { status: 200, data: z.array(note), shape: 'envelope', pagination: 'meta' }, errors: [],
  },
  createNote: {
    service: 'demo', tag: 'Notes', method: 'POST', path: '/teams/{teamId}/notes', summary: 'Create a note', permission: 'manage_tickets',
    keys: 'staff', params: { teamId: 'team' }, body: z.strictObject({ text: z.string().min(1) }),
    success: { status: 201, data: note, shape: 'envelope' }, errors: [],
  },
  touchNotes: {
    service: 'demo', tag: 'Notes', method: 'POST', path: '/teams/{teamId}/notes/touch', summary: 'An operation without a body', permission: null,
    keys: 'staff', params: { teamId: 'team' }, success: { status: 200, data: note, shape: 'envelope' }, errors: [],
  },
  getNote: {
    service: 'demo', tag: 'Notes', method: 'GET', path: '/teams/{teamId}/notes/{noteId}', summary: 'Get a bare note', permission: null,
    keys: 'staff', params: { teamId: 'team', noteId: 'ticket' }, success: { status: 200, data: note, shape: 'bare' }, errors: [],
  },
});

type Models = ReturnType<typeof models>;
type Definition = ServiceDefinition<typeof OPS, Models, { notes: Models['notes'] }>;

function definition(log: string[], overrides: Partial<Definition> = {}): Definition {
  const base = defineService({
    name: 'demo',
    operations: OPS,
    models,
    rules: ({ models: m }) => ({ notes: m.notes }),
    handlers: ({ notes }) =>
      handlersFor(OPS)({
        listNotes: async ({ ctx }) => {
          const rows = await scoped({ notes }, ctx).notes.find().lean<NoteDoc[]>();
          return { data: rows.map((n) => ({ id: n._id, text: n.text })), pagination: pageOf(1, 20, rows.length) };
        },
        createNote: async ({ ctx, body }) => {
          const doc = { _id: newId('ticket'), text: body.text };
          await scoped({ notes }, ctx).notes.create([doc]);
          return { id: doc._id, text: doc.text };
        },
        getNote: async ({ params }) => ({ id: params.noteId, text: 'bare' }),
        touchNotes: async () => ({ id: 'tkt_abcdefgh12345678', text: 'touched' }),
      }),
    consumers: () => [
      on('ticket.deleted', async (e) => void log.push(`deleted ${e.data.ticketId}`)),
      onEvery('ticket.*', async (e) => void log.push(`any ${e.type}`)),
    ],
    workers: () => [{ stop: async () => void log.push('worker stopped') }],
  });
  return { ...base, ...overrides };
}

const token = (over: Partial<Parameters<InternalTokens['sign']>[0]> = {}) =>
  tokens.sign({ teamId: TEAM, mode: 'test', keyId: 'key_x', keyType: 'secret', memberId: null, permissions: [...PERMISSIONS], requestId: 'req_svc00001', ...over });
const call = async (url: string, method: string, path: string, body?: unknown, over = {}) => {
  const res = await fetch(url + path, {
    method,
    headers: { 'x-internal-token': await token(over), 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
};

test('handlers run after the manifest checks, answer in the manifest shape, and see only their scope', async () => {
  const bus = new MemoryBus(logger);
  const svc = await startService(definition([]), { mongoUrl: mongo.uri(), bus, tokens, logger });
  const notes = `/teams/${TEAM}/notes`;
  try {
    const made = await call(svc.url, 'POST', notes, { text: 'hello' });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ success: true, data: { text: 'hello' }, meta: { requestId: 'req_svc00001' } });
    const stored = await svc.conn.collection('notes').findOne({ _id: made.body.data.id } as any);
    expect(stored).toMatchObject({ teamId: TEAM, mode: 'test' }); // the scope was added to the insert
    expect((await call(svc.url, 'GET', notes)).body.meta.pagination).toMatchObject({ total: 1 });
    expect((await call(svc.url, 'GET', notes, undefined, { mode: 'live' })).body.data).toEqual([]);
    // bare shape
    expect((await call(svc.url, 'GET', `${notes}/tkt_abcdefgh12345678`)).body).toEqual({ id: 'tkt_abcdefgh12345678', text: 'bare' });
    // refused before any handler: unknown field, missing field, unknown query, bad id, other team, publishable key, permission
    expect((await call(svc.url, 'POST', notes, { text: 'x', extra: 1 })).body.error).toMatchObject({ code: 'parameter_invalid', param: 'extra' });
    expect((await call(svc.url, 'POST', notes, {})).body.error).toMatchObject({ code: 'parameter_missing', param: 'text' });
    // an operation without a body: none or `{}` is fine, any field is unknown
    expect((await call(svc.url, 'POST', `${notes}/touch`)).status).toBe(200);
    expect((await call(svc.url, 'POST', `${notes}/touch`, {})).status).toBe(200);
    expect((await call(svc.url, 'POST', `${notes}/touch`, { force: true })).body.error).toMatchObject({ code: 'parameter_invalid', param: 'force' });
    expect((await call(svc.url, 'GET', `${notes}?sort=x`)).body.error).toMatchObject({ code: 'parameter_invalid', param: 'sort' });
    expect((await call(svc.url, 'GET', `${notes}/nope`)).body.error).toMatchObject({ code: 'invalid_id_format', param: 'noteId' });
    expect((await call(svc.url, 'GET', notes, undefined, { teamId: '3f1c2a4e-8b7d-4c2a-9f1e-2b3c4d5e6f71' })).body.error.code).toBe('team_access_denied');
    expect((await call(svc.url, 'GET', notes, undefined, { keyType: 'publishable' })).body.error.code).toBe('publishable_key_forbidden');
    expect((await call(svc.url, 'POST', notes, { text: 'x' }, { permissions: ['view_tickets'] })).body.error.code).toBe('insufficient_permissions');
    // a body that is not UTF-8 is invalid_json, not replacement characters
    const latin1 = await fetch(svc.url + notes, {
      method: 'POST',
      headers: { 'x-internal-token': await token(), 'content-type': 'application/json' },
      body: Buffer.concat([Buffer.from('{"text":"Caf'), Buffer.from([0xe9]), Buffer.from('"}')]),
    });
    expect(latin1.status).toBe(400);
    expect(((await latin1.json()) as any).error.code).toBe('invalid_json');
    expect(await svc.conn.collection('notes').countDocuments()).toBe(1);
  } finally {
    await svc.stop();
    await bus.close();
  }
});

test('a scoped model refuses nothing it should allow and never leaves its scope', async () => {
  const conn = await mongoose.createConnection(mongo.uri(), { dbName: 'scoped' }).asPromise();
  try {
    const m = models(conn);
    const a = scoped(m, { teamId: TEAM, mode: 'test' });
    const b = scoped(m, { teamId: TEAM, mode: 'live' });
    await a.notes.insertMany([{ _id: 'n1', text: 'a' }]);
    await b.notes.create([{ _id: 'n2', text: 'b' }]);
    await a.notes.bulkWrite([{ updateOne: { filter: { _id: 'n2' }, update: { $set: { text: 'hijacked' } } } }]);
    expect((await b.notes.findOne({ _id: 'n2' }).lean())?.text).toBe('b');
    expect(await a.notes.countDocuments()).toBe(1);
    expect(await a.notes.distinct('text')).toEqual(['a']);
    expect((await a.notes.aggregate([{ $project: { text: 1 } }])).map((n) => n._id)).toEqual(['n1']);
    expect((await a.notes.deleteMany({})).deletedCount).toBe(1);
    expect(await b.notes.exists({ _id: 'n2' })).toBeTruthy();
    // the plugin still refuses an unscoped query on the plain model
    expect(() => conn.models.Note!.find({})).not.toThrow();
    await expect(conn.models.Note!.find({}).exec()).rejects.toThrow(/tenancy/);
  } finally {
    await conn.close();
  }
});

test('lean reads (the driver, no mongoose Query) answer what .lean() answers, in their scope only', async () => {
  const conn = await mongoose.createConnection(mongo.uri(), { dbName: 'lean_reads' }).asPromise();
  try {
    const m = models(conn);
    const a = { teamId: TEAM, mode: 'test' as const };
    const b = { teamId: TEAM, mode: 'live' as const };
    const notesA = scoped(m, a).notes;
    await scoped(m, a).notes.insertMany([{ _id: 'n1', text: 'a' }, { _id: 'n3', text: 'c' }]);
    await scoped(m, b).notes.insertMany([{ _id: 'n2', text: 'a' }]);
    expect(await notesA.leanFindOne({ _id: 'n1' }, { projection: { teamId: 0, mode: 0 } })).toEqual(
      await scoped(m, a).notes.findOne({ _id: 'n1' }, { teamId: 0, mode: 0 }).lean(),
    );
    // another partition's document is not there, even when the filter names that partition
    expect(await notesA.leanFindOne({ _id: 'n2' })).toBeNull();
    expect(await notesA.leanFind({ mode: 'live', text: 'a' } as any)).toEqual([expect.objectContaining({ _id: 'n1', mode: 'test' })]);
    expect(await scoped(m, b).notes.leanCount({})).toBe(1);
    const page = await notesA.leanPage<NoteDoc>({}, { page: 2, pageSize: 1 }, { sort: { _id: 1 }, projection: { text: 1 } });
    expect(page).toEqual({ rows: [{ _id: 'n3', text: 'c' }], pagination: pageOf(2, 1, 2) });
    // One find command answers when its first batch is the whole result; past it (1,000 without a limit)
    // the read runs again through the driver's cursor: complete and in order either way.
    const many = Array.from({ length: 1_203 }, (_, i) => ({ _id: `m${String(i).padStart(5, '0')}`, text: 'many' }));
    await scoped(m, a).notes.insertMany(many);
    const all = await notesA.leanFind<NoteDoc>({ text: 'many' }, { sort: { _id: -1 }, projection: { _id: 1 } });
    expect(all.map((n) => n._id)).toEqual(many.map((n) => n._id).reverse());
    expect((await notesA.leanFind<NoteDoc>({ text: 'many' }, { sort: { _id: 1 }, skip: 1_100, limit: 200 })).map((n) => n._id)).toEqual(many.slice(1_100).map((n) => n._id));
    expect(await notesA.leanFind({ text: 'many' }, { sort: { _id: 1 }, limit: 2, projection: { _id: 1 }, collation: { locale: 'simple' } })).toEqual([{ _id: 'm00000' }, { _id: 'm00001' }]);
    // Inside a transaction they read its own writes.
    const session = await conn.startSession();
    try {
      await session.withTransaction(async () => {
        await scoped(m, a).notes.create([{ _id: 'n_txn', text: 'txn' }], { session });
        expect(await notesA.leanFindOne({ _id: 'n_txn' }, { session, projection: { text: 1 } })).toEqual({ _id: 'n_txn', text: 'txn' });
        expect(await notesA.leanFind({ text: 'txn' }, { session })).toHaveLength(1);
      });
    } finally {
      await session.endSession();
    }
    expect(await notesA.leanFind({ text: 'txn' })).toHaveLength(1);
  } finally {
    await conn.close();
  }
});

test('consumers: typed subscriptions by type and by pattern, one queue, exact types first', async () => {
  const log: string[] = [];
  const bus = new MemoryBus(logger);
  const svc = await startService(definition(log), { mongoUrl: mongo.uri(), dbName: 'demo_consumers', bus, tokens, logger });
  try {
    const snapshot = { id: 'tkt_a', title: 't', status: 'new', priority: 'normal', customerId: null, assignedTo: null, tags: [], notes: null, messageCount: 0, metadata: {}, channel: 'api', createdAt: new Date().toISOString(), updatedAt: new Date().toISOString(), resolvedAt: null, closedAt: null } as const;
    const e: EventEnvelope = {
      id: newId('event'), type: 'ticket.deleted', version: EVENT_CATALOG['ticket.deleted'].version, teamId: TEAM, mode: 'test',
      occurredAt: new Date().toISOString(), requestId: null, actor: { type: 'system', id: null }, data: { ticketId: 'tkt_a', customerId: null, ticket: snapshot },
    };
    await bus.publish([e, { ...e, id: newId('event'), type: 'ticket.created', data: { ticket: snapshot } }]);
    await bus.idle();
    expect([...log].sort()).toEqual(['any ticket.created', 'any ticket.deleted', 'deleted tkt_a']);
    // one event's subscriptions run in order: its exact type's first
    expect(log.indexOf('deleted tkt_a')).toBeLessThan(log.indexOf('any ticket.deleted'));
  } finally {
    await svc.stop();
    await bus.close();
  }
});

test("consumers: the definition's prefetch bounds the events in flight to them at once (32 by default)", async () => {
  const inFlightAtMost = async (prefetch: number | undefined, db: string) => {
    const bus = new MemoryBus(logger);
    let now = 0;
    let most = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const def = definition([], { prefetch, consumers: () => [onEvery('ticket.*', async () => {
      most = Math.max(most, ++now);
      await gate;
      now--;
    })] });
    const svc = await startService(def, { mongoUrl: mongo.uri(), dbName: db, bus, tokens, logger });
    try {
      const snapshot = { id: 'tkt_p', title: 't', status: 'new', priority: 'normal', customerId: null, assignedTo: null, tags: [], notes: null, messageCount: 0, metadata: {}, channel: 'api', createdAt: new Date().toISOString(), updatedAt: new Date().toISOString(), resolvedAt: null, closedAt: null } as const;
      const mk = (): EventEnvelope => ({
        id: newId('event'), type: 'ticket.created', version: EVENT_CATALOG['ticket.created'].version, teamId: TEAM, mode: 'test',
        occurredAt: new Date().toISOString(), requestId: null, actor: { type: 'system', id: null }, data: { ticket: snapshot },
      });
      await bus.publish(Array.from({ length: 100 }, mk));
      await new Promise((r) => setTimeout(r, 50));
      release();
      await bus.idle();
      return most;
    } finally {
      await svc.stop();
      await bus.close();
    }
  };
  expect(await inFlightAtMost(undefined, 'demo_prefetch_default')).toBe(32);
  expect(await inFlightAtMost(64, 'demo_prefetch_64')).toBe(64);
});

test('starts in order (indexes, relay, consumers, workers, listen) and stops the workers before the connection', async () => {
  const log: string[] = [];
  const bus = new MemoryBus(logger);
  const svc = await startService(definition(log), { mongoUrl: mongo.uri(), bus, tokens, logger });
  expect(svc.conn.name).toBe('demo');
  expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);
  expect((await fetch(`${svc.url}/anything`)).status).toBe(401); // no internal token
  await svc.stop();
  expect(log).toEqual(['worker stopped']);
  expect(svc.conn.readyState).toBe(0);
  await expect(fetch(`${svc.url}/healthz`)).rejects.toThrow();
  await bus.close();
});

test('a failure part-way stops what had started and closes the connection', async () => {
  const log: string[] = [];
  const bus = new MemoryBus(logger);
  const boom = definition(log, {
    consumers: () => {
      throw new Error('consumers failed');
    },
  });
  await expect(startService(boom, { mongoUrl: mongo.uri(), dbName: 'demo2', bus, tokens, logger })).rejects.toThrow('consumers failed');
  expect(log).toEqual([]);
  const late = definition(log, {
    workers: () => {
      log.push('worker started');
      throw new Error('worker failed');
    },
  });
  await expect(startService(late, { mongoUrl: mongo.uri(), dbName: 'demo3', bus, tokens, logger })).rejects.toThrow('worker failed');
  expect(log).toEqual(['worker started']);
  await bus.close();
});

/** Never called: the typecheck (`npm run typecheck`) is the test. */
export function _aServiceMustHandleEveryOperation(): void {
  defineService({
    name: 'demo',
    operations: OPS,
    models,
    rules: ({ models: m }) => ({ notes: m.notes }),
    handlers: () =>
      // @ts-expect-error getNote (an operation of the manifest) has no handler
      handlersFor(OPS)({
        listNotes: async () => ({ data: [], pagination: pageOf(1, 20, 0) }),
        createNote: async ({ body }) => ({ id: 'x', text: body.text }),
      }),
  });
  handlersFor(OPS)({
    // @ts-expect-error a handler must return what the manifest documents
    getNote: async () => ({ id: 'x' }),
  });
}
