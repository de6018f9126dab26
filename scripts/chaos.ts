/**
 * The chaos run: `npx tsx scripts/chaos.ts [--duration 120] [--rate 10] [--kill-every 12]`.
 *
 * Starts `npm run start:processes` (its own data folder, exchange, queues and Redis keys, on AMQP_URL
 * and REDIS_URL; loopback only), then for `--duration` seconds creates `--rate` tickets a second for
 * 20 customers, each with its own Idempotency-Key, retried with that key (as a careful client does)
 * until it succeeds or the run's grace period ends, while every `--kill-every` seconds one process is
 * SIGKILLed in turn (each service, the gateway, the database) and the launcher restarts it. After each
 * restart it measures how long until events flow again: from the restarted process being ready to the
 * webhook delivery of a ticket created then. When the load stops and the platform is quiet, it checks:
 *
 * - lost: keys answered 201 whose ticket is not in the list;
 * - duplicated: tickets made twice for one key (two tickets with one key's title);
 * - never succeeded: keys that no retry got a 201 for;
 * - customers' ticket counts against the tickets that name them;
 * - webhook deliveries: each ticket's `ticket.created` delivered exactly once;
 * - the audit chain (`/audit-log/verify`), and every service's dead-letter queue empty.
 *
 * It prints the figures and exits 0 whatever they are (a measurement; the tests assert behaviour),
 * 2 when the platform could not be started. It stops everything it started, by process group.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import amqp from 'amqplib';
import { SERVICES } from '../deploy/registry';
import { deleteAmqpNames, runProcesses, type RunningProcesses } from '../deploy/local/src/run-processes';

const { values: args } = parseArgs({
  options: { duration: { type: 'string', default: '120' }, rate: { type: 'string', default: '10' }, 'kill-every': { type: 'string', default: '12' } },
});
const DURATION_S = Math.min(1800, Number(args.duration));
const RATE = Math.min(50, Number(args.rate));
const KILL_EVERY_S = Math.max(5, Number(args['kill-every']));
const AMQP_URL = process.env.AMQP_URL || 'amqp://guest:guest@127.0.0.1:5672';
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const tag = `chaos${randomBytes(3).toString('hex')}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'helpdesk-chaos-'));
  // Webhook receiver: deliveries by event id, and when each ticket's ticket.created arrived.
  const deliveries = new Map<string, number>();
  const createdAt = new Map<string, number>();
  const receiver = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      try {
        const event = JSON.parse(body) as { id: string; type: string; data: { ticket?: { id: string } } };
        deliveries.set(event.id, (deliveries.get(event.id) ?? 0) + 1);
        if (event.type === 'ticket.created' && event.data.ticket) createdAt.set(event.data.ticket.id, Date.now());
      } catch {
        /* not an event */
      }
      res.end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;

  const amqpNames = { exchange: `${tag}.events`, queuePrefix: tag };
  let launcher: RunningProcesses | null = null;
  const stopAll = async () => {
    await launcher?.stop(40_000); // SIGTERM, then SIGKILL to its process group after 40 s
    receiver.close();
    await deleteAmqpNames(AMQP_URL, amqpNames).catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    launcher = await runProcesses({
      ...process.env,
      DATA_DIR: dataDir,
      PORT: '0',
      EMBEDDED_MONGO_PORT: '0',
      INBOUND_SMTP_PORT: '0',
      INBOUND_HTTP_PORT: '0',
      AMQP_URL,
      REDIS_URL,
      AMQP_EXCHANGE: amqpNames.exchange,
      AMQP_QUEUE_PREFIX: amqpNames.queuePrefix,
      REDIS_KEY_PREFIX: `${tag}:`,
      WEBHOOKS_ALLOW_LOOPBACK: 'true',
      RATE_LIMIT_SECRET_PER_MINUTE: '1000000',
      LOG_LEVEL: 'error',
    });
    const { baseUrl, credentials: creds } = launcher;
    const files = launcher.processes;
    const team = `${baseUrl}/teams/${creds.teamId}`;
    const call = (method: string, url: string, body?: unknown, key?: string) =>
      fetch(url, {
        method,
        headers: { authorization: `Bearer ${creds.keys.sk_test}`, 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(15_000),
      });
    /** A create retried with its key until a 201 or `until`; the ticket id, or null. */
    /** Each key's last answer that was not a 201 (a status, or the fetch error's name): why keys never succeeded. */
    const lastFailure = new Map<string, string>();
    const createWithRetries = async (key: string, body: unknown, until: () => number): Promise<string | null> => {
      for (let attempt = 0; Date.now() < until(); attempt++) {
        try {
          const res = await call('POST', `${team}/tickets`, body, key);
          if (res.status === 201) return ((await res.json()) as { data: { id: string } }).data.id;
          const text = await res.text();
          // The status, the error code and the message's first words (which of the 409s, which 503).
          lastFailure.set(key, `${res.status} ${/"code":"(\w+)"/.exec(text)?.[1] ?? ''} ${/"message":"([^".]{0,60})/.exec(text)?.[1] ?? ''}`.trim());
          if (res.status < 500 && res.status !== 409 && res.status !== 429) return null; // a client error: retrying cannot help
        } catch (err) {
          /* connection refused or reset, timeout: retry */
          lastFailure.set(key, (err as Error).name);
        }
        await sleep(Math.min(2000, 200 * 2 ** attempt) * (0.5 + Math.random()));
      }
      return null;
    };

    const hook = await call('POST', `${team}/webhooks`, { name: 'chaos', url: receiverUrl, events: ['ticket.created'] });
    if (hook.status !== 201) throw new Error(`webhook: ${hook.status} ${await hook.text()}`);
    const customers: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await call('POST', `${team}/customers`, { name: `Chaos ${i}`, email: `chaos-${i}-${tag}@example.com` });
      customers.push(((await res.json()) as { data: { id: string } }).data.id);
    }

    const started = Date.now();
    const loadEnds = started + DURATION_S * 1000;
    const graceEnds = () => loadEnds + 60_000;
    const results = new Map<string, string | null>();
    const inFlight: Promise<void>[] = [];
    let n = 0;
    const load = (async () => {
      while (Date.now() < loadEnds) {
        const i = n++;
        const key = `chaos-${tag}-${i}`;
        inFlight.push(createWithRetries(key, { title: key, customerId: customers[i % customers.length] }, graceEnds).then((id) => void results.set(key, id)));
        await sleep(1000 / RATE);
      }
    })();

    // Kill each process in turn; after its restart, time until a new ticket's event is delivered.
    const victims = [...SERVICES.map((s) => s.name), 'gateway', 'mongodb'];
    const recoveries: Array<{ process: string; restartS: number; eventsFlowS: number | null }> = [];
    for (let k = 0; Date.now() + KILL_EVERY_S * 1000 < loadEnds; k++) {
      await sleep(KILL_EVERY_S * 1000);
      const name = victims[k % victims.length]!;
      const before = files();
      const pid = name === 'mongodb' ? before.mongodb!.pid : before.processes.find((p) => p.name === name)!.pid!;
      const killedAt = Date.now();
      process.kill(pid, 'SIGKILL');
      const now = () => (name === 'mongodb' ? files().mongodb!.pid : files().processes.find((p) => p.name === name)!.pid);
      while (now() === pid && Date.now() - killedAt < 60_000) await sleep(100);
      const url = name === 'mongodb' ? null : files().processes.find((p) => p.name === name)!.url;
      while (url && Date.now() - killedAt < 90_000 && (await fetch(`${url}/readyz`).then((r) => r.status, () => 0)) !== 200) await sleep(100);
      const readyAt = Date.now();
      const probe = `chaos-${tag}-probe-${k}`;
      const id = await createWithRetries(probe, { title: probe }, () => readyAt + 60_000);
      while (id && !createdAt.has(id) && Date.now() - readyAt < 60_000) await sleep(50);
      const flowed = id ? createdAt.get(id) : undefined;
      recoveries.push({ process: name, restartS: (readyAt - killedAt) / 1000, eventsFlowS: flowed ? (flowed - readyAt) / 1000 : null });
    }
    await load;
    await Promise.all(inFlight);

    // Quiet: no new delivery for 5 s (bounded).
    for (let last = -1, quietSince = Date.now(), end = Date.now() + 120_000; Date.now() < end; await sleep(500)) {
      const total = [...deliveries.values()].reduce((a, b) => a + b, 0);
      if (total !== last) [last, quietSince] = [total, Date.now()];
      else if (Date.now() - quietSince > 5000) break;
    }

    const tickets: Array<{ id: string; title: string; customerId: string | null }> = [];
    for (let page = 1; ; page++) {
      const res = await call('GET', `${team}/tickets?pageSize=100&page=${page}`);
      const body = (await res.json()) as { data: Array<{ id: string; title: string; customerId: string | null }>; meta: { pagination: { hasMore: boolean } } };
      tickets.push(...body.data);
      if (!body.meta.pagination.hasMore) break;
    }
    const ids = new Set(tickets.map((t) => t.id));
    const byTitle = new Map<string, number>();
    for (const t of tickets) byTitle.set(t.title, (byTitle.get(t.title) ?? 0) + 1);
    const succeeded = [...results.values()].filter((v): v is string => v !== null);
    const lost = succeeded.filter((id) => !ids.has(id)).length;
    const duplicated = [...results.keys()].filter((key) => (byTitle.get(key) ?? 0) > 1).length;
    const neverSucceeded = [...results.values()].filter((v) => v === null).length;
    const whyNever = new Map<string, number>();
    for (const [key, id] of results) if (id === null) whyNever.set(lastFailure.get(key) ?? 'no attempt in time', (whyNever.get(lastFailure.get(key) ?? 'no attempt in time') ?? 0) + 1);
    let countsWrong = 0;
    for (const c of customers) {
      const res = await call('GET', `${team}/customers/${c}`);
      const count = ((await res.json()) as { data: { ticketCount: number } }).data.ticketCount;
      if (count !== tickets.filter((t) => t.customerId === c).length) countsWrong++;
    }
    const ticketsWithoutDelivery = tickets.filter((t) => !createdAt.has(t.id)).length;
    const duplicateDeliveries = [...deliveries.values()].filter((v) => v > 1).length;
    const audit = (await (await call('GET', `${team}/audit-log/verify`)).json()) as { data?: { valid?: boolean } };
    const deadLetters = await deadLetterCount(tag);

    const flows = recoveries.map((r) => r.eventsFlowS).filter((v): v is number => v !== null);
    console.log(`chaos run: ${DURATION_S} s, ${RATE} creates/s, a kill every ${KILL_EVERY_S} s (${recoveries.length} kills)`);
    console.table(recoveries);
    console.log(
      [
        `keys: ${results.size}, tickets: ${tickets.length} (${recoveries.length} probes among them)`,
        `lost: ${lost}`,
        `duplicated: ${duplicated}`,
        `keys that never succeeded: ${neverSucceeded}${whyNever.size ? ` (last answers: ${[...whyNever].map(([why, n]) => `${why} ×${n}`).join(', ')})` : ''}`,
        `customers whose ticketCount is wrong: ${countsWrong} of ${customers.length}`,
        `tickets without a ticket.created delivery: ${ticketsWithoutDelivery}; events delivered more than once: ${duplicateDeliveries}`,
        `audit chain valid: ${audit.data?.valid ?? 'unknown'}`,
        `dead letters: ${deadLetters}`,
        `seconds until events flow after a restart: max ${flows.length ? Math.max(...flows).toFixed(1) : 'n/a'}, each: ${flows.map((f) => f.toFixed(1)).join(' ')}${flows.length < recoveries.length ? ` (${recoveries.length - flows.length} never)` : ''}`,
      ].join('\n'),
    );
  } finally {
    await stopAll();
  }
}

async function deadLetterCount(tag: string): Promise<number> {
  const conn = await amqp.connect(AMQP_URL);
  try {
    let total = 0;
    for (const s of SERVICES) {
      const ch = await conn.createChannel();
      ch.on('error', () => undefined);
      total += await ch.checkQueue(`${tag}.${s.name}.dead`).then((q) => q.messageCount, () => 0);
      await ch.close().catch(() => undefined);
    }
    return total;
  } finally {
    await conn.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(2);
});
