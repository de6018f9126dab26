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
 * Sends `writes` in one command in `session`'s transaction. Errors come out as the single-collection
 * commands throw them: a server error (its labels, TransientTransactionError included, and code) as
 * itself, a write error as a MongoServerError with its code and message (11000 for a duplicate key;
 * the driver's bulk error does not carry the index's keyPattern).
 */
export async function sendUnitWrites(client: mongo.MongoClient, writes: UnitWrite[], session: mongo.ClientSession): Promise<void> {
  try {
    await client.bulkWrite(writes, { session, ordered: true });
  } catch (err) {
    if (!(err instanceof mongo.MongoClientBulkWriteError)) throw err;
    if (err.cause instanceof mongo.MongoError) throw err.cause;
    const first = [...err.writeErrors.values()][0];
    if (first) throw new mongo.MongoServerError({ errmsg: first.message, code: first.code });
    throw err;
  }
}
