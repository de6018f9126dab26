/**
 * Child process of connection-close.test.ts: connects to the URL given, opens a transaction that
 * changes document `x` and inserts `y` in `close.docs`, prints `in transaction`, and then waits to
 * be killed, its transaction left open.
 */
import { MongoClient } from 'mongodb';

async function main(): Promise<void> {
  const client = await MongoClient.connect(process.argv[2]);
  const docs = client.db('close').collection<{ _id: string; v: string }>('docs');
  const session = client.startSession();
  session.startTransaction();
  await docs.updateOne({ _id: 'x' }, { $set: { v: 'uncommitted' } }, { session });
  await docs.insertOne({ _id: 'y', v: 'uncommitted' }, { session });
  process.stdout.write('in transaction\n');
  setInterval(() => undefined, 60_000);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
