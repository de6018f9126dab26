/**
 * A write with an Idempotency-Key is recorded with the key in the owning service's transaction
 * (docs/adr/0062): the same key replays the first answer; a first attempt that committed and then
 * died before answering is answered, on retry, from what it committed (one write, the first id); the
 * same key with another body is 409; an answer naming an id that was never committed is refused.
 */
import mongoose from 'mongoose';
import { z } from 'zod';
import { defineOperations, PERMISSIONS, type Partition } from '@helpdesk/contracts';
import { startEmbeddedMongo, type EmbeddedMongo } from '@helpdesk/mongo-embedded';
import {
  createLogger,
  defineService,
  eventScopeOf,
  forwardedIdempotencyKey,
  handlersFor,
  IDEMPOTENCY_FINGERPRINT_HEADER,
  IDEMPOTENCY_KEY_HEADER,
  InternalTokens,
  MemoryBus,
  newId,
  newSecretsKey,
  scoped,
  SecretBox,
  startService,
  teamAndPartition,
  tenancyPlugin,
  withOutbox,
  type RunningService,
} from '../../src';

// Errors are logged: the deliberate 'died after commit' crashes below, and the cause should the unreachable-database case
// ever answer 500 instead of 503 (seen once in CI under load, not reproduced).
const logger = createLogger('idempotent-requests-test', 'error');
const tokens = new InternalTokens('i'.repeat(32));
const TEAM = '5a1c2a4e-8b7d-4c2a-9f1e-2b3c4d5e6f70';

interface NoteDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  text: string;
}
const noteSchema = new mongoose.Schema<NoteDoc>({ _id: String, text: String }, { versionKey: false });
noteSchema.plugin(tenancyPlugin);
const models = (conn: mongoose.Connection) => ({ notes: teamAndPartition((conn.models.Note as mongoose.Model<NoteDoc> | undefined) ?? conn.model<NoteDoc>('Note', noteSchema)) });

const note = z.object({ id: z.string(), text: z.string(), at: z.string() });
const body = z.strictObject({ text: z.string().min(1) });
const OPS = defineOperations({
  createNote: {
    service: 'demo', tag: 'Notes', method: 'POST', path: '/teams/{teamId}/notes', summary: 'Create a note (answer from the transaction)', permission: 'manage_tickets',
    keys: 'staff', params: { teamId: 'team' }, body, success: { status: 201, data: note, shape: 'envelope' }, errors: [],
  },
  createNoteBadly: {
    service: 'demo', tag: 'Notes', method: 'POST', path: '/teams/{teamId}/notes/badly', summary: 'Create a note (answer made outside the transaction)', permission: 'manage_tickets',
    keys: 'staff', params: { teamId: 'team' }, body, success: { status: 201, data: note, shape: 'envelope' }, errors: [],
  },
});

/** Holds the first 'race' request before its write until resolved. */
let holdFirstRace: Promise<void> | null = null;

/** The next request dies after its commit, before answering (as a killed process would leave it). */
let dieAfterCommit = false;
const afterCommit = () => {
  if (dieAfterCommit) {
    dieAfterCommit = false;
    throw new Error('died after commit');
  }
};

const definition = defineService({
  name: 'demo',
  operations: OPS,
  models,
  rules: ({ conn, models: m }) => ({ conn, notes: m.notes }),
  handlers: ({ conn, notes }) =>
    handlersFor(OPS)({
      createNote: async ({ ctx, body: b }) => {
        // The first 'race' attempt looks for the key's record, then waits here while another attempt runs.
        if (b.text === 'race' && holdFirstRace) {
          const hold = holdFirstRace;
          holdFirstRace = null;
          await hold;
        }
        const made = await withOutbox(conn, eventScopeOf(ctx), async (session) => {
          const doc = { _id: newId('ticket'), text: b.text };
          await scoped({ notes }, ctx).notes.create([doc], { session });
          return { id: doc._id, text: doc.text, at: new Date() };
        });
        afterCommit();
        return { ...made, at: made.at.toISOString() };
      },
      createNoteBadly: async ({ ctx, body: b }) => {
        const id = newId('ticket');
        await withOutbox(conn, eventScopeOf(ctx), async (session) => void (await scoped({ notes }, ctx).notes.create([{ _id: id, text: b.text }], { session })));
        afterCommit();
        return { id, text: b.text, at: new Date().toISOString() };
      },
    }),
});

let mongo: EmbeddedMongo;
let svc: RunningService;
beforeAll(async () => {
  mongo = await startEmbeddedMongo();
  svc = await startService(definition, { mongoUrl: mongo.uri(), bus: new MemoryBus(logger), tokens, logger });
});
afterAll(async () => {
  await svc?.stop();
  await mongo?.close();
});

const sign = () => tokens.sign({ teamId: TEAM, mode: 'test', keyId: 'key_x', keyType: 'secret', memberId: null, permissions: [...PERMISSIONS], requestId: 'req_idem0001' });
async function post(path: string, payload: unknown, key: string | null, fingerprint = 'fp-1', base = svc.url) {
  const res = await fetch(`${base}/teams/${TEAM}${path}`, {
    method: 'POST',
    headers: {
      'x-internal-token': await sign(),
      'content-type': 'application/json',
      ...(key ? { [IDEMPOTENCY_KEY_HEADER]: forwardedIdempotencyKey(key), [IDEMPOTENCY_FINGERPRINT_HEADER]: fingerprint } : {}),
    },
    body: JSON.stringify(payload),
  });
  return { status: res.status, body: (await res.json()) as any };
}
const notesNamed = (text: string) => svc.conn.collection('notes').countDocuments({ text });
const ledgerRow = (key: string) => svc.conn.collection('idempotent_requests').findOne({ _id: forwardedIdempotencyKey(key) as never });

test('the same key answers the first answer again and writes once', async () => {
  const first = await post('/notes', { text: 'once' }, 'k-once');
  expect(first.status).toBe(201);
  const again = await post('/notes', { text: 'once' }, 'k-once');
  expect(again.status).toBe(201);
  expect(again.body.data).toEqual(first.body.data);
  expect(await notesNamed('once')).toBe(1);
  const row = await ledgerRow('k-once');
  expect(row).toMatchObject({ fingerprint: 'fp-1' });
  expect(JSON.parse(row!.result).v).toEqual(first.body.data);
});

test('a first attempt that committed and died unanswered is answered on retry from what it committed', async () => {
  dieAfterCommit = true;
  const died = await post('/notes', { text: 'crash' }, 'k-crash');
  expect(died.status).toBe(500);
  const row = await ledgerRow('k-crash');
  expect(row?.steps).toHaveLength(1);
  expect(row?.result).toBeNull();
  const [stored] = await svc.conn.collection('notes').find({ text: 'crash' }).toArray();

  const retry = await post('/notes', { text: 'crash' }, 'k-crash');
  expect(retry.status).toBe(201);
  // The first attempt's id and time (a Date through the record), not a second note.
  expect(retry.body.data.id).toBe(stored!._id);
  expect(await notesNamed('crash')).toBe(1);
  const third = await post('/notes', { text: 'crash' }, 'k-crash');
  expect(third.body.data).toEqual(retry.body.data);
});

test('two attempts with one key at once (the gateway gave up on the first): the later committer answers the first committer\'s result', async () => {
  let release!: () => void;
  holdFirstRace = new Promise<void>((r) => (release = r));
  const slow = post('/notes', { text: 'race' }, 'k-race');
  // The slow attempt has looked up the key (no record yet) and waits; the second runs to its end.
  await new Promise((r) => setTimeout(r, 200));
  const fast = await post('/notes', { text: 'race' }, 'k-race');
  expect(fast.status).toBe(201);
  release();
  const late = await slow;
  expect(late.status).toBe(201);
  expect(late.body.data).toEqual(fast.body.data);
  expect(await notesNamed('race')).toBe(1);
});

test('the same key with another body is 409 idempotency_key_in_use and writes nothing', async () => {
  await post('/notes', { text: 'first body' }, 'k-other');
  const other = await post('/notes', { text: 'second body' }, 'k-other', 'fp-2');
  expect(other.status).toBe(409);
  expect(other.body.error).toMatchObject({ code: 'idempotency_key_in_use', param: 'Idempotency-Key' });
  expect(await notesNamed('second body')).toBe(0);
});

test('a retry whose answer names an id the first attempt never committed is refused, and writes nothing', async () => {
  dieAfterCommit = true;
  expect((await post('/notes/badly', { text: 'phantom' }, 'k-phantom')).status).toBe(500);
  const retry = await post('/notes/badly', { text: 'phantom' }, 'k-phantom');
  expect(retry.status).toBe(409);
  expect(retry.body.error.message).toMatch(/answer was lost/);
  expect(await notesNamed('phantom')).toBe(1);
});

test('without a key nothing is recorded; a write that failed records nothing', async () => {
  await post('/notes', { text: 'no key' }, null);
  await post('/notes', { text: 'no key' }, null);
  expect(await notesNamed('no key')).toBe(2);
  const bad = await post('/notes', { text: '' }, 'k-invalid');
  expect(bad.status).toBe(400);
  expect(await ledgerRow('k-invalid')).toBeNull();
});

test('the record expires with the gateway’s (24 h TTL index)', async () => {
  const indexes = await svc.conn.collection('idempotent_requests').indexes();
  expect(indexes.find((i) => i.key.createdAt === 1)?.expireAfterSeconds).toBe(24 * 3600);
});

describe('with a key of secrets at rest (docs/adr/0067)', () => {
  const box = new SecretBox(newSecretsKey());
  const start = (secrets?: SecretBox) => startService(definition, { mongoUrl: mongo.uri(), dbName: 'demo_sealed', bus: new MemoryBus(logger), tokens, logger, secrets });
  const rowOf = (s: RunningService, key: string) => s.conn.collection('idempotent_requests').findOne({ _id: forwardedIdempotencyKey(key) as never });

  test('the record is sealed (answers can carry a secret shown once), and replays, after a crash too', async () => {
    const sealed = await start(box);
    try {
      const first = await post('/notes', { text: 'sealed answer' }, 'k-sealed', 'fp-1', sealed.url);
      const row = await rowOf(sealed, 'k-sealed');
      expect(row!.result).toMatch(/^enc:v1:/);
      expect(JSON.stringify(row)).not.toContain('sealed answer');
      expect((await post('/notes', { text: 'sealed answer' }, 'k-sealed', 'fp-1', sealed.url)).body.data).toEqual(first.body.data);

      dieAfterCommit = true;
      expect((await post('/notes', { text: 'sealed crash' }, 'k-sealed-crash', 'fp-1', sealed.url)).status).toBe(500);
      expect((await rowOf(sealed, 'k-sealed-crash'))!.steps[0]).toMatch(/^enc:v1:/);
      const retry = await post('/notes', { text: 'sealed crash' }, 'k-sealed-crash', 'fp-1', sealed.url);
      expect(retry.status).toBe(201);
      expect(await sealed.conn.collection('notes').countDocuments({ text: 'sealed crash' })).toBe(1);
    } finally {
      await sealed.stop();
    }
  });

  test('records kept in the clear before the service had a key are sealed at its next start, and still replay', async () => {
    const plain = await start();
    const first = await post('/notes', { text: 'kept plain' }, 'k-plain', 'fp-1', plain.url);
    expect((await rowOf(plain, 'k-plain'))!.result).toContain('kept plain');
    await plain.stop();
    const sealed = await start(box);
    try {
      const row = await rowOf(sealed, 'k-plain');
      expect(row!.result).toMatch(/^enc:v1:/);
      expect(row!.steps.every((s: string) => s.startsWith('enc:v1:'))).toBe(true);
      expect((await post('/notes', { text: 'kept plain' }, 'k-plain', 'fp-1', sealed.url)).body.data).toEqual(first.body.data);
    } finally {
      await sealed.stop();
    }
  });
});

test('a write while the database is unreachable is 503 service_unavailable with Retry-After (retried, never kept for the key)', async () => {
  await mongo.close();
  const res = await fetch(`${svc.url}/teams/${TEAM}/notes`, {
    method: 'POST',
    headers: { 'x-internal-token': await sign(), 'content-type': 'application/json', [IDEMPOTENCY_KEY_HEADER]: forwardedIdempotencyKey('k-down'), [IDEMPOTENCY_FINGERPRINT_HEADER]: 'fp' },
    body: JSON.stringify({ text: 'down' }),
  });
  expect(res.status).toBe(503);
  expect(res.headers.get('retry-after')).toBe('1');
  expect(((await res.json()) as any).error).toMatchObject({ code: 'service_unavailable' });
}, 30_000);
