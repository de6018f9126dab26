/**
 * A service given as several base URLs, its replicas' (docs/adr/0075): the gateway takes them in turn
 * per request and per held stream, hands a request whose connection a replica refuses (stopped,
 * restarting) to the next one, never sends one twice that a replica received, and reports the
 * service ready while one replica is. Also why it does not lean on undici's BalancedPool alone: that
 * one fails the requests it sends to a stopped replica.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { BalancedPool } from 'undici';
import { ApiError, closeServer, createLogger, createServiceApp, listen } from '@helpdesk/kit';
import { ROLE_PERMISSIONS, type KeyAccess } from '@helpdesk/contracts';
import { REPLICA_RESTING_MS, Upstreams } from '../src/proxy';
import { startGateway } from '../src/index';
import { logger, tokens } from './helpers';

/** Nothing listens there: connection refused. */
const REFUSED = 'http://127.0.0.1:9';

interface Replica {
  name: string;
  url: string;
  seen: string[];
  server: Server;
  stop(): Promise<void>;
  start(): Promise<void>;
}

/** A replica that answers its name, holds `/hold` open as an event stream, and drops `/gone` unanswered. */
async function replica(name: string): Promise<Replica> {
  const seen: string[] = [];
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      seen.push(`${req.method} ${req.url}`);
      if (req.url === '/base/hold') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`data: ${name}\n\n`);
        return;
      }
      if (req.url === '/base/gone') return void res.destroy();
      if (req.url === '/base/readyz') return void res.writeHead(r.ready ? 200 : 503).end();
      res.writeHead(200, { 'content-type': 'text/plain' }).end(name);
    });
  };
  let port = 0;
  const r = {
    name,
    url: '',
    seen,
    ready: true,
    server: createServer(handler),
    async start() {
      r.server = createServer(handler);
      await new Promise<void>((resolve) => r.server.listen(port, '127.0.0.1', resolve));
      port = (r.server.address() as AddressInfo).port;
      r.url = `http://127.0.0.1:${port}/base`;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        r.server.closeAllConnections();
        r.server.close(() => resolve());
      }),
  };
  await r.start();
  return r;
}

let a: Replica & { ready: boolean };
let b: Replica & { ready: boolean };
let upstreams: Upstreams;

beforeEach(async () => {
  a = (await replica('a')) as Replica & { ready: boolean };
  b = (await replica('b')) as Replica & { ready: boolean };
  upstreams = new Upstreams({ svc: [a.url, b.url], lone: [REFUSED, `${REFUSED}0`] }, createLogger('test', 'silent'));
});
afterEach(async () => {
  await upstreams.close();
  await a.stop().catch(() => {});
  await b.stop().catch(() => {});
});

const forward = (path: string, method = 'GET', service = 'svc') =>
  upstreams.forward({ service, method, pathAndQuery: path, body: method === 'POST' ? Buffer.from('{}') : null, contentType: method === 'POST' ? 'application/json' : undefined, token: 'tok', requestId: 'req_replicas0001' });
const hold = async (service = 'svc') => {
  const answer = await upstreams.openStream({ service, pathAndQuery: '/hold', token: 'tok', requestId: 'req_replicas0002' }, new AbortController().signal);
  const first = String((await answer.body[Symbol.asyncIterator]().next()).value);
  return { from: first.slice(6, 7), close: () => answer.body.destroy() };
};

it('requests and held streams take the replicas in turn', async () => {
  const answers: string[] = [];
  for (let i = 0; i < 6; i++) answers.push((await forward('/x', i % 2 ? 'POST' : 'GET')).body.toString());
  expect(answers.sort()).toEqual(['a', 'a', 'a', 'b', 'b', 'b']);
  expect([a.seen.length, b.seen.length]).toEqual([3, 3]);
  const streams = await Promise.all(Array.from({ length: 6 }, () => hold()));
  expect(streams.map((s) => s.from).sort()).toEqual(['a', 'a', 'a', 'b', 'b', 'b']);
  for (const s of streams) s.close();
});

it('a stopped replica fails no request and no stream: each goes to the other, a write exactly once', async () => {
  await forward('/warm');
  await a.stop();
  a.seen.length = 0;
  b.seen.length = 0;
  for (let i = 0; i < 10; i++) expect((await forward(`/w${i}`, 'POST')).body.toString()).toBe('b');
  expect(b.seen).toEqual(Array.from({ length: 10 }, (_, i) => `POST /base/w${i}`));
  const streams = await Promise.all(Array.from({ length: 4 }, () => hold()));
  expect(streams.map((s) => s.from)).toEqual(['b', 'b', 'b', 'b']);
  for (const s of streams) s.close();
});

it('a replica back on its port takes its turn again once its rest is over', async () => {
  await a.stop();
  for (let i = 0; i < 4; i++) await forward('/x');
  await a.start();
  await new Promise((r) => setTimeout(r, REPLICA_RESTING_MS + 100));
  a.seen.length = 0;
  for (let i = 0; i < 4; i++) await forward('/x');
  expect(a.seen.length).toBe(2);
});

it('every replica refusing is the 503 service_unavailable', async () => {
  for (const call of [() => forward('/x', 'GET', 'lone'), () => hold('lone')]) {
    const err = await call().then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('service_unavailable');
  }
});

it('a replica that received the request and failed it is not asked again elsewhere (a write is never sent twice)', async () => {
  for (let i = 0; i < 2; i++) {
    const err = await forward('/gone', 'POST').then(() => null, (e: unknown) => e);
    expect((err as ApiError).code).toBe('service_unavailable');
  }
  // Two requests, one replica each: neither was passed on to the other replica.
  expect([a.seen, b.seen]).toEqual([['POST /base/gone'], ['POST /base/gone']]);
});

it('the service is ready while one replica is', async () => {
  a.ready = false;
  expect(await upstreams.states(['svc'])).toMatchObject({ svc: 'ready' });
  await upstreams.close();
  b.ready = false;
  upstreams = new Upstreams({ svc: [a.url, b.url] }, createLogger('test', 'silent'));
  expect(await upstreams.states(['svc'])).toMatchObject({ svc: 'unreachable' });
});

it("undici's BalancedPool alone fails the requests it sends to a stopped replica (why the gateway rotates itself)", async () => {
  await a.stop();
  const pool = new BalancedPool([new URL(a.url).origin, new URL(b.url).origin]);
  let failed = 0;
  for (let i = 0; i < 20; i++) {
    await pool.request({ method: 'GET', path: '/base/x' }).then(
      (res) => res.body.dump(),
      (err: { code?: string }) => {
        expect(err.code).toBe('ECONNREFUSED');
        failed++;
      },
    );
  }
  await pool.close();
  expect(failed).toBeGreaterThan(0);
});

describe("the gateway's own calls to a workspace of several replicas", () => {
  let workspace: Server;
  const asked: string[] = [];
  beforeAll(async () => {
    const routes = (app: Express) => {
      app.get('/internal/access', (req, res) => {
        asked.push('access');
        const data: KeyAccess = { team: null, member: { id: req.query.memberId as string, role: 'owner', permissions: [...ROLE_PERMISSIONS.owner] } };
        res.json({ success: true, data, meta: { requestId: 'req_x', timestamp: new Date().toISOString() } });
      });
      app.post('/internal/owner', (req, res) => {
        asked.push('owner');
        const member = {
          id: 'mem_owner0000000000000000000', userId: '00000000-0000-4000-8000-000000000000', name: req.body.name, email: req.body.email,
          avatarUrl: null, role: 'owner', roleDisplayName: 'Guild Master', permissions: [...ROLE_PERMISSIONS.owner], level: 1, xp: 0,
          joinedAt: new Date().toISOString(),
        };
        res.status(201).json({ success: true, data: member, meta: { requestId: 'req_x', timestamp: new Date().toISOString() } });
      });
    };
    workspace = await listen(createServiceApp({ name: 'workspace', logger, tokens, routes }), 0, '127.0.0.1');
  });
  afterAll(() => closeServer(workspace));

  it('go over the upstream pools, past a replica that refuses', async () => {
    const url = `http://127.0.0.1:${(workspace.address() as AddressInfo).port}`;
    const gw = await startGateway({ port: 0, mongoUrl: 'memory:', tokens, logger, keyCacheTtlMs: 0, services: { ticketing: [a.url, b.url], workspace: [REFUSED, url] } });
    try {
      const team = await gw.admin.createTeam({ name: 'Replica Co', owner: { name: 'Olga', email: 'olga@example.com' } });
      expect((await gw.admin.getTeam(team.id))?.ownerMemberId).toBe('mem_owner0000000000000000000');
      const { key } = await gw.admin.createKey({ teamId: team.id, type: 'secret', mode: 'test' });
      for (let i = 0; i < 2; i++) {
        const res = await fetch(`${gw.url}/teams/${team.id}/tickets`, { headers: { authorization: `Bearer ${key}` } });
        expect(res.status).toBe(200);
      }
      expect(asked).toEqual(['owner', 'access', 'access']);
      // ticketing's two replicas each had one of the two proxied requests
      expect([a.seen.length, b.seen.length]).toEqual([1, 1]);
    } finally {
      await gw.stop();
    }
  });
});
