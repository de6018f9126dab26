import type { Server } from 'node:http';
import { closeServer, createServiceApp, listen } from '@helpdesk/kit';
import { startGateway, type RunningGateway } from '../src';
import { MemoryIdempotencyStore, MemoryRateLimitStore, type RateLimitStore } from '../src/store/rate-limits-and-idempotency';
import { logger, tokens } from './helpers';

/**
 * The keyless help center is limited per client address (docs/adr/0016): every page counts, a 404
 * included; over the limit a 429 page with Retry-After, and the knowledge service is not asked.
 * With the rate-limit store down the pages are still served.
 */
let knowledge: Server;
let knowledgeUrl: string;
let pagesAsked = 0;

beforeAll(async () => {
  const app = createServiceApp({
    name: 'knowledge',
    logger,
    tokens,
    routes: (r) => {
      r.get('/internal/help-center/page', (_req, res) => {
        pagesAsked++;
        // The answer the manifest declares (renderHelpCenterPage): the gateway's typed client checks it.
        res.json({ success: true, data: { status: 200, title: 'Help home', html: '<!doctype html><p>Help home</p>' }, meta: {} });
      });
    },
  });
  knowledge = await listen(app, 0, '127.0.0.1');
  knowledgeUrl = `http://127.0.0.1:${(knowledge.address() as { port: number }).port}`;
});
afterAll(async () => {
  await closeServer(knowledge);
});

async function gatewayWith(rateLimits: RateLimitStore, trustedProxies?: string[]): Promise<{ gw: RunningGateway; home: string; origin: string }> {
  const gw = await startGateway({
    trustedProxies,
    port: 0,
    mongoUrl: 'memory:',
    tokens,
    logger,
    services: { knowledge: knowledgeUrl },
    stores: { rateLimits, idempotency: new MemoryIdempotencyStore() },
    helpCenterPerMinute: 3,
  });
  const team = await gw.admin.createTeam({ name: 'Limited Help' });
  const origin = new URL(gw.url).origin;
  return { gw, home: `${origin}/help/${team.slug}`, origin };
}

it('the fourth page in a minute from one address is a 429 page with Retry-After; the service is not asked', async () => {
  const { gw, home, origin } = await gatewayWith(new MemoryRateLimitStore());
  try {
    pagesAsked = 0;
    expect((await fetch(home)).status).toBe(200);
    // A 404 counts too.
    expect((await fetch(`${origin}/help/no-such-team`)).status).toBe(404);
    expect((await fetch(home)).status).toBe(200);
    const limited = await fetch(home);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(await limited.text()).toContain('Too many requests');
    expect(pagesAsked).toBe(2);
  } finally {
    await gw.stop();
  }
});

it('with the rate-limit store down, pages are still served', async () => {
  const down: RateLimitStore = { hit: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6379')), close: async () => {} };
  const { gw, home } = await gatewayWith(down);
  try {
    for (let i = 0; i < 5; i++) expect((await fetch(home)).status).toBe(200);
  } finally {
    await gw.stop();
  }
});

describe('behind proxies (TRUSTED_PROXIES): the client address of X-Forwarded-For', () => {
  /** The statuses of pages asked for with each X-Forwarded-For in turn. */
  async function statuses(trustedProxies: string[] | undefined, forwardedFor: string[]): Promise<number[]> {
    const { gw, home } = await gatewayWith(new MemoryRateLimitStore(), trustedProxies);
    try {
      const out: number[] = [];
      for (const xff of forwardedFor) out.push((await fetch(home, { headers: { 'x-forwarded-for': xff } })).status);
      return out;
    } finally {
      await gw.stop();
    }
  }

  it('from an untrusted hop, two different forged values share the one limit of the peer', async () => {
    expect(await statuses(undefined, ['203.0.113.1', '203.0.113.2', '203.0.113.1', '203.0.113.2'])).toEqual([200, 200, 200, 429]);
  });

  it('behind a trusted proxy, two clients get a limit each', async () => {
    const a = '203.0.113.1';
    const b = '203.0.113.2';
    expect(await statuses(['loopback'], [a, a, a, b, b, b, a, b])).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
  });

  it('a forged left-most value behind trusted proxies counts for the right-most untrusted address', async () => {
    const trusted = ['127.0.0.0/8', '::1', '10.0.0.0/8'];
    const chain = (forged: string) => `${forged}, 203.0.113.5, 10.0.0.7`;
    expect(await statuses(trusted, [chain('1.1.1.1'), chain('2.2.2.2'), chain('3.3.3.3'), chain('4.4.4.4'), '203.0.113.6'])).toEqual([200, 200, 200, 429, 200]);
  });
});
