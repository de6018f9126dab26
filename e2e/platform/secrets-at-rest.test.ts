/**
 * Secrets at rest through the whole platform (docs/adr/0067): after a client has been shown a webhook
 * signing secret, an inbound-email secret and a new API key (each created with an Idempotency-Key, so
 * their answers are kept for replay), no database of the platform, read through the driver, holds any
 * of them; nor, with a real Redis, does the gateway's key space. The replays still answer them.
 */
import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import mongoose from 'mongoose';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { expectOk } from './helpdesk-helpers';
import { Receiver } from './webhooks-helpers';

const redisKeyPrefix = `hd:secrets-${randomBytes(4).toString('hex')}:`;
let tp: TestPlatform;
let rx: Receiver;
beforeAll(async () => {
  tp = await startTestPlatform({ webhooks: { allowLoopback: true }, redisKeyPrefix });
  rx = await Receiver.start();
}, 60_000);
afterAll(async () => {
  await tp?.stop();
  await rx?.close();
}, 60_000);

/** Every document of every database on the platform's MongoDB, through the driver. */
async function everyDatabase(): Promise<string> {
  const client = await new mongoose.mongo.MongoClient(tp.platform.mongoUrl).connect();
  try {
    const texts: string[] = [];
    const { databases } = await client.db().admin().listDatabases();
    for (const { name } of databases) {
      if (['admin', 'local', 'config'].includes(name)) continue;
      const db = client.db(name);
      for (const c of await db.listCollections().toArray()) texts.push(JSON.stringify(await db.collection(c.name).find({}).toArray()));
    }
    return texts.join('\n');
  } finally {
    await client.close();
  }
}

it('no database holds a secret the API showed once, and each replay still shows it', async () => {
  const idem = (key: string) => ({ headers: { 'Idempotency-Key': key } });
  const path = tp.teamPath;
  const webhook = expectOk(await tp.api.post(`${path}/webhooks`, { name: 'CRM', url: rx.url('/crm'), events: 'ticket.created' }, idem('secret-webhook')), 201);
  const inbound = expectOk(await tp.api.post(`${path}/inbound-email/secret`, undefined, idem('secret-inbound')), 201);
  const apiKey = expectOk(await tp.api.post(`${path}/api-keys`, { name: 'script' }, idem('secret-key')), 201);
  const secrets = [webhook.secret, inbound.secret, apiKey.key] as string[];
  for (const s of secrets) expect(typeof s).toBe('string');

  // The webhook signs with its secret: a delivery verifies (the sealed secret opens where it is used).
  expectOk(await tp.api.post(`${path}/tickets`, { title: 'signed' }), 201);
  await rx.waitFor((r) => r.length >= 1, 'a delivery');

  const stored = await everyDatabase();
  expect(stored).toContain('enc:v1:');
  for (const s of secrets) expect([s.slice(0, 10), stored.includes(s)]).toEqual([s.slice(0, 10), false]);

  if (process.env.REDIS_URL) {
    const redis = new Redis(process.env.REDIS_URL);
    try {
      const keys = await redis.keys(`${redisKeyPrefix}*`);
      const values = await Promise.all(keys.map(async (k) => ((await redis.type(k)) === 'string' ? String(await redis.get(k)) : '')));
      // An answer record is `d|fingerprint|status|type|body`, the body base64 when it is not sealed: decoded here.
      const bodies = values.filter((v) => v.startsWith('d|')).map((v) => v.slice(v.lastIndexOf('|') + 1));
      expect(bodies.length).toBeGreaterThanOrEqual(3);
      for (const body of bodies) expect(body).toMatch(/^enc:v1:/);
      const text = [...values, ...bodies.map((b) => Buffer.from(b, 'base64').toString('utf8'))].join('\n');
      for (const s of secrets) expect(text).not.toContain(s);
    } finally {
      redis.disconnect();
    }
  }

  // A replay answers the first answer again (its body, request id included).
  const replayed = async (res: Promise<{ status: number; body: any }>) => {
    const r = await res;
    expect(r.status).toBe(201);
    return r.body.data;
  };
  expect((await replayed(tp.api.post(`${path}/webhooks`, { name: 'CRM', url: rx.url('/crm'), events: 'ticket.created' }, idem('secret-webhook')))).secret).toBe(webhook.secret);
  expect((await replayed(tp.api.post(`${path}/inbound-email/secret`, undefined, idem('secret-inbound')))).secret).toBe(inbound.secret);
  expect((await replayed(tp.api.post(`${path}/api-keys`, { name: 'script' }, idem('secret-key')))).key).toBe(apiKey.key);
});
