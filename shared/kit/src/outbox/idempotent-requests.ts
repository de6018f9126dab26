import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import type { Request } from 'express';
import mongoose from 'mongoose';
import { ApiError } from '../errors';
import { SecretBox } from '../secrets';
import { idempotentRequestModel, type IdempotentRequestRow } from './models';

const { EJSON } = mongoose.mongo.BSON;

/**
 * A request's `Idempotency-Key`, as the gateway forwards it (docs/adr/0062): the key scoped to the
 * team and partition (hashed), and the fingerprint of method, path, query and body.
 */
export const IDEMPOTENCY_KEY_HEADER = 'x-svc-idempotency-key';
export const IDEMPOTENCY_FINGERPRINT_HEADER = 'x-svc-idempotency-fingerprint';

/** The key the gateway forwards for `scopedKey` (`idem:<team>:<mode>:<key>`): a hash, so no client text reaches a service's store. */
export const forwardedIdempotencyKey = (scopedKey: string): string => createHash('sha256').update(scopedKey).digest('hex');

/**
 * A test failpoint: `HELPDESK_FAILPOINT=exit-after-commit:<operationId>` kills this process right
 * after the first transaction of an idempotent request for that operation commits, before any answer
 * (the crash a fault test needs: committed, the client told nothing).
 */
const failAfterCommit = /^exit-after-commit:(\w+)$/.exec(process.env.HELPDESK_FAILPOINT ?? '')?.[1] ?? null;

interface IdempotentRequest {
  conn: mongoose.Connection;
  key: string;
  fingerprint: string;
  operationId: string;
  /** The results of the transactions a first attempt committed (replayed in order), or null on a first attempt. */
  replay: unknown[] | null;
  /** Transactions of this attempt so far. */
  step: number;
  /** Until the handler returns: a transaction started later (a background job) is not this request's. */
  open: boolean;
  /** The service's key of secrets at rest: its records are sealed (answers can carry a secret shown once, docs/adr/0067). */
  box?: SecretBox;
}

/** A record's text as stored: sealed when the service has a key, bound to its key's row. */
const stored = (box: SecretBox | undefined, key: string, text: string) => (box ? box.seal(text, `idempotent_requests:${key}`) : text);
const readBack = (box: SecretBox | undefined, key: string, text: string) => (box ? box.reveal(text, `idempotent_requests:${key}`) : text);

const current = new AsyncLocalStorage<IdempotentRequest>();

/** The record's collection, through the driver (a row kit builds itself; no tenancy plugin: the key's hash names the team). */
const ledgerOf = (conn: mongoose.Connection) => idempotentRequestModel(conn).collection as unknown as mongoose.mongo.Collection<IdempotentRequestRow>;

/** What withOutbox does for the current request's next transaction on `conn`: run and record it, or answer it from the record. */
export type IdempotentStep =
  | { replayed: true; out: unknown }
  | { replayed: false; record(session: mongoose.ClientSession, out: unknown): Promise<void>; committed(): void };

/**
 * The current idempotent request's next transaction on `conn`, or null outside one. A first attempt
 * records each transaction's result with the key IN that transaction; a retry after a crash gets the
 * recorded results back instead of writing again.
 */
export function idempotentStep(conn: mongoose.Connection): IdempotentStep | null {
  const req = current.getStore();
  if (!req || !req.open || req.conn !== conn) return null;
  const index = req.step;
  if (req.replay && index < req.replay.length) {
    req.step++;
    return { replayed: true, out: req.replay[index] };
  }
  const ledger = ledgerOf(conn);
  return {
    replayed: false,
    async record(session, out) {
      const step = stored(req.box, req.key, EJSON.stringify({ out }, { relaxed: false }));
      if (index === 0 && !req.replay) {
        try {
          await ledger.insertOne({ _id: req.key, fingerprint: req.fingerprint, steps: [step], result: null, createdAt: new Date() }, { session });
        } catch (err) {
          // Another attempt with this key committed first (the gateway gave up on it and released the
          // key while it still ran): this one is answered from that one's record (runOncePerKey).
          if ((err as { code?: number }).code === 11000) throw new KeyTakenMeanwhile();
          throw err;
        }
      } else {
        await ledger.updateOne({ _id: req.key }, { $push: { steps: step } }, { session });
      }
    },
    committed() {
      req.step++;
      if (failAfterCommit === req.operationId && index === 0) process.kill(process.pid, 'SIGKILL');
    },
  };
}

/** The key's record was written by another attempt after this one looked: answer from it instead. */
class KeyTakenMeanwhile extends Error {}

const inUse = (message: string) => new ApiError('idempotency_key_in_use', message, 'Idempotency-Key');

const headerOf = (req: Request, name: string): string | null => {
  const v = req.headers[name];
  return typeof v === 'string' && v ? v : null;
};

/**
 * Runs a write operation's handler once per Idempotency-Key, in the service that owns the write
 * (docs/adr/0062). The gateway keeps each key's answer too, but it can lose it: the service committed
 * and then crashed, or its answer was cut off, and the gateway released the key. Here the key is
 * recorded with the write, in the same transaction, so:
 * - a key already answered replays that answer;
 * - a key whose writes committed without an answer runs the handler again with every committed
 *   transaction answered from the record (nothing is written twice), and keeps that answer; a handler
 *   whose answer names an id its record does not hold is refused rather than answering a made-up id;
 * - the same key with another request is 409 `idempotency_key_in_use`.
 * A handler that writes nothing through withOutbox leaves no record (the gateway's alone applies).
 */
export async function runOncePerKey<T>(conn: mongoose.Connection, req: Request, operationId: string, run: () => Promise<T>, box?: SecretBox): Promise<T> {
  const key = req.method === 'POST' || req.method === 'PATCH' ? headerOf(req, IDEMPOTENCY_KEY_HEADER) : null;
  if (!key) return run();
  const fingerprint = headerOf(req, IDEMPOTENCY_FINGERPRINT_HEADER) ?? '';
  try {
    return await answerOnce(conn, key, fingerprint, operationId, run, box);
  } catch (err) {
    if (!(err instanceof KeyTakenMeanwhile)) throw err;
    // Two attempts ran at once and the other committed first: answered from its record, once.
    return answerOnce(conn, key, fingerprint, operationId, run, box);
  }
}

async function answerOnce<T>(conn: mongoose.Connection, key: string, fingerprint: string, operationId: string, run: () => Promise<T>, box?: SecretBox): Promise<T> {
  const ledger = ledgerOf(conn);
  const row = await ledger.findOne({ _id: key });
  if (row && row.fingerprint !== fingerprint) throw inUse('This Idempotency-Key was already used with a different method, endpoint or body.');
  if (row?.result) return (JSON.parse(readBack(box, key, row.result)) as { v: T }).v;
  const steps = row ? row.steps.map((s) => readBack(box, key, s)) : null;
  const replay = steps ? steps.map((s) => (EJSON.parse(s, { relaxed: false }) as { out: unknown }).out) : null;
  const state: IdempotentRequest = { conn, key, fingerprint, operationId, replay, step: 0, open: true, box };
  let result: T;
  try {
    result = await current.run(state, run);
  } finally {
    state.open = false;
  }
  if (!row && state.step === 0) return result;
  if (row && !answerIsRecorded(result, steps!)) {
    throw inUse('A request with this Idempotency-Key was applied, but its answer was lost. Fetch the resource instead.');
  }
  // Kept after the fact: a crash before this line is the case the recorded steps cover.
  await ledger.updateOne({ _id: key }, { $set: { result: stored(box, key, JSON.stringify({ v: result })) } });
  return result;
}

/** A replayed answer's id must come from the recorded transactions, not from this attempt's fresh ids. */
function answerIsRecorded(result: unknown, steps: string[]): boolean {
  const id = result && typeof result === 'object' && 'id' in result ? (result as { id: unknown }).id : undefined;
  return typeof id !== 'string' || steps.some((s) => s.includes(JSON.stringify(id)));
}

/**
 * Every idempotency record of the service as it should be stored now (docs/adr/0067): records kept in
 * the clear before the service had a key sealed, and with `rotate` those under a previous key sealed
 * again under the current one. Records live a day, so there are few. Each write is conditional on what
 * was read: a request answering meanwhile wins.
 */
export async function resealIdempotentRecords(conn: mongoose.Connection, box: SecretBox, opts: { rotate: boolean }): Promise<{ sealed: number; rotated: number }> {
  const ledger = ledgerOf(conn);
  const counts = { sealed: 0, rotated: 0 };
  for await (const row of ledger.find({}, { projection: { steps: 1, result: 1 } })) {
    const context = `idempotent_requests:${row._id}`;
    const moved = (v: string) => (opts.rotate || !SecretBox.isSealed(v) ? box.resealed(v, context) : null);
    const steps = row.steps.map((s) => moved(s) ?? s);
    const result = row.result === null ? null : (moved(row.result) ?? row.result);
    if (result === row.result && steps.every((s, i) => s === row.steps[i])) continue;
    const wasPlain = [...row.steps, ...(row.result === null ? [] : [row.result])].some((v) => !SecretBox.isSealed(v));
    const done = await ledger.updateOne({ _id: row._id, steps: row.steps, result: row.result }, { $set: { steps, result } });
    if (done.modifiedCount === 1) counts[wasPlain ? 'sealed' : 'rotated']++;
  }
  return counts;
}
