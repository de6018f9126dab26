/**
 * Game benchmark (not a test). A platform started exactly as `npm start` starts it (embedded
 * defaults), a team of 1,000 players (members and their season standings seeded in the game's
 * database), then customer tickets closed through the gateway at a target rate by the owner's key:
 *  - event-to-XP latency: when the game paid the ticket (its payout row's `paidAt`, written in the
 *    transaction that emits `game.xp_awarded`) − when the ticket was closed (the `closedAt` of the
 *    closing snapshot), both read from the game's database; p50/p99, and the rate the game paid at.
 *    With `--webhooks`, also as before: `game.xp_awarded.occurredAt` − `ticket.closed.occurredAt` read
 *    from webhook deliveries to a loopback receiver (12,000 deliveries at the default size: the
 *    webhooks service's pace then bounds what is received, and its work shares the process);
 *  - during the closes, `GET /game/leaderboard` (1,000 players) and `GET /tickets/{id}` (the baseline)
 *    read one after the other through the gateway; p50/p99 and the ratio of the first to the second.
 *
 * The closes come from `--closers` members (20 by default), round-robin, each with their own secret
 * key, made through the API as a client would (POST /invites; the token from the invitation e-mail the
 * platform writes under DATA_DIR/mail; POST /invites/accept answers the member's key). One member's
 * payments are applied one after the other, so closes from a single member would measure that
 * member's backlog; spread over many members the figure is the event-to-XP latency.
 *
 * The machine's load average (/proc/loadavg: 1, 5, 15 minutes) is printed before and after the
 * closes, beside the achieved close rate: on a shared machine the figures mean little without it.
 *
 *   npx tsx bench/game.bench.ts [--rate 200] [--seconds 30] [--players 1000] [--closers 20] [--inflight 200] [--wait 300] [--cpu-prof DIR] [--webhooks]
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Receiver } from '@helpdesk/testing';
import { cpuSeconds, pct, startLocalPlatform } from './processes';

const { values } = parseArgs({ options: { rate: { type: 'string', default: '200' }, seconds: { type: 'string', default: '30' }, players: { type: 'string', default: '1000' }, closers: { type: 'string', default: '20' }, inflight: { type: 'string', default: '200' }, 'cpu-prof': { type: 'string' }, wait: { type: 'string', default: '300' }, webhooks: { type: 'boolean', default: false }, help: { type: 'boolean', default: false } } });
if (values.help) {
  console.log('npx tsx bench/game.bench.ts [--rate 200] [--seconds 30] [--players 1000] [--closers 20] [--inflight 200] [--wait 300] [--cpu-prof DIR] [--webhooks]');
  process.exit(0);
}
/** Also measure event-to-XP from webhook deliveries (the figure before the game's database was read). */
const WEBHOOKS = values.webhooks;
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);
const PLAYERS = Number(values.players);
const CLOSES = RATE * SECONDS;
const CLOSERS = Number(values.closers);
/** Closes outstanding at most (the client's own bound). */
const INFLIGHT = Number(values.inflight);
/** How long to wait for the XP awards after the last close. */
const WAIT_SECONDS = Number(values.wait);

const sortNum = (xs: number[]) => [...xs].sort((a, b) => a - b);

/** Waits until the platform is idle (under 10 % of a core over half a second), at most 120 s. */
async function idle(pid: number): Promise<void> {
  for (let i = 0; i < 240; i++) {
    const c = cpuSeconds([pid]);
    await new Promise((r) => setTimeout(r, 500));
    if (!(cpuSeconds([pid]) - c >= 0.05)) return;
  }
}

/** The accept token of the invitation e-mail sent to `email` (quoted-printable soft breaks undone), once written. */
async function inviteToken(mailDir: string, email: string): Promise<string> {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
    if (!existsSync(mailDir)) continue;
    for (const file of readdirSync(mailDir).filter((f) => f.endsWith('.eml'))) {
      const text = readFileSync(path.join(mailDir, file), 'utf8').replace(/=\r?\n/g, '').replace(/=3D/gi, '=');
      const token = text.includes(email) ? /token=(hdinv_[A-Za-z0-9_]+)/.exec(text)?.[1] : undefined;
      if (token) return token;
    }
  }
  throw new Error(`no invitation e-mail to ${email} under ${mailDir}`);
}

async function main(): Promise<void> {
  const rx = await Receiver.start();
  const { url, base, creds, dataDir, mongo, pid, call: request, close } = await startLocalPlatform('game', 'live', { WEBHOOKS_ALLOW_LOOPBACK: 'true' }, values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`] : []);
  try {
    const call = async (method: string, target: string, body?: unknown, key?: string | null) => (await request(method, target, body, key)).data;
    if (WEBHOOKS) await call('POST', `${base}/webhooks`, { name: 'bench', url: rx.url('/hook'), events: ['ticket.closed', 'game.xp_awarded'] });

    // The members who close the tickets, each with their own key, made through the invitation flow.
    const closers: string[] = [];
    for (let i = 0; i < CLOSERS; i++) {
      const email = `closer-${i}-${Date.now()}@example.com`;
      await call('POST', `${base}/invites`, { email, role: 'agent' });
      const token = await inviteToken(path.join(dataDir, 'mail'), email);
      const accepted = await call('POST', `${url}/invites/accept`, { token, name: `Closer ${i}` }, null);
      closers.push(accepted.apiKey.key);
    }
    console.error(`${CLOSERS} closers joined`);

    // 1,000 players with a season of XP each: what the leaderboard reads.
    await mongo.connect();
    const game = mongo.db('game');
    const now = new Date();
    const season = `${now.getUTCFullYear()}-Q${Math.floor(now.getUTCMonth() / 3) + 1}`;
    await game.collection('members').insertMany(
      Array.from({ length: PLAYERS }, (_, i) => ({ _id: `mem_benchplayer${String(i).padStart(6, '0')}` as any, teamId: creds.teamId, mode: 'live', userId: crypto.randomUUID(), name: `Player ${i}`, avatarUrl: null, boringMode: false, removed: false, updatedAt: now })),
    );
    await game.collection('standings').insertMany(
      Array.from({ length: PLAYERS }, (_, i) => ({ teamId: creds.teamId, mode: 'live', memberId: `mem_benchplayer${String(i).padStart(6, '0')}`, periodId: season, xp: 100 + ((i * 7919) % 5000), tickets: 10, damage: 0 })),
    );
    console.error(`seeded ${PLAYERS} players; creating ${CLOSES} customer tickets`);
    // The customer tickets to close, created before anything is measured.
    const tickets: string[] = [];
    let made = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (made < CLOSES) {
          made++;
          const t = await call('POST', `${base}/tickets`, { title: 'Cannot log in', priority: 'normal', messages: [{ sender: 'customer', content: 'Help!' }] });
          tickets.push(t.id);
        }
      }),
    );
    const readId = tickets[0]!;
    // The game records every ticket.created before anything is measured: its queue is one, and the
    // closes would otherwise wait behind the creations' backlog.
    const recorded = () => game.collection('tickets').countDocuments({ teamId: creds.teamId, mode: 'live' });
    for (const deadline = performance.now() + 300_000; (await recorded()) < CLOSES && performance.now() < deadline; ) await new Promise((r) => setTimeout(r, 500));
    await idle(pid);
    console.error(`closing at ${RATE}/s`);
    const loadBefore = loadavg();
    const cpuBefore = cpuSeconds([pid]);

    // Closes at the target rate, and reads of the leaderboard and of a ticket one after the other meanwhile.
    const t0 = performance.now();
    const closes: Promise<unknown>[] = [];
    let failed = 0;
    let closing = true;
    const board: number[] = [];
    const ticket: number[] = [];
    let readsFailed = 0;
    // A read the platform did not answer (a connect timeout when it is saturated) is counted, not fatal.
    const timed = async (into: number[], target: string) => {
      const s = performance.now();
      try {
        await call('GET', target);
        into.push(performance.now() - s);
      } catch {
        readsFailed++;
      }
    };
    const reader = (async () => {
      while (closing) {
        await timed(board, `${base}/game/leaderboard?limit=100`);
        await timed(ticket, `${base}/tickets/${readId}`);
      }
    })();
    // Open loop at the target rate, but at most INFLIGHT closes outstanding: past that the schedule slips
    // (the achieved rate shows it) instead of piling up connections until they time out.
    const inflight = new Set<Promise<unknown>>();
    for (let i = 0; i < CLOSES; i++) {
      const due = t0 + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      while (inflight.size >= INFLIGHT) await Promise.race(inflight);
      // A close the platform did not take is counted, not fatal: the run still reports.
      const p: Promise<unknown> = call('PATCH', `${base}/tickets/${tickets[i]}`, { status: 'closed' }, closers[i % CLOSERS])
        .catch(() => failed++)
        .finally(() => inflight.delete(p));
      inflight.add(p);
      closes.push(p);
    }
    await Promise.all(closes);
    const closedIn = (performance.now() - t0) / 1000;
    const loadAfter = loadavg();
    closing = false;
    await reader;

    console.error(`closed in ${closedIn.toFixed(1)} s; waiting for the XP awards`);
    const accepted = CLOSES - failed;
    // The game's own record: one payout row per paid ticket (`paidAt`), and its copy of the ticket (`closedAt`).
    const payouts = game.collection('ticket_payouts');
    const paidDuringCloses = await payouts.countDocuments({ teamId: creds.teamId, mode: 'live' });
    // Bounded: a game that cannot keep up is reported with what it paid in time, not left running.
    const waitStart = performance.now();
    while ((await payouts.countDocuments({ teamId: creds.teamId, mode: 'live' })) < accepted && performance.now() - waitStart < WAIT_SECONDS * 1000) await new Promise((r) => setTimeout(r, 500));
    const waited = (performance.now() - waitStart) / 1000;
    const cpuPaid = cpuSeconds([pid]);
    // What the events the closes and payments caused cost the rest of the platform (webhooks, audit log, workspace…).
    await idle(pid);
    const cpuIdle = cpuSeconds([pid]);
    const paid = await payouts.find({ teamId: creds.teamId, mode: 'live' }, { projection: { ticketId: 1, paidAt: 1 } }).toArray();
    const closedRows = await game.collection('tickets').find({ teamId: creds.teamId, mode: 'live', closedAt: { $ne: null } }, { projection: { closedAt: 1 } }).toArray();
    const closedAtOf = new Map(closedRows.map((r) => [String(r._id), (r.closedAt as Date).getTime()]));
    const latencies = paid.filter((r) => closedAtOf.has(r.ticketId)).map((r) => (r.paidAt as Date).getTime() - closedAtOf.get(r.ticketId)!);
    const paidTimes = paid.map((r) => (r.paidAt as Date).getTime());
    const firstClose = Math.min(...closedAtOf.values());
    const paidRate = paid.length / Math.max(0.001, (Math.max(...paidTimes) - firstClose) / 1000);

    let hooked: number[] = [];
    if (WEBHOOKS) {
      const byType = (type: string) => rx.forPath('/hook').map((r) => JSON.parse(r.body)).filter((b) => b.type === type);
      await rx.waitFor(() => byType('game.xp_awarded').length >= accepted, `${accepted} xp awards`, 60_000).catch(() => console.error('stopped waiting for the webhook deliveries after 60 s more'));
      const closedAt = new Map(byType('ticket.closed').map((b) => [b.data.ticket.id, Date.parse(b.createdAt)]));
      hooked = byType('game.xp_awarded').filter((b) => b.data.ticketId && closedAt.has(b.data.ticketId)).map((b) => Date.parse(b.createdAt) - closedAt.get(b.data.ticketId)!);
    }

    const l = sortNum(latencies);
    const b = sortNum(board);
    const t = sortNum(ticket);
    const row = (name: string, xs: number[], ratio: string) => console.log(name.padEnd(52) + pct(xs, 50).toFixed(1).padStart(10) + pct(xs, 99).toFixed(1).padStart(10) + ratio.padStart(14));
    console.log(
      `\n${CLOSES} customer tickets closed through the gateway by ${CLOSERS} members round-robin at a target ${RATE}/s (achieved ${(accepted / closedIn).toFixed(0)}/s accepted; ` +
        `the game paid ${(paidDuringCloses / closedIn).toFixed(0)}/s while they came, ${paidRate.toFixed(0)}/s from the first close to the last payment), ${PLAYERS} players, embedded defaults\n`,
    );
    console.log('what'.padEnd(52) + 'p50 ms'.padStart(10) + 'p99 ms'.padStart(10) + 'p50 ×ticket'.padStart(14));
    row('GET /tickets/{id} (baseline, during the closes)', t, '1.0');
    row(`GET /game/leaderboard (${PLAYERS} players)`, b, (pct(b, 50) / pct(t, 50)).toFixed(1));
    row('ticket closed -> XP paid (event to XP)', l, (pct(l, 50) / pct(t, 50)).toFixed(1));
    if (WEBHOOKS) {
      const hk = sortNum(hooked);
      row('ticket.closed -> game.xp_awarded (webhooks)', hk, (pct(hk, 50) / pct(t, 50)).toFixed(1));
    }
    const load = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(' ');
    console.log(`\nload average (1/5/15 min, ${cpus().length} cores): ${load(loadBefore)} before the closes, ${load(loadAfter)} after`);
    console.log(
      `platform CPU (one process, whatever else the machine runs): ${(((cpuPaid - cpuBefore) * 1000) / accepted).toFixed(1)} ms per close from the first close to the last payment, ` +
        `${(((cpuIdle - cpuBefore) * 1000) / accepted).toFixed(1)} ms per close until idle again`,
    );
    const unpaid = accepted - l.length;
    console.log(`${l.length} of ${accepted} accepted closes paid XP within ${waited.toFixed(0)} s after the last close${unpaid > 0 ? ` (${unpaid} still queued: their latency is not in the figures)` : ''};`);
    console.log(`${board.length} leaderboard reads (${readsFailed} reads unanswered); ${failed} closes refused or timed out (the platform did not keep up)${WEBHOOKS ? `; ${hooked.length} XP awards received by webhook` : ''}`);
  } finally {
    await close();
    await rx.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
