import mongoose from 'mongoose';

/** `@helpdesk/mongo-embedded` is being finished by another engineer: the suites skip, loudly, until it exports startEmbeddedMongo. */
export const embeddedMongoAvailable: boolean = (() => {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return typeof require('@helpdesk/mongo-embedded').startEmbeddedMongo === 'function';
  } catch {
    return false;
  }
})();
export const describeDb = embeddedMongoAvailable ? describe : describe.skip;
if (!embeddedMongoAvailable) console.warn('kit/outbox: @helpdesk/mongo-embedded not available yet: database suites skipped');

export interface TestMongo {
  connect(db: string): Promise<mongoose.Connection>;
  close(): Promise<void>;
}

export async function startMongo(): Promise<TestMongo> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startEmbeddedMongo } = require('@helpdesk/mongo-embedded') as { startEmbeddedMongo: () => Promise<{ uri(db?: string): string; close(): Promise<void> }> };
  const m = await startEmbeddedMongo();
  const conns: mongoose.Connection[] = [];
  return {
    async connect(db) {
      const conn = mongoose.createConnection(m.uri(db), { autoIndex: true, autoCreate: true, serverSelectionTimeoutMS: 5000 });
      await conn.asPromise();
      conns.push(conn);
      return conn;
    },
    async close() {
      for (const c of conns) await c.close().catch(() => undefined);
      await m.close();
    },
  };
}
