import { randomBytes } from 'node:crypto';
import { mayRead, type DeliveryStatus } from '@helpdesk/contracts';
import { acrossTeams, microBatches, scoped, scopeKey, SecretOpenError, webhookDeliveries, webhookDeliveryDuration, type Logger, type Scope, type SecretBox, type ServiceWorker, type Unscoped } from '@helpdesk/kit';
import type { WebhooksModels } from '../collections';
import type { WebhookSettings } from '../settings';
import { ATTEMPTS_KEPT, deliveryAccess, NO_LEASE, type DeliveryDoc } from '../webhooks/deliveries/model';
import { readerOf, type WebhookDoc } from '../webhooks/model';
import { signingSecret } from '../webhooks/secrets';
import type { DisableReason } from '../webhooks/rules';
import { nextAttemptAt } from './schedule';
import { Sender, type AttemptOutcome } from './sender';
import type { Dispatcher, Reservation } from './dispatch';
import { signAttempt } from './signing';

/** The delivery worker's handle: every Dispatcher call is safe before `start()` and after `stop()`. */
export interface DeliveryWorker extends Dispatcher {
  start(): ServiceWorker;
}

export interface DeliveryWorkerDeps {
  models: WebhooksModels;
  settings: WebhookSettings;
  logger: Logger;
  /** Disables a webhook and emits `webhook.disabled` (the webhooks rules' `disable`); false when there was nothing to disable. */
  disable(scope: Scope, webhookId: string, why: DisableReason): Promise<boolean>;
  /** Opens the stored signing secrets (SECRETS_KEY, docs/adr/0067). */
  secrets: SecretBox;
}

/**
 * Sends due deliveries. All its state is in MongoDB, so it survives restarts and runs on any number
 * of replicas:
 *
 * - a row is claimed by setting `leaseOwner` and `leaseUntil` (now + leaseMs) on rows that are pending,
 *   due and not leased; only the claimer sends it. A worker that stops gracefully finishes its
 *   attempts in flight; one that dies leaves leases that expire, and the rows are sent again then
 *   (at-least-once: receivers de-duplicate by `x-svc-delivery`);
 * - new deliveries are handed to it right after they commit, already leased to it, when it has room
 *   (`commitAndDispatch`); otherwise it is woken by `kick()` to claim them; with nothing due it
 *   sleeps until the next pending row's retry (at least `pollIntervalMs`, at most `idlePollMs`,
 *   which also finds rows a dead replica left: docs/adr/0070);
 * - it holds at most four times `concurrency` rows: the attempts in flight, and rows leased to it that
 *   wait in memory, oldest first, for a slot (docs/adr/0076): a freed slot takes the next one at
 *   once, with no query. One whose lease would end before its attempt could (a slow receiver held
 *   the slots) is handed back unleased instead of being sent;
 * - at most `concurrency` attempts are in flight; each attempt's result is written back with the
 *   lease owner and generation it was claimed with, so a redelivery or cancellation that happened
 *   meanwhile wins (the attempt is still logged). An attempt's slot is free once its answer is in:
 *   the results are written in micro-batches (one bulk write for the attempts that ended together,
 *   then one write clearing the failing streak of their webhooks that succeeded; docs/adr/0072),
 *   the row still leased to this worker until its result is written, so nobody sends it meanwhile.
 */
export function createDeliveryWorker(deps: DeliveryWorkerDeps): DeliveryWorker {
  let running: RunningWorker | null = null;
  return {
    start() {
      const w = new RunningWorker(deps);
      running = w;
      return {
        stop: async () => {
          await w.stop();
          if (running === w) running = null;
        },
      };
    },
    kick() {
      running?.kick();
    },
    reserve(n) {
      return running?.reserve(n) ?? null;
    },
  };
}

/** A row this worker holds the lease of (its scope travels beside it: rows handed over at commit carry none). */
type Claimed = Unscoped<DeliveryDoc> & { leaseOwner: string };

/** A row leased to this worker, waiting in memory for a free slot. */
interface Waiting {
  row: Claimed;
  scope: Scope;
  hook: WebhookDoc | undefined;
}

/** An attempt that ended, waiting for its result to be written. */
interface Ended {
  row: Claimed;
  at: Date;
  outcome: AttemptOutcome;
  /** What the result made of the row, once written. */
  status?: DeliveryStatus;
}

/** A waiting row is sent only if its lease outlasts an attempt's timeout by this much (or half the lease beyond the timeout, if less). */
const LEASE_MARGIN_MS = 5_000;

class RunningWorker {
  /** The queue across teams (the data layer's named way): claiming and recording by `_id` span every team. */
  private readonly Queue: ReturnType<typeof acrossTeams<WebhooksModels>>['deliveries'];
  private readonly models: WebhooksModels;
  private readonly settings: WebhookSettings;
  private readonly logger: Logger;
  private readonly disable: DeliveryWorkerDeps['disable'];
  private readonly secrets: SecretBox;
  private readonly sender: Sender;
  private readonly me = `wrk_${randomBytes(6).toString('hex')}`;
  private claims = 0;
  private stopped = false;
  private kicked = false;
  /** A kick that came while the worker held all it may: it wakes the loop once it holds half of that. */
  private owed = false;
  /**
   * Rows wait unleased (written beyond the room, or by a redelivery): until a claim comes back short,
   * new rows are not handed over at commit but join them, so they go out oldest first instead of
   * newer rows taking every freed slot while older ones wait.
   */
  private backlog = false;
  /** The last claim was full: more rows may be due, so freed room wakes the loop (nothing else does). */
  private more = false;
  /** Room promised to rows being committed with a direct lease (see commitAndDispatch in dispatch.ts). */
  private reserved = 0;
  /** Rows leased to this worker waiting for a slot, oldest first (launched by `pump`). */
  private readonly waiting: Waiting[] = [];
  /** The rows it may hold at once: `concurrency` in flight and three times as many waiting for a slot (a slow commit holds its reservation meanwhile). */
  private readonly capacity: number;
  private readonly directOwner = `${this.me}:direct`;
  private wake: (() => void) | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  /** Attempts whose answer is in and whose result is being written (stop waits for them too). */
  private readonly recording = new Set<Promise<void>>();
  /** The results of the attempts that ended together, written as one bulk write (see recordAll). */
  private readonly results = microBatches<Ended>((ended) => this.recordAll(ended));
  /** The webhooks, by scope, whose attempts succeeded together: their failing streaks cleared in one write per scope. */
  private readonly successes = microBatches<{ scope: Scope; webhookId: string }>((ok) => this.clearFailing(ok));
  private readonly loop: Promise<void>;

  constructor({ models, settings, logger, disable, secrets }: DeliveryWorkerDeps) {
    this.models = models;
    this.Queue = acrossTeams(models).deliveries;
    this.settings = settings;
    this.logger = logger;
    this.disable = disable;
    this.secrets = secrets;
    this.sender = new Sender({ allowLoopback: settings.allowLoopback, timeoutMs: settings.timeoutMs });
    this.capacity = 4 * settings.concurrency;
    this.loop = this.run();
  }

  /** New due rows were written unleased: claim them now. */
  kick(): void {
    this.backlog = true;
    this.nudge();
  }

  /** Look again now (a retry was scheduled, a kick was owed): rows may be due sooner than the loop's sleep. */
  private nudge(): void {
    this.kicked = true;
    this.wake?.();
  }

  /** Rows held: in flight, waiting for a slot, or promised to a commit under way. */
  private held(): number {
    return this.inFlight.size + this.waiting.length + this.reserved;
  }

  reserve(wanted: number): Reservation | null {
    // As many as there is room for: a micro-batch larger than the free slots waits here for them, in memory.
    const n = Math.min(wanted, this.capacity - this.held());
    if (this.stopped || this.backlog || n <= 0) return null;
    this.reserved += n;
    let settled = false;
    const release = () => {
      if (!settled) this.reserved -= n;
      settled = true;
    };
    return {
      owner: this.directOwner,
      until: new Date(Date.now() + this.settings.leaseMs),
      count: n,
      release,
      take: (scope, rows, hooks) => {
        release();
        // Stopped between the reservation and the commit: hand the rows back to whichever worker polls next.
        if (this.stopped) return void this.handBack(rows as Claimed[]);
        for (const row of rows) this.waiting.push({ row: row as Claimed, scope, hook: hooks.get(row.webhookId) });
        this.pump();
      },
    };
  }

  /** Rows this worker will not send after all: unleased again (if still its own), for whichever worker claims next. */
  private handBack(rows: Claimed[]): Promise<void> {
    if (!rows.length) return Promise.resolve();
    const p = this.Queue.updateMany(
      { _id: { $in: rows.map((r) => r._id) }, leaseOwner: { $in: [...new Set(rows.map((r) => r.leaseOwner))] } },
      { $set: { leaseOwner: null, leaseUntil: NO_LEASE } },
    )
      .then(() => this.kick())
      .catch((err) => this.logger.warn({ err: (err as Error)?.message ?? err, rows: rows.length }, 'webhook delivery worker: handing rows back failed; their leases will expire'))
      .finally(() => this.recording.delete(p));
    this.recording.add(p);
    return p;
  }

  /**
   * Launches waiting rows, oldest first, while slots are free. A row whose lease would end before
   * an attempt could (it waited behind slow receivers) is handed back instead: sent now, another
   * worker could claim and send it at the same time.
   */
  private pump(): void {
    if (this.stopped) return;
    const late: Claimed[] = [];
    const { timeoutMs, leaseMs } = this.settings;
    const soonest = Date.now() + timeoutMs + Math.min(LEASE_MARGIN_MS, (leaseMs - timeoutMs) / 2);
    while (this.inFlight.size < this.settings.concurrency && this.waiting.length) {
      const { row, scope, hook } = this.waiting.shift()!;
      if (new Date(row.leaseUntil).getTime() < soonest) late.push(row);
      else this.launch(row, scope, hook);
    }
    if (late.length) void this.handBack(late);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
    // Rows still waiting for a slot are not sent: unleased again for the next worker to claim.
    await this.handBack(this.waiting.splice(0).map((w) => w.row));
    // Attempts in flight end within timeoutMs; their results are recorded before the database closes.
    await Promise.allSettled([...this.inFlight]);
    await Promise.allSettled([...this.recording]);
    await this.sender.close();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(t);
        this.wake = null;
        resolve();
      };
      const t = setTimeout(done, ms);
      if (this.kicked || this.stopped) return done();
      this.wake = done;
    });
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      let wait = this.settings.pollIntervalMs;
      try {
        const free = this.capacity - this.held();
        // No room: a kick is owed to the moment there is (below).
        if (free <= 0) this.owed ||= this.kicked;
        this.kicked = false;
        if (free > 0) {
          const rows = await this.claim(free);
          // Fewer than asked: nothing older waits any more. (Rows a kick announced meanwhile are
          // claimed on the next turn, which the kick makes immediate.)
          if (rows.length < free) this.backlog = false;
          this.more = rows.length === free;
          if (rows.length) await this.dispatch(rows);
          // A full batch: there may be more due; go again as soon as slots free up.
          if (rows.length === free) wait = Math.min(wait, 50);
          // Nothing due: sleep until the next retry or lease ends (new rows kick; docs/adr/0070).
          else if (!rows.length) wait = await this.untilNextDue();
        }
        failures = 0;
      } catch (err) {
        failures++;
        wait = Math.min(30_000, this.settings.pollIntervalMs * 2 ** failures);
        this.logger.warn({ err: (err as Error)?.message ?? err, failures, retryInMs: wait }, 'webhook delivery worker: claim failed; will retry');
      }
      if (this.stopped) break;
      // Full: only freed room wakes it (see launch); a kick now is owed to it (rows wait unleased
      // for it: were it dropped, they could wait for the idle look).
      if (this.held() >= this.capacity) {
        this.owed ||= this.kicked;
        this.kicked = false;
      }
      await this.sleep(wait);
    }
  }

  /** With nothing due: the time until the first pending row's retry or lease ends, at most the idle look (`idlePollMs`). */
  private async untilNextDue(): Promise<number> {
    const next = await this.Queue.findOne({ status: 'pending', nextAttemptAt: { $ne: null } }, { projection: { nextAttemptAt: 1, leaseUntil: 1 }, sort: { nextAttemptAt: 1 } });
    if (!next?.nextAttemptAt) return this.settings.idlePollMs;
    const due = Math.max(next.nextAttemptAt.getTime(), next.leaseUntil.getTime());
    return Math.min(this.settings.idlePollMs, Math.max(this.settings.pollIntervalMs, due - Date.now() + 5));
  }

  /** Claims up to `n` due rows: one query for their ids, one conditional update, one read back. */
  private async claim(n: number): Promise<(Claimed & Scope)[]> {
    const now = new Date();
    const due = await this.Queue.find({ status: 'pending', nextAttemptAt: { $lte: now }, leaseUntil: { $lte: now } }, { projection: { _id: 1 }, sort: { nextAttemptAt: 1 }, limit: n }).toArray();
    if (!due.length) return [];
    const token = `${this.me}:${++this.claims}`;
    await this.Queue.updateMany(
      { _id: { $in: due.map((d) => d._id) }, status: 'pending', leaseUntil: { $lte: now } },
      { $set: { leaseOwner: token, leaseUntil: new Date(now.getTime() + this.settings.leaseMs) } },
    );
    return (await this.Queue.find({ leaseOwner: token }).toArray()) as unknown as (Claimed & Scope)[];
  }

  private async dispatch(rows: (Claimed & Scope)[]): Promise<void> {
    // The webhooks of the batch, secrets included, read through the scoped model with each row's scope.
    const byScope = new Map<string, { scope: Scope; ids: Set<string> }>();
    for (const r of rows) {
      const key = `${r.teamId}:${r.mode}`;
      if (!byScope.has(key)) byScope.set(key, { scope: r, ids: new Set() });
      byScope.get(key)!.ids.add(r.webhookId);
    }
    const hooks = new Map<string, WebhookDoc>();
    for (const { scope, ids } of byScope.values()) {
      const found = await scoped(this.models, scope).webhooks.find({ _id: { $in: [...ids] } }).select('+secret').lean<WebhookDoc[]>();
      for (const h of found) hooks.set(h._id, h);
    }
    for (const row of rows) this.waiting.push({ row, scope: row, hook: hooks.get(row.webhookId) });
    this.pump();
  }

  private launch(row: Claimed, scope: Scope, hook: WebhookDoc | undefined): void {
    const p = this.attempt(row, scope, hook)
      .catch((err) => this.logger.error({ err, deliveryId: row._id }, 'webhook delivery: recording the attempt failed; the lease will expire and it is retried'))
      .finally(() => {
        this.inFlight.delete(p);
        // The slot goes to the oldest row waiting for one, at once.
        this.pump();
        // Room for half of what it may hold: claim again if rows wait in the store (a kick owed from
        // when it was full is kept for it, not lost; a full last claim may have left more). Otherwise
        // the loop sleeps on: new rows come by hand or by kick, retries when due.
        if (this.held() > this.capacity / 2) return;
        if (this.owed) {
          this.owed = false;
          this.nudge();
        } else if (this.more) this.wake?.();
      });
    this.inFlight.add(p);
  }

  /** Writes an ended attempt's result (and the webhook's health) after its slot was freed; stop() waits for it. */
  private afterAttempt(row: Claimed, scope: Scope, hook: WebhookDoc | null, at: Date, outcome: AttemptOutcome): void {
    const p = (async () => {
      const ended: Ended = { row, at, outcome };
      await this.results.submit(ended);
      try {
        // The webhook's health first: the retry's attempt then reads the failing streak this one began.
        if (hook) await this.updateHealth(scope, hook, at, outcome);
      } finally {
        // A retry is due later: let the worker's next look count it (it may be sleeping on this row's lease).
        if (ended.status === 'pending') this.nudge();
      }
    })()
      .catch((err) => this.logger.error({ err, deliveryId: row._id }, 'webhook delivery: recording the attempt failed; the lease will expire and it is retried'))
      .finally(() => this.recording.delete(p));
    this.recording.add(p);
  }

  private async attempt(row: Claimed, scope: Scope, hook: WebhookDoc | undefined): Promise<void> {
    if (!hook || !hook.isActive || !mayRead(deliveryAccess(row), readerOf(hook))) {
      // Deleted or disabled after the row was created: inactive webhooks receive nothing; nor does one
      // that may no longer read the event (its member's role narrowed it, docs/adr/0066).
      await this.Queue.updateOne(
        { _id: row._id, leaseOwner: row.leaseOwner },
        { $set: { status: 'cancelled', nextAttemptAt: null, leaseOwner: null, leaseUntil: NO_LEASE, updatedAt: new Date() }, $inc: { generation: 1 } },
      );
      return;
    }
    const at = new Date();
    let secret: string;
    try {
      secret = signingSecret(this.secrets, hook);
    } catch (err) {
      // Sealed under a key this process lacks (a rotation under way): a failed attempt, retried on the schedule.
      if (!(err instanceof SecretOpenError)) throw err;
      this.logger.error({ webhookId: hook._id, deliveryId: row._id, err: err.message }, 'webhook delivery: the signing secret does not open with SECRETS_KEY or SECRETS_KEY_PREVIOUS');
      const outcome = { ok: false, statusCode: null, durationMs: 0, error: 'signing secret unavailable: it is sealed with a key this process does not have (SECRETS_KEY)', retryAfterMs: null };
      this.afterAttempt(row, scope, null, at, outcome);
      return;
    }
    const headers: Record<string, string> = {
      ...signAttempt(secret, row._id, row.body, at),
      'x-svc-event': row.eventType,
      'x-svc-delivery': row._id,
    };
    if (row.requestId) headers['x-svc-request-id'] = row.requestId;
    const outcome = await this.sender.send(hook.url, headers, row.body);
    this.afterAttempt(row, scope, hook, at, outcome);
  }

  /**
   * The results of attempts that ended together, in ONE bulk write: each update is conditional on the
   * lease owner and generation the row was claimed with, and releases the lease. Rows a redelivery
   * or cancellation changed meanwhile (not matched) keep that state: their attempts are logged by a
   * second bulk write, only when there are such rows, on the rows still leased as claimed (the
   * matched ones were released by the first, so applying both again changes nothing).
   */
  private async recordAll(ended: Ended[]): Promise<void> {
    const now = new Date();
    const release = { leaseOwner: null, leaseUntil: NO_LEASE, updatedAt: now };
    const logs = ended.map((e) => {
      const { row, at, outcome } = e;
      const runAttempts = row.runAttempts + 1;
      let status: DeliveryStatus;
      let next: Date | null = null;
      if (outcome.ok) status = 'succeeded';
      else if (outcome.statusCode === 410) status = 'failed'; // gone: the webhook is disabled below, nothing to retry
      else {
        next = nextAttemptAt({ attemptsInRun: runAttempts, statusCode: outcome.statusCode, retryAfterMs: outcome.retryAfterMs }, now, this.settings);
        status = next ? 'pending' : 'failed';
      }
      e.status = status;
      const attempt = { attempt: row.attemptCount + 1, at, statusCode: outcome.statusCode, durationMs: outcome.durationMs, error: outcome.error };
      const log = { $push: { attempts: { $each: [attempt], $slice: -ATTEMPTS_KEPT } }, $inc: { attemptCount: 1 } };
      return { row, outcome, status, next, runAttempts, log };
    });
    const written = await this.Queue.bulkWrite(
      logs.map(({ row, status, next, runAttempts, log }) => ({
        updateOne: { filter: { _id: row._id, leaseOwner: row.leaseOwner, generation: row.generation }, update: { $set: { ...release, status, nextAttemptAt: next, runAttempts }, ...log } },
      })),
      { ordered: false },
    );
    if (written.matchedCount < logs.length) {
      // Redelivered or cancelled while in flight: keep that state, log the attempt.
      await this.Queue.bulkWrite(
        logs.map(({ row, log }) => ({ updateOne: { filter: { _id: row._id, leaseOwner: row.leaseOwner }, update: { $set: release, ...log } } })),
        { ordered: false },
      );
    }
    for (const { status, outcome } of logs) {
      webhookDeliveries.inc({ outcome: status === 'pending' ? 'retrying' : status }); // metrics (docs/adr/0038)
      webhookDeliveryDuration.observe(outcome.durationMs / 1000);
    }
  }

  /** Clears the failing streak of the webhooks whose attempts succeeded: one write per team and partition of the batch. */
  private async clearFailing(ok: { scope: Scope; webhookId: string }[]): Promise<void> {
    const byScope = new Map<string, { scope: Scope; ids: Set<string> }>();
    for (const { scope, webhookId } of ok) {
      const key = scopeKey(scope);
      if (!byScope.has(key)) byScope.set(key, { scope, ids: new Set() });
      byScope.get(key)!.ids.add(webhookId);
    }
    for (const { scope, ids } of byScope.values()) {
      await scoped(this.models, scope).webhooks.updateMany({ _id: { $in: [...ids] }, failingSince: { $ne: null } }, { $set: { failingSince: null } });
    }
  }

  /**
   * A success clears the webhook's failing streak (when the webhook as read for the attempt had one:
   * a streak begun by a failure meanwhile is cleared by the next success); a 410 disables it; 5 days
   * of failures disable it.
   */
  private async updateHealth(scope: Scope, hook: WebhookDoc, at: Date, outcome: AttemptOutcome): Promise<void> {
    if (outcome.ok) {
      if (hook.failingSince) await this.successes.submit({ scope, webhookId: hook._id });
      return;
    }
    const { webhooks } = scoped(this.models, scope);
    await webhooks.updateOne({ _id: hook._id, failingSince: null }, { $set: { failingSince: at } });
    if (outcome.statusCode === 410) {
      if (await this.disable(scope, hook._id, { reason: 'gone', lastStatusCode: 410 })) {
        this.logger.warn({ webhookId: hook._id, teamId: scope.teamId }, 'webhook disabled: the receiver answered 410 Gone');
      }
      return;
    }
    const failingBefore = new Date(Date.now() - this.settings.failingDisableMs);
    // The cached value decides whether to look; the transaction re-checks it against the stored one.
    if (hook.failingSince && new Date(hook.failingSince) <= failingBefore) {
      if (await this.disable(scope, hook._id, { reason: 'failing', lastStatusCode: outcome.statusCode, failingBefore })) {
        this.logger.warn({ webhookId: hook._id, teamId: scope.teamId, failingSince: hook.failingSince }, 'webhook disabled: every delivery failed for too long');
      }
    }
  }
}
