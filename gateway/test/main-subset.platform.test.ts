/**
 * One service deployed at a time: main.ts, configured as in production (no HELPDESK_EMBEDDED, a real
 * Redis), starts with only some services in SERVICE_URLS, says at start which have none, answers
 * their routes 503 `service_unavailable` naming no address, and reports every service in `/readyz`.
 */
import type { Server } from 'node:http';
import { closeServer, createServiceApp, listen } from '@helpdesk/kit';
import { startEmbeddedMongo, type EmbeddedMongo } from '@helpdesk/mongo-embedded';
import { createGatewayAdmin } from '../src';
import { logger, tokens } from './helpers';
import { startMain } from './main-process';

const REDIS_URL = process.env.REDIS_URL;

(REDIS_URL ? describe : describe.skip)('main.ts with some services configured', () => {
  let mongo: EmbeddedMongo;
  let customers: Server;
  let main: Awaited<ReturnType<typeof startMain>>;
  let teamUrl: string;
  let key: string;

  beforeAll(async () => {
    mongo = await startEmbeddedMongo();
    customers = await listen(createServiceApp({ name: 'customers', logger, tokens, routes: () => {} }), 0, '127.0.0.1');
    const admin = await createGatewayAdmin(mongo.uri(), 'gateway');
    const team = await admin.createTeam({ name: 'Partly Deployed' });
    key = (await admin.createKey({ teamId: team.id, type: 'secret', mode: 'test' })).key;
    await admin.close();
    main = await startMain({
      PORT: '0',
      HOST: '127.0.0.1',
      MONGO_URL: mongo.uri(),
      MONGO_DB: 'gateway',
      REDIS_URL: REDIS_URL!,
      REDIS_KEY_PREFIX: `hd:test:subset:${process.pid}:${Date.now()}:`,
      INTERNAL_TOKEN_SECRET: 'a'.repeat(40),
      SECRETS_KEY: 's'.repeat(40),
      // customers answers; knowledge refuses connections; every other service has no URL.
      SERVICE_URLS: `customers=http://127.0.0.1:${(customers.address() as { port: number }).port},knowledge=http://127.0.0.1:9`,
      HELPDESK_EMBEDDED: '',
      METRICS_PORT: '0',
      LOG_LEVEL: 'info',
    });
    teamUrl = `${main.url}/teams/${team.id}`;
  }, 30_000);

  afterAll(async () => {
    await main?.stop();
    await closeServer(customers);
    await mongo.close();
  });

  it('starts, and says at info level which services have no URL', () => {
    const line = main.child
      .output()
      .split('\n')
      .find((l) => l.includes('servicesWithoutUrl'));
    expect(line).toBeDefined();
    const logged = JSON.parse(line!) as { level: number; servicesWithoutUrl: string[] };
    expect(logged.level).toBe(30);
    expect(logged.servicesWithoutUrl).toEqual(expect.arrayContaining(['ticketing', 'webhooks', 'workspace']));
    expect(logged.servicesWithoutUrl).not.toContain('customers');
  });

  it.each([
    ['without a URL', '/tickets', 'ticketing'],
    ['configured but refusing connections', '/articles', 'knowledge'],
  ])('a route of a service %s answers 503 service_unavailable with Retry-After, naming no address', async (_what, path, service) => {
    const res = await fetch(`${teamUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({
      success: false,
      error: { type: 'api_error', code: 'service_unavailable', message: `The ${service} service is temporarily unavailable; retry later.` },
    });
    expect(text).not.toMatch(/127\.0\.0\.1|:9\b/);
  });

  it('/readyz is 200 and lists each service', async () => {
    const res = await fetch(`${main.url.replace(/\/api\/v1$/, '')}/readyz`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { status: string; upstreams: Record<string, string> } };
    expect(body.data.status).toBe('ok');
    expect(body.data.upstreams).toMatchObject({ customers: 'ready', knowledge: 'unreachable', ticketing: 'not_configured', workspace: 'not_configured' });
  });
});
