/**
 * Signing secrets at rest (docs/adr/0067): sealed with SECRETS_KEY, so the raw database (read through
 * the driver, not the model) holds no secret; values stored in the clear before are sealed at the next
 * start; the rotation command moves every value to a new key; a process without the key a secret is
 * under cannot sign with it and says so in the delivery log. Deliveries keep verifying throughout.
 */
import mongoose from 'mongoose';
import { Webhook } from 'standardwebhooks';
import { createBus, forwardedIdempotencyKey, IDEMPOTENCY_FINGERPRINT_HEADER, IDEMPOTENCY_KEY_HEADER, newSecretsKey, SecretBox, type EventBus } from '@helpdesk/kit';
import { startEmbeddedMongo, type EmbeddedMongo } from '@helpdesk/mongo-embedded';
import { envelope, eventually, logger, Receiver, ticketFixture, tokens } from '@helpdesk/testing';
import { runCli } from '../src/cli';
import { startWebhooks, type RunningWebhooks } from '../src/index';
import { call, TEAM_A } from './helpers';
import { verify } from './octokit';

const W = '/teams/{team}/webhooks';
const KEY_A = newSecretsKey();
const KEY_B = newSecretsKey();

let m: EmbeddedMongo;
let rx: Receiver;
/** The driver on the same server, beside the service: what a person with database access reads. */
let client: mongoose.mongo.MongoClient;
const running: { svc: RunningWebhooks; bus: EventBus }[] = [];
beforeAll(async () => {
  m = await startEmbeddedMongo();
  rx = await Receiver.start();
  client = await new mongoose.mongo.MongoClient(m.uri()).connect();
});
afterAll(async () => {
  for (const r of running) {
    await r.svc.stop();
    await r.bus.close();
  }
  await rx?.close();
  await client?.close();
  await m?.close();
});

async function start(dbName: string, box: SecretBox) {
  const bus = createBus({ logger });
  const svc = await startWebhooks({ mongoUrl: m.uri(), dbName, bus, tokens, logger, secrets: box, settings: { allowLoopback: true, retryScheduleMs: [100], jitter: 0, pollIntervalMs: 50 } });
  const r = { svc, bus };
  running.push(r);
  return {
    ...r,
    async stop() {
      running.splice(running.indexOf(r), 1);
      await svc.stop();
      await bus.close();
    },
  };
}

/** Every document of every collection of a service database, through the driver. */
async function rawDatabase(name: string): Promise<string> {
  const db = client.db(name);
  const texts: string[] = [];
  for (const c of await db.listCollections().toArray()) texts.push(JSON.stringify(await db.collection(c.name).find({}).toArray()));
  return texts.join('\n');
}

const ticketEvent = () => envelope('ticket.created', { ticket: ticketFixture(null) }, { teamId: TEAM_A });

/** Publishes a ticket event and returns the request the receiver got for `path`, verified with `secret` both ways. */
async function deliveredAndVerified(bus: EventBus, path: string, secret: string) {
  const before = rx.forPath(path).length;
  await bus.publish([ticketEvent()]);
  const [req] = (await rx.waitFor(() => rx.forPath(path).length > before, `a delivery to ${path}`)).filter((r) => r.path === path).slice(-1);
  expect(await verify(secret, req!.body, String(req!.headers['x-svc-signature']))).toBe(true);
  expect(() => new Webhook(secret).verify(req!.body, req!.headers as Record<string, string>)).not.toThrow();
  return req!;
}

test('the raw database holds no signing secret: neither the webhook nor the answer kept for its Idempotency-Key', async () => {
  const s = await start('sealed', new SecretBox(KEY_A));
  const created = await call(s.svc.url, 'POST', W, { body: { name: 'plain?', url: rx.url('/sealed'), events: 'ticket.created' } });
  const keyed = await call(s.svc.url, 'POST', W, {
    body: { name: 'keyed', url: rx.url('/sealed-keyed'), events: 'ticket.created' },
    headers: { [IDEMPOTENCY_KEY_HEADER]: forwardedIdempotencyKey('idem-1'), [IDEMPOTENCY_FINGERPRINT_HEADER]: 'fp' },
  });
  expect([created.status, keyed.status]).toEqual([201, 201]);
  const secrets = [created.body.data.secret, keyed.body.data.secret] as string[];
  for (const secret of secrets) expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  await deliveredAndVerified(s.bus, '/sealed', secrets[0]!);

  const raw = await rawDatabase('sealed');
  const record = await client.db('sealed').collection('idempotent_requests').findOne({});
  expect(record!.result).toMatch(/^enc:v1:/);
  for (const secret of secrets) {
    expect(raw).not.toContain(secret);
    // Nor its 32 bytes in another encoding.
    expect(raw).not.toContain(Buffer.from(secret.slice('whsec_'.length), 'base64').toString('hex'));
  }
  expect(raw).not.toContain('whsec_');
  const stored = await client.db('sealed').collection('webhooks').findOne({ _id: created.body.data.id });
  expect(stored!.secret).toMatch(new RegExp(`^enc:v1:${new SecretBox(KEY_A).keyId}:`));
  // The same key replays the same secret (the sealed record opens).
  const replay = await call(s.svc.url, 'POST', W, {
    body: { name: 'keyed', url: rx.url('/sealed-keyed'), events: 'ticket.created' },
    headers: { [IDEMPOTENCY_KEY_HEADER]: forwardedIdempotencyKey('idem-1'), [IDEMPOTENCY_FINGERPRINT_HEADER]: 'fp' },
  });
  expect(replay.body.data.secret).toBe(secrets[1]);
  await s.stop();
});

test('secrets stored in the clear before encryption at rest are sealed at the next start, and keep signing', async () => {
  const box = new SecretBox(KEY_A);
  const first = await start('legacy', box);
  const created = await call(first.svc.url, 'POST', W, { body: { name: 'old', url: rx.url('/legacy'), events: 'ticket.created' } });
  const id = created.body.data.id as string;
  const plain = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
  await first.stop();
  // As a release before encryption at rest stored it.
  await client.db('legacy').collection('webhooks').updateOne({ _id: id as never }, { $set: { secret: plain } });

  const upgraded = await start('legacy', box);
  const sealed = await eventually('sealed at start', async () => {
    const doc = await client.db('legacy').collection('webhooks').findOne({ _id: id as never });
    return SecretBox.isSealed(doc!.secret) ? doc!.secret : null;
  });
  expect(box.open(sealed, `webhooks.secret:${id}`)).toBe(plain);
  await deliveredAndVerified(upgraded.bus, '/legacy', plain);
  expect(await rawDatabase('legacy')).not.toContain(plain);
  await upgraded.stop();
});

test('rotation: the command moves every secret to the new key; a process with the new key alone signs with them', async () => {
  const before = await start('rotate', new SecretBox(KEY_A));
  const created = await call(before.svc.url, 'POST', W, { body: { name: 'rot', url: rx.url('/rotate'), events: 'ticket.created' } });
  const secret = created.body.data.secret as string;
  await before.stop();

  const out: string[] = [];
  const err: string[] = [];
  const io = (env: Record<string, string>) => ({ out: (l: string) => out.push(l), err: (l: string) => err.push(l), env });
  expect(await runCli(['secrets', 'rotate'], io({ MONGO_URL: m.uri(), MONGO_DB: 'rotate' }))).toBe(2);
  expect(err.at(-1)).toMatch(/SECRETS_KEY: required/);
  expect(await runCli(['secrets', 'spin'], io({}))).toBe(2);
  expect(err.at(-1)).toMatch(/^Usage: cli secrets rotate/);

  expect(await runCli(['secrets', 'rotate'], io({ MONGO_URL: m.uri(), MONGO_DB: 'rotate', SECRETS_KEY: KEY_B, SECRETS_KEY_PREVIOUS: KEY_A }))).toBe(0);
  expect(out.at(-1)).toMatch(/^signing secrets: 1 moved to key [A-Za-z0-9_-]{8}, 0 sealed from the clear/);
  expect(await runCli(['secrets', 'rotate'], io({ MONGO_URL: m.uri(), MONGO_DB: 'rotate', SECRETS_KEY: KEY_B, SECRETS_KEY_PREVIOUS: KEY_A }))).toBe(0);
  expect(out.at(-1)).toMatch(/^signing secrets: 0 moved/);

  const after = await start('rotate', new SecretBox(KEY_B));
  const doc = await client.db('rotate').collection('webhooks').findOne({});
  expect(SecretBox.keyIdOf(doc!.secret)).toBe(new SecretBox(KEY_B).keyId);
  await deliveredAndVerified(after.bus, '/rotate', secret);
  await after.stop();
});

test('a process without the key a secret is sealed with sends nothing and says why in the delivery log', async () => {
  const before = await start('wrong-key', new SecretBox(KEY_A));
  await call(before.svc.url, 'POST', W, { body: { name: 'x', url: rx.url('/wrong-key'), events: 'ticket.created' } });
  await before.stop();
  const wrong = await start('wrong-key', new SecretBox(KEY_B));
  await wrong.bus.publish([ticketEvent()]);
  const delivery = await eventually('a failed attempt', async () => {
    const d = await wrong.svc.conn.collection('deliveries').findOne({});
    return d && d.attempts.length ? d : null;
  });
  expect(delivery.attempts[0]).toMatchObject({ statusCode: null, error: expect.stringMatching(/^signing secret unavailable/) });
  expect(rx.forPath('/wrong-key')).toEqual([]);
  await wrong.stop();
});
