import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { PERMISSIONS, type InternalClaims, type Permission, type Partition } from '@helpdesk/contracts';
import type { InternalTokens } from '@helpdesk/kit';

/** Service-level tests: calling one service as the gateway would, and running its standalone process. */

const ROOT = path.resolve(__dirname, '../../..');

/** The internal-token secret service tests share (any 32+ characters). */
export const TEST_INTERNAL_SECRET = 'test-secret-test-secret-test-secret-0123';

/** Who the call claims to be; every field has a default (a secret test key with every permission). */
export interface Caller {
  teamId?: string;
  mode?: Partition;
  keyType?: InternalClaims['keyType'];
  permissions?: Permission[];
  memberId?: string | null;
  /** The key's id (a console session's `ses_…` with keyType `session`); default a fixed key id. */
  keyId?: string;
}

export interface Reply {
  status: number;
  body: any;
  headers: Headers;
  requestId: string;
}

export interface CallOptions {
  /** null: no token at all. */
  as?: Caller | null;
  body?: unknown;
  rawBody?: string;
  /** Sent as the token instead of a minted one (forged or expired token tests). */
  token?: string;
  /** More request headers (what the gateway forwards, such as an Idempotency-Key's). */
  headers?: Record<string, string>;
}

/**
 * `call(base, method, path, opts)`: a request with a freshly minted internal token, as the gateway
 * sends it. `{team}` in the path is the caller's team (`defaultTeam` unless `as.teamId`).
 */
export function serviceCaller(tokens: InternalTokens, defaultTeam: string) {
  let seq = 0;
  return async function call(base: string, method: string, path: string, opts: CallOptions = {}): Promise<Reply> {
    const as = opts.as === undefined ? {} : opts.as;
    const requestId = `req_t${++seq}${Math.random().toString(36).slice(2, 10)}`;
    const headers: Record<string, string> = { 'content-type': 'application/json', ...opts.headers };
    if (opts.token !== undefined) headers['x-internal-token'] = opts.token;
    else if (as) {
      headers['x-internal-token'] = await tokens.sign({
        teamId: as.teamId ?? defaultTeam,
        mode: as.mode ?? 'test',
        keyId: as.keyId ?? 'key_testkey0001',
        keyType: as.keyType ?? 'secret',
        memberId: as.memberId === undefined ? 'mem_member000001' : as.memberId,
        permissions: as.permissions ?? [...PERMISSIONS],
        requestId,
      });
    }
    const res = await fetch(base + path.replace('{team}', as?.teamId ?? defaultTeam), {
      method,
      headers,
      body: opts.rawBody ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers, requestId };
  };
}

export interface ServiceProcess {
  child: ChildProcess;
  exited: Promise<number | null>;
  out(): string;
  err(): string;
  /** Resolves with the `http://127.0.0.1:port` the process logged it listens on. */
  listening(timeoutMs?: number): Promise<string>;
}

/**
 * Runs a process entry (`services/<name>/src/main.ts`) with only PATH and `env` in its environment.
 * METRICS_PORT defaults to 0 (any free port): jest runs several of these at once, and the
 * documented default 9464 would be taken by whichever started first.
 */
export function runServiceProcess(entry: string, env: Record<string, string>): ServiceProcess {
  // node itself with tsx's loader, as the launcher runs a service: no wrapper process in between, whose
  // signal relay could kill the service (exit 143) before it has told the wrapper it handles SIGTERM.
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', path.join(ROOT, entry)], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', METRICS_PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve((exitCode = code))));
  return {
    child,
    exited,
    out: () => out,
    err: () => err,
    async listening(timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const url = /"url":"(http:\/\/[^"]+)"/.exec(out)?.[1];
        if (url) return url.replace('0.0.0.0', '127.0.0.1');
        if (exitCode !== undefined) throw new Error(`${entry} exited (${exitCode}) before logging its url: ${out}${err}`);
        if (Date.now() > deadline) throw new Error(`${entry} did not log its url: ${out}${err}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}
