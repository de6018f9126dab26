/** MongoDB wire protocol framing: OP_MSG (2013), legacy OP_QUERY (2004) and its OP_REPLY (1). */
import { deserialize, serialize } from 'bson';
import { crc32c } from './crc32c';
import { DEFAULT_MAX_BSON_DEPTH, wireDepthError } from './depth';
import { Doc } from './values';

export const OP_REPLY = 1;
export const OP_QUERY = 2004;
export const OP_MSG = 2013;
export const OP_COMPRESSED = 2012;

const DESER = { promoteLongs: true, promoteValues: true, promoteBuffers: false, bsonRegExp: false } as const;

export interface Request {
  requestId: number;
  opCode: number;
  body: Doc;
  moreToCome: boolean;
  legacy: boolean;
}

export class ProtocolError extends Error {}

/** Thrown while parsing when a document nests deeper than maxBSONDepth allows (see depth.ts). */
class TooDeep extends Error {}

/** Decodes the BSON object at buf[pos, pos + size) once its depth has been checked without recursion. */
function decode(buf: Buffer, pos: number, size: number, maxBSONDepth: number): Doc {
  const tooDeep = wireDepthError(buf, pos, size, maxBSONDepth);
  if (tooDeep) throw new TooDeep(tooDeep);
  return deserialize(buf.subarray(pos, pos + size), DESER);
}

/**
 * Parses one complete message (header included). A document nested deeper than MongoDB accepts is
 * not decoded (the decoder recurses, so a deep enough one would overflow the stack): the request's
 * body is then `{ $overflow: <MongoDB's message> }`, which the server answers as MongoDB does, with
 * error 15 Overflow on a connection that stays open.
 */
export function parseMessage(buf: Buffer, maxBSONDepth = DEFAULT_MAX_BSON_DEPTH): Request {
  const requestId = buf.readInt32LE(4);
  const opCode = buf.readInt32LE(12);
  try {
    return parseBody(buf, requestId, opCode, maxBSONDepth);
  } catch (e) {
    if (!(e instanceof TooDeep)) throw e;
    const moreToCome = opCode === OP_MSG && (buf.readUInt32LE(16) & 2) !== 0;
    return { requestId, opCode, body: { $overflow: e.message }, moreToCome, legacy: opCode !== OP_MSG };
  }
}

function parseBody(buf: Buffer, requestId: number, opCode: number, maxBSONDepth: number): Request {
  if (opCode === OP_MSG) {
    const flags = buf.readUInt32LE(16);
    const checksum = (flags & 1) !== 0;
    const end = buf.length - (checksum ? 4 : 0);
    if (checksum) {
      const want = buf.readUInt32LE(end);
      if (crc32c(buf.subarray(0, end)) !== want) throw new ProtocolError('OP_MSG checksum mismatch');
    }
    let pos = 20;
    let body: Doc | null = null;
    const seqs: [string, Doc[]][] = [];
    while (pos < end) {
      const kind = buf[pos++];
      if (kind === 0) {
        const size = buf.readInt32LE(pos);
        body = decode(buf, pos, size, maxBSONDepth);
        pos += size;
      } else if (kind === 1) {
        const size = buf.readInt32LE(pos);
        const secEnd = pos + size;
        let p = pos + 4;
        const z = buf.indexOf(0, p);
        const id = buf.toString('utf8', p, z);
        p = z + 1;
        const docs: Doc[] = [];
        while (p < secEnd) {
          const dsize = buf.readInt32LE(p);
          docs.push(decode(buf, p, dsize, maxBSONDepth));
          p += dsize;
        }
        seqs.push([id, docs]);
        pos = secEnd;
      } else throw new ProtocolError(`unknown OP_MSG section kind ${kind}`);
    }
    if (!body) throw new ProtocolError('OP_MSG without a body section');
    for (const [id, docs] of seqs) {
      const cur = body[id];
      body[id] = Array.isArray(cur) ? [...cur, ...docs] : docs;
    }
    return { requestId, opCode, body, moreToCome: (flags & 2) !== 0, legacy: false };
  }
  if (opCode === OP_QUERY) {
    let pos = 20;
    const z = buf.indexOf(0, pos);
    const ns = buf.toString('utf8', pos, z);
    pos = z + 1 + 8;
    const size = buf.readInt32LE(pos);
    let q: Doc = decode(buf, pos, size, maxBSONDepth);
    if (q.$query && typeof q.$query === 'object') q = { ...q.$query };
    else if (q.query && typeof q.query === 'object' && Object.keys(q)[0] === 'query') q = { ...q.query };
    const dot = ns.indexOf('.');
    const db = dot >= 0 ? ns.slice(0, dot) : ns;
    const coll = dot >= 0 ? ns.slice(dot + 1) : '';
    if (coll !== '$cmd') {
      return { requestId, opCode, body: { $unsupportedLegacyQuery: ns, $db: db }, moreToCome: false, legacy: true };
    }
    q.$db = db;
    return { requestId, opCode, body: q, moreToCome: false, legacy: true };
  }
  return { requestId, opCode, body: { $unsupportedOpCode: opCode }, moreToCome: false, legacy: opCode !== OP_MSG };
}

let nextId = 1;

export function encodeReply(req: Request, reply: Doc): Buffer {
  const doc = serialize(reply);
  if (req.legacy) {
    const out = Buffer.allocUnsafe(36 + doc.length);
    out.writeInt32LE(out.length, 0);
    out.writeInt32LE(nextId++ & 0x7fffffff, 4);
    out.writeInt32LE(req.requestId, 8);
    out.writeInt32LE(OP_REPLY, 12);
    out.writeInt32LE(0, 16);
    out.writeBigInt64LE(0n, 20);
    out.writeInt32LE(0, 28);
    out.writeInt32LE(1, 32);
    out.set(doc, 36);
    return out;
  }
  const out = Buffer.allocUnsafe(21 + doc.length);
  out.writeInt32LE(out.length, 0);
  out.writeInt32LE(nextId++ & 0x7fffffff, 4);
  out.writeInt32LE(req.requestId, 8);
  out.writeInt32LE(OP_MSG, 12);
  out.writeUInt32LE(0, 16);
  out[20] = 0;
  out.set(doc, 21);
  return out;
}
