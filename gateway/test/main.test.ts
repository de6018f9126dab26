import { startEmbeddedMongo } from '@helpdesk/mongo-embedded';
import { refusedMain, startMain } from './main-process';

it('main.ts starts from the environment, answers, and shuts down cleanly on SIGTERM', async () => {
  const mongo = await startEmbeddedMongo();
  const main = await startMain({
    PORT: '0',
    HOST: '127.0.0.1',
    MONGO_URL: mongo.uri(),
    REDIS_URL: '',
    INTERNAL_TOKEN_SECRET: 'a'.repeat(40),
    SERVICE_URLS: 'ticketing=http://127.0.0.1:1',
    // Without Redis: the development switch (docs/adr/0038).
    HELPDESK_EMBEDDED: '1',
    METRICS_PORT: '0',
    LOG_LEVEL: 'info',
  });
  const r = await fetch(`${main.url}/auth/whoami`);
  expect(r.status).toBe(401);
  expect(r.headers.get('x-svc-request-id')).toMatch(/^req_/);
  expect(await main.stop()).toBe(0);
  await mongo.close();
}, 30_000);

it('main.ts refuses to start with a bad environment, naming the variable', async () => {
  const { code, output } = await refusedMain({ MONGO_URL: '', INTERNAL_TOKEN_SECRET: 'short', SERVICE_URLS: 'ticketing' });
  expect(code).toBe(1);
  expect(output).toMatch(/MONGO_URL/);
  expect(output).toMatch(/INTERNAL_TOKEN_SECRET/);
  expect(output).toMatch(/SERVICE_URLS/);
}, 30_000);

const deployed = {
  MONGO_URL: 'mongodb://127.0.0.1:1/gateway',
  REDIS_URL: 'redis://127.0.0.1:1',
  INTERNAL_TOKEN_SECRET: 'a'.repeat(40),
  SERVICE_URLS: 'ticketing=http://ticketing:3000',
  HELPDESK_EMBEDDED: '',
};

it('main.ts refuses a bad TRUSTED_PROXIES entry, naming the variable, before connecting to anything', async () => {
  const { code, output } = await refusedMain({ ...deployed, TRUSTED_PROXIES: '10.0.0.0/8,10.0.0.0/33' });
  expect(code).toBe(1);
  expect(output).toMatch(/TRUSTED_PROXIES: invalid range on address: 10\.0\.0\.0\/33/);
}, 30_000);

it('main.ts refuses a SERVICE_URLS that names no service unless HELPDESK_EMBEDDED=1', async () => {
  const { code, output } = await refusedMain({ ...deployed, SERVICE_URLS: ' , ' });
  expect(code).toBe(1);
  expect(output).toMatch(/SERVICE_URLS: required/);
}, 30_000);

it('main.ts refuses to start without SECRETS_KEY unless HELPDESK_EMBEDDED=1 (Idempotency-Key answers are sealed with it, docs/adr/0067)', async () => {
  const { code, output } = await refusedMain(deployed);
  expect(code).toBe(1);
  expect(output).toMatch(/SECRETS_KEY: required \(or HELPDESK_EMBEDDED=1 for development: Idempotency-Key answers kept unsealed\)/);
  const short = await refusedMain({ ...deployed, SECRETS_KEY: 'short' });
  expect(short.output).toMatch(/SECRETS_KEY: must be at least 32 characters/);
}, 30_000);
