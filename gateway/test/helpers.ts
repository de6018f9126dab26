import type { Server } from 'node:http';
import type { Express } from 'express';
import { createLogger, createServiceApp, InternalTokens, listen, closeServer, ApiError } from '@helpdesk/kit';
import { PARTITIONS, type InternalClaims } from '@helpdesk/contracts';
import { startEmbeddedMongo, type EmbeddedMongo } from '@helpdesk/mongo-embedded';
import { startGateway, type GatewayOptions, type RunningGateway, type Team } from '../src/index';

export const SECRET = 'test-internal-token-secret-0123456789abcdef';
export const tokens = new InternalTokens(SECRET);
export const logger = createLogger('gateway-test', 'silent');

export interface Seen {
  method: string;
  url: string;
  body: unknown;
  contentType: string | undefined;
  contentLength: string | undefined;
  authorization: string | undefined;
  ctx: InternalClaims;
}

/** A tiny ticketing stand-in built with kit's createServiceApp: verifies the internal token and echoes what it saw. */
export async function startBackend(): Promise<{ url: string; seen: Seen[]; calls: () => number; release: () => void; stop: () => Promise<void> }> {
  const seen: Seen[] = [];
  // `{"hold": true}` keeps a request running until the test calls release(): a race without a timing guess
  let releaseHeld: () => void = () => undefined;
  let held = new Promise<void>((r) => (releaseHeld = r));
  const release = () => {
    releaseHeld();
    held = new Promise<void>((r) => (releaseHeld = r));
  };
  const routes = (app: Express) => {
    app.all(/^\/teams\/.*/, async (req, res) => {
      const ctx = res.locals.ctx as InternalClaims;
      const s: Seen = {
        method: req.method,
        url: req.originalUrl,
        body: req.body,
        contentType: req.headers['content-type'],
        contentLength: req.headers['content-length'],
        authorization: req.headers.authorization,
        ctx,
      };
      seen.push(s);
      const body = (req.body ?? {}) as Record<string, unknown>;
      if (typeof body.delayMs === 'number') await new Promise((r) => setTimeout(r, body.delayMs as number));
      if (body.hold === true) await held;
      if (body.fail === 'crash') throw new Error('backend exploded at /secret/path.ts:42');
      if (body.fail === 'conflict') throw new ApiError('resource_conflict', 'duplicate');
      res.status(req.method === 'POST' ? 201 : 200).json({
        success: true,
        data: { method: req.method, url: req.originalUrl, body: req.body ?? null, ctx, n: seen.length, at: Date.now() + Math.random() },
        meta: { requestId: ctx.requestId, timestamp: new Date().toISOString() },
      });
    });
  };
  const app = createServiceApp({ name: 'ticketing', logger, tokens, routes });
  const server: Server = await listen(app, 0, '127.0.0.1');
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, seen, calls: () => seen.length, release, stop: () => closeServer(server) };
}

export type Embedded = Pick<EmbeddedMongo, 'uri' | 'close'>;

/** The embedded MongoDB: the gateway's real mongoose models run on it in every test. */
export function startMongo(): Promise<Embedded> {
  return startEmbeddedMongo();
}

export interface Keys {
  sk_test: string;
  sk_live: string;
  pk_test: string;
  pk_live: string;
}

export interface Harness {
  gw: RunningGateway;
  team: Team;
  other: Team;
  keys: Keys;
  ids: Record<keyof Keys, string>;
  otherKey: string;
  backend: Awaited<ReturnType<typeof startBackend>>;
  base: string;
  teamUrl: string;
  stop(): Promise<void>;
}

export async function startHarness(extra: Partial<GatewayOptions> = {}, mongo?: Embedded): Promise<Harness> {
  const ownMongo = mongo ? null : await startMongo();
  const m = mongo ?? ownMongo!;
  const backend = await startBackend();
  const gw = await startGateway({
    port: 0,
    mongoUrl: m.uri(),
    dbName: `gw_${Math.random().toString(36).slice(2, 10)}`,
    tokens,
    logger,
    keyCacheTtlMs: 0,
    ...extra,
    // `extra.services` are added to (or replace) the backend as ticketing.
    services: { ticketing: backend.url, ...extra.services },
  });
  const team = await gw.admin.createTeam({ name: 'Acme Support' });
  const other = await gw.admin.createTeam({ name: 'Other Team' });
  const keys = {} as Keys;
  const ids = {} as Record<keyof Keys, string>;
  for (const type of ['secret', 'publishable'] as const) {
    for (const mode of PARTITIONS) {
      const name = `${type === 'secret' ? 'sk' : 'pk'}_${mode}` as keyof Keys;
      const { key, record } = await gw.admin.createKey({ teamId: team.id, type, mode, name });
      keys[name] = key;
      ids[name] = record.id;
    }
  }
  const otherKey = (await gw.admin.createKey({ teamId: other.id, type: 'secret', mode: 'test' })).key;
  return {
    gw,
    team,
    other,
    keys,
    ids,
    otherKey,
    backend,
    base: gw.url,
    teamUrl: `${gw.url}/teams/${team.id}`,
    async stop() {
      await gw.stop();
      await backend.stop();
      if (ownMongo) await ownMongo.close();
    },
  };
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
export const jsonHeaders = (key: string, extra: Record<string, string> = {}) => ({
  authorization: `Bearer ${key}`,
  'content-type': 'application/json',
  ...extra,
});
