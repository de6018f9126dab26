/**
 * A counting TCP proxy in front of a MongoDB server (gateway.bench's `--by-command`): every byte passes
 * through unchanged, and each command a client sends (OP_MSG) is counted by database and command name
 * (`ticketing insert`, `webhooks commitTransaction`, `admin hello`…), which the embedded server's own
 * counter (`serverStatus().embedded.commands`, a total) cannot say. The processes reach it as they
 * would a real MongoDB (MONGO_URL, each its own database), so what is counted is what a real server
 * would be asked. It reads only the first bytes of each message's body (the command's name) and
 * the `$db` field, and skips the rest by the message's length; it costs the benchmark's process some
 * CPU on a busy row, so the timings of a `--by-command` run are not the ones to compare.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

const OP_MSG = 2013;
const OP_COMPRESSED = 2012;
const OP_QUERY = 2004;
const DB_FIELD = Buffer.from('\x02$db\x00', 'latin1');

export interface MongoCounter {
  /** `mongodb://127.0.0.1:<proxy port>/?directConnection=true`. */
  url: string;
  /** `<db> <command>[ <collection>]` → commands so far (a copy). */
  counts(): Map<string, number>;
  close(): Promise<void>;
}

/** The command of one OP_MSG body (flags, then sections): `<db> <name>[ <collection>]`, or null when it cannot tell. */
function commandOf(msg: Buffer): string | null {
  let at = 16 + 4; // header, flagBits
  while (at < msg.length) {
    const kind = msg[at]!;
    if (kind === 0) {
      const doc = at + 1;
      const len = msg.readInt32LE(doc);
      const nameEnd = msg.indexOf(0, doc + 5);
      const name = msg.toString('utf8', doc + 5, nameEnd);
      // The command's own value names its collection when it is a string (`find: 'tickets'`).
      const collection = msg[doc + 4] === 0x02 ? ` ${msg.toString('utf8', nameEnd + 5, nameEnd + 5 + msg.readInt32LE(nameEnd + 1) - 1)}` : '';
      const dbAt = msg.indexOf(DB_FIELD, doc + 4);
      let db = '?';
      if (dbAt !== -1 && dbAt < doc + len) {
        const strLen = msg.readInt32LE(dbAt + DB_FIELD.length);
        db = msg.toString('utf8', dbAt + DB_FIELD.length + 4, dbAt + DB_FIELD.length + 4 + strLen - 1);
      }
      return `${db} ${name}${collection}`;
    }
    if (kind === 1) at += 1 + msg.readInt32LE(at + 1); // a document sequence: its size includes itself
    else return null;
  }
  return null;
}

function nameOf(msg: Buffer, op: number): string {
  if (op === OP_COMPRESSED) return '? compressed';
  if (op === OP_QUERY) return 'admin hello (handshake, OP_QUERY)';
  if (op !== OP_MSG) return `? op${op}`;
  try {
    return commandOf(msg) ?? '? ?';
  } catch {
    return '? ?'; // cut short (a large message's head)
  }
}

/** Starts the proxy on a free loopback port, forwarding to `serverUrl`'s host and port. */
export async function startMongoCounter(serverUrl: string): Promise<MongoCounter> {
  const target = new URL(serverUrl);
  const counts = new Map<string, number>();
  const bump = (k: string) => counts.set(k, (counts.get(k) ?? 0) + 1);
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: target.hostname, port: Number(target.port || 27017) });
    sockets.add(client).add(upstream);
    let pending: Buffer = Buffer.alloc(0);
    /** Bytes of the current message still to pass over (its body past what commandOf needs). */
    let skip = 0;
    const read = (chunk: Buffer) => {
      let buf = chunk;
      if (skip > 0) {
        const n = Math.min(skip, buf.length);
        skip -= n;
        buf = buf.subarray(n);
      }
      if (!buf.length) return;
      buf = pending.length ? Buffer.concat([pending, buf]) : buf;
      let at = 0;
      while (buf.length - at >= 16) {
        const len = buf.readInt32LE(at);
        const op = buf.readInt32LE(at + 12);
        if (len < 16) {
          at = buf.length; // not a message: count nothing more on this connection's chunk
          break;
        }
        if (buf.length - at < len) {
          if (len <= 1024 * 1024 || buf.length - at < 4096) break; // wait for the rest
          // A message over 1 MiB (an insert's documents): named from its first 4 KiB, the rest passed
          // over (its database may be past them: counted as `?`).
          bump(nameOf(buf.subarray(at, at + 4096), op));
          skip = len - (buf.length - at);
          at = buf.length;
          break;
        }
        bump(nameOf(buf.subarray(at, at + len), op));
        at += len;
      }
      pending = at < buf.length ? Buffer.from(buf.subarray(at)) : Buffer.alloc(0);
    };
    client.on('data', (d: Buffer) => {
      read(d);
      if (!upstream.write(d)) client.pause();
    });
    upstream.on('drain', () => client.resume());
    upstream.on('data', (d: Buffer) => {
      if (!client.write(d)) upstream.pause();
    });
    client.on('drain', () => upstream.resume());
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    for (const s of [client, upstream]) {
      s.on('error', end);
      s.on('close', end);
    }
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `mongodb://127.0.0.1:${(server.address() as { port: number }).port}/?directConnection=true`,
    counts: () => new Map(counts),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
