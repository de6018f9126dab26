// `npm run start:processes` as an operator runs it: every process of deploy/registry.ts separately on
// real RabbitMQ and Redis (the infra pass; skipped without AMQP_URL and REDIS_URL), two notifications
// replicas whose streams each deliver every event (also after a reconnection to the other replica
// with Last-Event-ID), a killed process restarted, bad configuration refused naming the process and
// the variable, and SIGTERM stopping every process. Each run has its own exchange, queues and Redis
// keys; every wait is bounded, and cleanup kills only the process groups this file started.
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { EventSource } from 'eventsource';
import { PERMISSIONS } from '@helpdesk/contracts';
import { parseServiceUrls } from '@helpdesk/gateway';
import { InternalTokens } from '@helpdesk/kit';
import { PROCESSES } from '../../registry';
import { deleteAmqpNames, runProcesses, type ProcessInfo, type RunningProcesses } from '../src/run-processes';
import { cleanup, descendants, isRunning, root, tempDir, track, waitFor } from './processes';

/** The open sockets of a process (Linux). */
const socketsOf = (pid: number) =>
  readdirSync(`/proc/${pid}/fd`).filter((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:');
    } catch {
      return false;
    }
  }).length;

const AMQP_URL = process.env.AMQP_URL;
const REDIS_URL = process.env.REDIS_URL;
const describeInfra = AMQP_URL && REDIS_URL ? describe : describe.skip;
const SECRET = randomBytes(24).toString('hex');
const LAUNCHER = [process.execPath, ['--require', 'tsx/cjs', 'deploy/local/src/processes.ts']] as const;

/** The broker names of this file's runs, removed from the shared RabbitMQ at the end. */
const tags: string[] = [];
afterAll(async () => {
  if (!AMQP_URL) return;
  for (const tag of tags) await deleteAmqpNames(AMQP_URL, { exchange: `${tag}.events`, queuePrefix: tag });
});

/** A run's environment: its own data folder, any free ports, its own broker names and Redis keys. */
function runEnv(dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const tag = `sp${randomBytes(4).toString('hex')}`;
  tags.push(tag);
  return {
    PATH: process.env.PATH,
    DATA_DIR: dataDir,
    PORT: '0',
    EMBEDDED_MONGO_PORT: '0',
    INBOUND_SMTP_PORT: '0',
    INBOUND_HTTP_PORT: '0',
    AMQP_URL: AMQP_URL ?? '',
    REDIS_URL: REDIS_URL ?? '',
    AMQP_EXCHANGE: `${tag}.events`,
    AMQP_QUEUE_PREFIX: tag,
    REDIS_KEY_PREFIX: `${tag}:`,
    INTERNAL_TOKEN_SECRET: SECRET,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_SECRET_PER_MINUTE: '100000',
    ...extra,
  };
}

/** Runs the launcher to its end (a refused start, bounded): its exit code, output, and what is left of its process group. */
function runToExit(env: NodeJS.ProcessEnv, timeoutMs = 170_000): Promise<{ code: number | null; output: string; leftRunning: number[] }> {
  const child = spawn(LAUNCHER[0], [...LAUNCHER[1]], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      process.kill(-child.pid!, 'SIGKILL');
      reject(new Error(`still running after ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output, leftRunning: groupMembers(child.pid!) });
    });
  });
}

/** The processes still in a process group (a launcher's children share its group). */
function groupMembers(pgid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '-g', String(pgid)], { encoding: 'utf8' }).split(/\s+/).filter(Boolean).map(Number).filter(isRunning);
  } catch {
    return []; // ps exits 1 when there is none
  }
}

test('refuses to start without RabbitMQ and Redis, naming both variables', async () => {
  const { code, output } = await runToExit(runEnv(tempDir('helpdesk-sp-'), { AMQP_URL: '', REDIS_URL: '' }));
  expect(code).toBe(1);
  expect(output).toMatch(/AMQP_URL: required/);
  expect(output).toMatch(/REDIS_URL: required/);
});

describeInfra('npm run start:processes on RabbitMQ and Redis', () => {
  let run: RunningProcesses;
  let creds: RunningProcesses['credentials'];
  const processes = (): Array<ProcessInfo & { pid: number }> => run.processes().processes as Array<ProcessInfo & { pid: number }>;
  const api = (method: string, p: string, body?: unknown) =>
    fetch(`${run.baseUrl}${p}`, { method, headers: { authorization: `Bearer ${creds.keys.sk_test}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });

  beforeAll(async () => {
    run = track(await runProcesses(runEnv(tempDir('helpdesk-sp-')), { timeoutMs: 180_000 }));
    creds = run.credentials;
  }, 200_000);
  afterAll(async () => {
    await run?.stop();
    await cleanup();
  }, 60_000);

  it('runs every process of the registry (two notifications replicas), each ready, and writes credentials.json that work', async () => {
    const expected = PROCESSES.flatMap((p) => Array.from({ length: p.localProcesses }, (_, i) => `${p.name}#${i + 1}`)).sort();
    const list = processes();
    expect(list.map((p) => `${p.name}#${p.replica}`).sort()).toEqual(expected);
    expect(list.filter((p) => p.name === 'notifications')).toHaveLength(2);
    for (const p of list) {
      expect(isRunning(p.pid)).toBe(true);
      expect((await fetch(`${p.url}/readyz`)).status).toBe(200);
      expect((await fetch(p.metricsUrl)).status).toBe(200);
    }
    const pids = new Set(list.map((p) => p.pid));
    expect(pids.size).toBe(list.length);
    expect(pids.has(run.pid)).toBe(false);
    const whoami = await api('GET', '/auth/whoami');
    expect(whoami.status).toBe(200);
    const readyz = (await (await fetch(new URL('/readyz', run.baseUrl))).json()) as { data: { upstreams: Record<string, string> } };
    expect(Object.values(readyz.data.upstreams)).toEqual(Array(PROCESSES.length - 1).fill('ready'));
    expect(run.output()).toMatch(/notifications ×2/);
    // the banner's sign-in link (docs/adr/0068) opens a session on the separate gateway and workspace
    const link = /sign in +(http:\/\/\S+)\/app\/sign-in\?token=(hdsil_\S+) \(the owner/.exec(run.output());
    expect(link?.[1]).toBe(new URL(run.baseUrl).origin);
    const session = await fetch(new URL('/api/v1/auth/sessions', run.baseUrl), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: link![2] }) });
    expect(session.status).toBe(201);
    const cookie = session.headers.get('set-cookie')!.split(';')[0];
    expect((await fetch(new URL('/api/v1/auth/session', run.baseUrl), { headers: { cookie } })).status).toBe(200);
  });

  it("the gateway reaches each notifications replica at its own URL (docs/adr/0075): streams through it are held by both, none relayed by the launcher's port", async () => {
    const gateway = processes().find((p) => p.name === 'gateway')!;
    const replicas = processes().filter((p) => p.name === 'notifications');
    const env = Object.fromEntries(readFileSync(`/proc/${gateway.pid}/environ`, 'utf8').split('\0').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
    expect(parseServiceUrls(env.SERVICE_URLS!).notifications!.sort()).toEqual(replicas.map((r) => r.url).sort());
    const launcher = descendants(run.pid).find((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('deploy/local/src/processes.ts'))!;
    const before = [launcher, ...replicas.map((r) => r.pid)].map(socketsOf);
    const streams = Array.from({ length: 6 }, () => new EventSource(`${run.baseUrl}/teams/${creds.teamId}/events/stream`, { fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), authorization: `Bearer ${creds.keys.sk_test}` } }) }));
    try {
      await Promise.all(streams.map((es) => new Promise<void>((resolve, reject) => {
        es.addEventListener('open', () => resolve(), { once: true });
        es.addEventListener('error', (e) => reject(new Error(`stream error: ${(e as { message?: string }).message}`)), { once: true });
      })));
      const [viaLauncher, ...perReplica] = [launcher, ...replicas.map((r) => r.pid)].map((pid, i) => socketsOf(pid) - before[i]!);
      expect(perReplica.every((n) => n >= 3)).toBe(true);
      expect(viaLauncher).toBeLessThan(3);
    } finally {
      for (const es of streams) es.close();
    }
  }, 60_000);

  it('a stream on each notifications replica receives every event; a reconnection to the other replica with Last-Event-ID gets what it missed', async () => {
    const [one, two] = processes().filter((p) => p.name === 'notifications');
    const tokens = new InternalTokens(SECRET);
    const token = () => tokens.mint({ teamId: creds.teamId, mode: 'test', keyId: 'key_test', keyType: 'secret', memberId: creds.ownerMemberId!, permissions: [...PERMISSIONS] }, `req_${randomBytes(6).toString('hex')}`);
    const open = (replica: ProcessInfo, lastEventId?: string) => {
      const frames: { id: string; ticketId: string }[] = [];
      const es = new EventSource(`${replica.url}/teams/${creds.teamId}/events/stream`, {
        fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), 'x-internal-token': token(), ...(lastEventId ? { 'last-event-id': lastEventId } : {}) } }),
      });
      es.addEventListener('ticket.created', (m) => frames.push({ id: m.lastEventId, ticketId: JSON.parse(m.data).data.ticket.id }));
      const opened = new Promise<void>((resolve, reject) => {
        es.addEventListener('open', () => resolve(), { once: true });
        es.addEventListener('error', (e) => reject(new Error(`stream error: ${(e as { message?: string }).message}`)), { once: true });
      });
      return { es, frames, opened };
    };
    const create = async (n: number) => {
      const ids: string[] = [];
      for (let i = 0; i < n; i++) {
        const res = await api('POST', `/teams/${creds.teamId}/tickets`, { title: `stream ${i}` });
        expect(res.status).toBe(201);
        ids.push(((await res.json()) as { data: { id: string } }).data.id);
      }
      return ids;
    };
    const a = open(one!);
    const b = open(two!);
    try {
      await Promise.all([a.opened, b.opened]);
      const first = await create(20);
      await waitFor('both streams to have the 20 tickets', () => a.frames.length >= 20 && b.frames.length >= 20, 30_000);
      // Each replica's consumer adds its share of the events to the shared log, so the log's order is
      // the order they were added in, not necessarily the order of the creates: compare as sets.
      const sorted = (ids: string[]) => [...ids].sort();
      expect(sorted(a.frames.map((f) => f.ticketId))).toEqual(sorted(first));
      expect(sorted(b.frames.map((f) => f.ticketId))).toEqual(sorted(first));

      // A drops; ten more tickets; it comes back on the OTHER replica with the last id it saw.
      a.es.close();
      const lastSeen = a.frames[a.frames.length - 1]!.id;
      const second = await create(10);
      const again = open(two!, lastSeen);
      try {
        await again.opened;
        await waitFor('the reconnection to replay the 10 it missed', () => again.frames.length >= 10, 30_000);
        await waitFor('the other stream to have all 30', () => b.frames.length >= 30, 30_000);
        expect(sorted(again.frames.map((f) => f.ticketId))).toEqual(sorted(second));
        expect(sorted(b.frames.map((f) => f.ticketId))).toEqual(sorted([...first, ...second]));
      } finally {
        again.es.close();
      }
    } finally {
      a.es.close();
      b.es.close();
    }
  }, 120_000);

  it('while customers is stopped, tickets naming known customers are still created, and the counts catch up after', async () => {
    const customerIds: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await api('POST', `/teams/${creds.teamId}/customers`, { name: `Known ${i}`, email: `known-${i}-${randomBytes(3).toString('hex')}@example.com` });
      expect(res.status).toBe(201);
      customerIds.push(((await res.json()) as { data: { id: string } }).data.id);
    }
    // Ticketing knows them once it has seen them: from customer.created, or on first sight, which one
    // ticket each before the outage makes sure of (a first sight during the outage is a 503).
    for (const customerId of customerIds) expect((await api('POST', `/teams/${creds.teamId}/tickets`, { title: 'before the outage', customerId })).status).toBe(201);
    const customers = processes().find((p) => p.name === 'customers')!;
    process.kill(customers.pid, 'SIGSTOP'); // frozen: its connections hang, as a stalled or partitioned service's do
    const statuses: number[] = [];
    try {
      for (let i = 0; i < 50; i++) statuses.push((await api('POST', `/teams/${creds.teamId}/tickets`, { title: `during the outage ${i}`, customerId: customerIds[i % 5] })).status);
    } finally {
      process.kill(customers.pid, 'SIGCONT');
    }
    expect(statuses).toEqual(Array(50).fill(201));
    const count = async (id: string) => ((await (await api('GET', `/teams/${creds.teamId}/customers/${id}`)).json()) as { data: { ticketCount: number } }).data.ticketCount;
    await waitFor('every customer to count its 11 tickets', async () => (await Promise.all(customerIds.map(count))).every((n) => n === 11), 60_000);
  }, 150_000);

  it('a killed process is started again and serves again, as a restart policy would', async () => {
    const before = processes().find((p) => p.name === 'customers')!;
    process.kill(before.pid, 'SIGKILL');
    await waitFor('customers to be restarted', () => {
      const now = processes().find((p) => p.name === 'customers')!;
      return now.restarts === 1 && now.pid !== before.pid;
    }, 30_000);
    await waitFor('customers to be ready again', async () => (await fetch(`${before.url}/readyz`).then((r) => r.status, () => 0)) === 200, 60_000);
    const res = await api('POST', `/teams/${creds.teamId}/customers`, { name: 'After the restart', email: `after-${randomBytes(3).toString('hex')}@example.com` });
    expect(res.status).toBe(201);
  }, 120_000);

  it('a killed database server is started again from its journal on its own port, and the services reconnect to it', async () => {
    const file = () => run.processes() as { mongodb: { pid: number } };
    const before = await api('POST', `/teams/${creds.teamId}/tickets`, { title: 'before the database restart' });
    expect(before.status).toBe(201);
    const ticketId = ((await before.json()) as { data: { id: string } }).data.id;
    const pid = file().mongodb.pid;
    process.kill(pid, 'SIGKILL');
    await waitFor('the database to be restarted', () => file().mongodb.pid !== pid, 30_000);
    await waitFor('a ticket to be created again', async () => (await api('POST', `/teams/${creds.teamId}/tickets`, { title: 'after the database restart' })).status === 201, 60_000);
    // What was acknowledged before the kill is still there (the journal).
    expect((await api('GET', `/teams/${creds.teamId}/tickets/${ticketId}`)).status).toBe(200);
  }, 120_000);

  it('SIGTERM stops every process it started and exits 0', async () => {
    const pids = [...processes().map((p) => p.pid), run.processes().mongodb!.pid];
    process.kill(run.pid, 'SIGTERM');
    expect(await run.exited).toEqual({ code: 0, signal: null });
    for (const pid of pids) expect(isRunning(pid)).toBe(false);
  }, 60_000);
});

describeInfra('npm run start:processes refuses bad configuration', () => {
  afterAll(() => cleanup());

  it("a process's bad variable stops the whole start, naming the process and the variable, and leaves nothing running", async () => {
    const { code, output, leftRunning } = await runToExit(runEnv(tempDir('helpdesk-sp-'), { WEBHOOKS_TIMEOUT_MS: '999999' }));
    expect(code).toBe(1);
    expect(output).toMatch(/start:processes: webhooks exited before it was ready/);
    expect(output).toMatch(/WEBHOOKS_TIMEOUT_MS/);
    expect(output).not.toMatch(/Ready:/);
    expect(leftRunning).toEqual([]);
  }, 200_000);
});
