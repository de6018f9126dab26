/**
 * The game's own pace (a benchmark, not a test: jest runs `*.test.ts` only). The game service alone on
 * the test harness (embedded MongoDB in memory, the in-process bus, one process): `--closers` members,
 * then customer tickets created (recorded before anything is measured), then closed at a target rate
 * as ticketing publishes a close (`ticket.updated`, then `ticket.closed`, the member as actor). Prints
 * the rate the game paid at, the close-to-payment latency p50/p99 (payout row's `paidAt` − the close
 * event's publication) and the process's CPU per payment. `bench/game.bench.ts` measures the same
 * through the whole platform, where the gateway, ticketing and every other consumer share the process;
 * this one is what the game costs with a core to itself (docs/adr/0044, 0047). It also prints how the
 * ticket events were batched (tickets/batch.ts).
 *
 *   npx tsx services/game/test/payments.bench.ts [--rate 400] [--seconds 20] [--closers 20] [--wait 120]
 */
import { randomUUID } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { MemberSnapshot, TicketSnapshot } from '@helpdesk/contracts';
import { newId } from '@helpdesk/kit';
import { envelope, startServiceHarness, ticketFixture } from '@helpdesk/testing';
import { startGame } from '../src';

const { values } = parseArgs({ options: { rate: { type: 'string', default: '400' }, seconds: { type: 'string', default: '20' }, closers: { type: 'string', default: '20' }, wait: { type: 'string', default: '120' } } });
const RATE = Number(values.rate);
const CLOSES = RATE * Number(values.seconds);
const CLOSERS = Number(values.closers);
const WAIT_MS = Number(values.wait) * 1000;
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function main(): Promise<void> {
  const h = await startServiceHarness((opts) => startGame(opts), { observe: [] });
  try {
    const where = { teamId: randomUUID(), mode: 'live' as const };
    const members: MemberSnapshot[] = Array.from({ length: CLOSERS }, (_, i) => ({
      id: newId('member'), userId: randomUUID(), name: `Closer ${i}`, email: `closer${i}@example.com`, avatarUrl: null, role: 'agent',
      roleDisplayName: 'Agent', permissions: ['game_participation'], level: 1, xp: 0, joinedAt: new Date().toISOString(),
    }));
    await h.publish(...members.map((member) => envelope('member.joined', { member, via: 'invite', inviteId: null }, where)));
    const tickets: TicketSnapshot[] = Array.from({ length: CLOSES }, () => ({ ...ticketFixture(null, { channel: 'widget', status: 'open' }), openedBy: 'customer' }) as TicketSnapshot);
    for (let i = 0; i < tickets.length; i += 200) await h.publish(...tickets.slice(i, i + 200).map((ticket) => envelope('ticket.created', { ticket }, where)));
    const payouts = h.svc.conn.collection('ticket_payouts');
    console.error(`${CLOSERS} members, ${CLOSES} tickets recorded; closing at ${RATE}/s`);

    const batches0 = h.svc.rules.batches.stats();
    const loadBefore = loadavg();
    const cpu0 = cpuMs();
    const t0 = performance.now();
    const closedAt = new Map<string, number>();
    for (let i = 0; i < CLOSES; i++) {
      const due = t0 + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const t = tickets[i]!;
      const now = new Date().toISOString();
      const closed = { ...t, status: 'closed' as const, closedAt: now, updatedAt: now, revision: 1 } as TicketSnapshot;
      const updated = envelope('ticket.updated', { ticket: closed, changes: ['status'], previous: { status: 'open' } }, where);
      const close = envelope('ticket.closed', { ticket: closed, previousStatus: 'open' }, where);
      close.actor = { type: 'member', id: members[i % CLOSERS]!.id };
      closedAt.set(t.id, Date.now());
      await h.bus.publish([updated, close]);
    }
    const closedIn = (performance.now() - t0) / 1000;
    const paidWhileClosing = await payouts.countDocuments({});
    const waitStart = performance.now();
    while ((await payouts.countDocuments({})) < CLOSES && performance.now() - waitStart < WAIT_MS) await sleep(200);
    const cpu1 = cpuMs();
    const rows = await payouts.find({}, { projection: { ticketId: 1, paidAt: 1 } }).toArray();
    const latencies = rows.map((r) => (r.paidAt as Date).getTime() - closedAt.get(r.ticketId)!).sort((a, b) => a - b);
    const last = Math.max(...rows.map((r) => (r.paidAt as Date).getTime()));
    const first = Math.min(...closedAt.values());
    console.log(
      `\n${CLOSES} closes published at a target ${RATE}/s by ${CLOSERS} members (achieved ${(CLOSES / closedIn).toFixed(0)}/s); the game alone paid ${(paidWhileClosing / closedIn).toFixed(0)}/s while they came, ` +
        `${((rows.length * 1000) / Math.max(1, last - first)).toFixed(0)}/s from the first close to the last payment; ${rows.length} of ${CLOSES} paid`,
    );
    console.log(`close -> payment: p50 ${pct(latencies, 50).toFixed(0)} ms, p99 ${pct(latencies, 99).toFixed(0)} ms; CPU ${((cpu1 - cpu0) / rows.length).toFixed(2)} ms per payment (this process: the game, its store and bus)`);
    const b = h.svc.rules.batches.stats();
    const [nb, ne] = [b.batches - batches0.batches, b.items - batches0.items];
    console.log(`ticket batches during the closes (ticket.updated and ticket.closed; docs/adr/0047): ${nb} committed, ${(ne / Math.max(1, nb)).toFixed(1)} events each on average, ${b.largest} at most in the run; ${b.split - batches0.split} paid again one by one`);
    const load = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(' ');
    console.log(`load average (1/5/15 min, ${cpus().length} cores): ${load(loadBefore)} before the closes, ${load(loadavg())} after`);
  } finally {
    await h.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
