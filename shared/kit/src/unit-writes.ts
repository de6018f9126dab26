import { mongo } from 'mongoose';

/**
 * Writes a unit of work sends with its outbox rows (docs/adr/0078): `withOutbox` opens a list for its
 * session; a write made `atCommit` on that session joins the list instead of going out at once, and
 * the unit sends the list and its outbox rows as ONE command (MongoDB 8.0's `bulkWrite` across
 * collections, in the unit's transaction) just before the commit. The same writes in the same order,
 * in the same transaction; one round trip instead of one per write.
 *
 * For writes nothing later in the unit reads or writes again (a new ticket and its messages, a
 * message's ticket update at the end of the unit). A session outside such a unit writes at once.
 */
/** One write of a unit's list (rows of any shape: `_id`s are the services' own strings). */
export type UnitWrite = mongo.AnyClientBulkWriteModel<any>;

const lists = new WeakMap<mongo.ClientSession, UnitWrite[]>();

/** @internal withOutbox: a fresh list for an attempt of its unit (a retried attempt starts empty). */
export function openUnitWrites(session: mongo.ClientSession): UnitWrite[] {
  const list: UnitWrite[] = [];
  lists.set(session, list);
  return list;
}

/** @internal withOutbox: the attempt is over (sent or failed). */
export function closeUnitWrites(session: mongo.ClientSession): void {
  lists.delete(session);
}

const namespaceOf = (c: mongo.Collection) => `${c.dbName}.${c.collectionName}`;

/** Inserts `rows` into `c`: with the unit's outbox rows when `session` is in a unit (see above), else now. Whether deferred. */
export function deferInsert(c: mongo.Collection, rows: mongo.Document[], session: mongo.ClientSession | undefined): boolean {
  const list = session && lists.get(session);
  if (!list) return false;
  const namespace = namespaceOf(c);
  for (const document of rows) list.push({ namespace, name: 'insertOne', document });
  return true;
}

/** Updates one document of `c`: with the unit's outbox rows when `session` is in a unit, else not (false: the caller writes now). */
export function deferUpdateOne(c: mongo.Collection, filter: mongo.Document, update: mongo.Document, session: mongo.ClientSession | undefined): boolean {
  const list = session && lists.get(session);
  if (!list) return false;
  list.push({ namespace: namespaceOf(c), name: 'updateOne', filter, update });
  return true;
}

/**
 * Sends `writes` as one `bulkWrite` command in `session`'s transaction, built here rather than by the
 * driver's `client.bulkWrite` (which serialises every operation once more to size its batches and
 * reads the answer through a cursor: more CPU than the round trip it saves, in process above all).
 * For a unit's few rows (far below the 16 MiB of a command). Errors come out as the single-collection
 * commands throw them: a server error as the driver throws it (its labels, TransientTransactionError
 * included: the unit is retried), a write error as a MongoServerError with its code and message
 * (11000 for a duplicate key; the index's keyPattern is in it when the server names it).
 */
export async function sendUnitWrites(client: mongo.MongoClient, writes: UnitWrite[], session: mongo.ClientSession): Promise<void> {
  const nsIndex = new Map<string, number>();
  const nsInfo: { ns: string }[] = [];
  const ops = writes.map((w) => {
    let i = nsIndex.get(w.namespace);
    if (i === undefined) {
      nsIndex.set(w.namespace, (i = nsInfo.length));
      nsInfo.push({ ns: w.namespace });
    }
    if (w.name === 'insertOne') return { insert: i, document: w.document };
    if (w.name === 'updateOne') return { update: i, multi: false, filter: w.filter, updateMods: w.update };
    throw new Error(`unit writes: ${w.name} is not sent at commit`);
  });
  const reply = await client.db('admin').command({ bulkWrite: 1, errorsOnly: true, ordered: true, ops, nsInfo }, { session });
  if (!reply.nErrors) return;
  const first = (reply.cursor?.firstBatch ?? [])[0] as { code?: number; errmsg?: string; keyPattern?: unknown; keyValue?: unknown } | undefined;
  throw new mongo.MongoServerError({ errmsg: first?.errmsg ?? 'bulkWrite failed', code: first?.code, ...(first?.keyPattern ? { keyPattern: first.keyPattern, keyValue: first.keyValue } : {}) });
}
