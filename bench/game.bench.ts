/**
 * Game benchmark (not a test). A platform started exactly as `npm start` starts it (embedded
 * defaults), a team of 1,000 players (members and their season standings seeded in the game's
 * database), then customer tickets closed through the gateway at a target rate by the owner's key:
 *  - event-to-XP latency: `game.xp_awarded.occurredAt` − `ticket.closed.occurredAt` of the same
 *    ticket, both read from webhook deliveries to a loopback receiver; p50/p99;
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
 *   npx tsx bench/game.bench.ts [--rate 200] [--seconds 30] [--players 1000] [--closers 20] [--inflight 200] [--wait 300] [--cpu-prof DIR]
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Receiver } from '@helpdesk/testing';
import { pct, startLocalPlatform } from './processes';

const { values } = parseArgs({ options: { rate: { type: 'string', default: '200' }, seconds: { type: 'string', default: '30' }, players: { type: 'string', default: '1000' }, closers: { type: 'string', default: '20' }, inflight: { type: 'string', default: '200' }, 'cpu-prof': { type: 'string' }, wait: { type: 'string', default: '300' } } });
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
  const { url, base, creds, dataDir, mongo, call: request, close } = await startLocalPlatform('game', 'live', { WEBHOOKS_ALLOW_LOOPBACK: 'true' }, values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`] : []);
  try {
    const call = async (method: string, target: string, body?: unknown, key?: string | null) => (await request(method, target, body, key)).data;
    await call('POST', `${base}/webhooks`, { name: 'bench', url: rx.url('/hook'), events: ['ticket.closed', 'game.xp_awarded'] });

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
    console.error(`closing at ${RATE}/s`);
    const loadBefore = loadavg();

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
    const byType = (type: string) => rx.forPath('/hook').map((r) => JSON.parse(r.body)).filter((b) => b.type === type);
    // Bounded: a game that cannot keep up is reported with the awards it made in time, not left running.
    const waitStart = performance.now();
    await rx.waitFor(() => byType('game.xp_awarded').length >= CLOSES - failed, `${CLOSES - failed} xp awards`, WAIT_SECONDS * 1000).catch(() => {
      console.error(`stopped waiting after ${WAIT_SECONDS} s`);
    });
    const waited = (performance.now() - waitStart) / 1000;
    const closedAt = new Map(byType('ticket.closed').map((b) => [b.data.ticket.id, Date.parse(b.createdAt)]));
    const latencies = byType('game.xp_awarded').filter((b) => b.data.ticketId && closedAt.has(b.data.ticketId)).map((b) => Date.parse(b.createdAt) - closedAt.get(b.data.ticketId)!);

    // The game's own pace: XP awards from the first close to the last award.
    const awardTimes = byType('game.xp_awarded').map((b) => Date.parse(b.createdAt));
    const firstClose = Math.min(...closedAt.values());
    const awardRate = awardTimes.length / Math.max(0.001, (Math.max(...awardTimes) - firstClose) / 1000);
    const l = sortNum(latencies);
    const b = sortNum(board);
    const t = sortNum(ticket);
    const row = (name: string, xs: number[], ratio: string) => console.log(name.padEnd(52) + pct(xs, 50).toFixed(1).padStart(10) + pct(xs, 99).toFixed(1).padStart(10) + ratio.padStart(14));
    console.log(`\n${CLOSES} customer tickets closed through the gateway by ${CLOSERS} members round-robin at a target ${RATE}/s (achieved ${((CLOSES - failed) / closedIn).toFixed(0)}/s accepted; the game paid them at ${awardRate.toFixed(0)}/s), ${PLAYERS} players, embedded defaults\n`);
    console.log('what'.padEnd(52) + 'p50 ms'.padStart(10) + 'p99 ms'.padStart(10) + 'p50 ×ticket'.padStart(14));
    row('GET /tickets/{id} (baseline, during the closes)', t, '1.0');
    row(`GET /game/leaderboard (${PLAYERS} players)`, b, (pct(b, 50) / pct(t, 50)).toFixed(1));
    row('ticket.closed -> game.xp_awarded (event to XP)', l, (pct(l, 50) / pct(t, 50)).toFixed(1));
    const load = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(' ');
    console.log(`\nload average (1/5/15 min, ${cpus().length} cores): ${load(loadBefore)} before the closes, ${load(loadAfter)} after`);
    const unpaid = CLOSES - failed - l.length;
    console.log(`${l.length} of ${CLOSES - failed} accepted closes paid XP within ${waited.toFixed(0)} s after the last close${unpaid > 0 ? ` (${unpaid} still queued: their latency is not in the figures)` : ''};`);
    console.log(`${l.length} XP awards measured; ${board.length} leaderboard reads (${readsFailed} reads unanswered); ${failed} closes refused or timed out (the platform did not keep up)`);
  } finally {
    await close();
    await rx.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
