/**
 * Nesting-depth limits, as MongoDB enforces them (mongodb/mongo, `src/mongo/bson/bson_depth.h` and
 * `bson_depth.cpp`):
 *
 * - `maxBSONDepth` (`BSONDepth::kDefaultMaxAllowableDepth` = 200, a startup parameter between
 *   `kBSONDepthParameterFloor` = 21 and `kBSONDepthParameterCeiling` = 250) bounds every BSON
 *   object the server reads off the wire: `validateBSON` (`src/mongo/bson/bson_validate.cpp`) gives
 *   a flat object one frame and has room for maxBSONDepth + 1 frames, so a command may nest 201
 *   levels (itself included) and the 202nd is refused with `Overflow` (code 15),
 *   "BSONObj exceeds maximum nested object depth in element with field name '…' in object with …".
 *   The server answers that as a command error and keeps the connection.
 * - Stored documents may nest `getMaxDepthForUserStorage()` = maxBSONDepth − 20
 *   (`kExtraSystemDepthLevels`, room for oplog entries and replies) = **180** levels, the document
 *   itself counting as one and empty objects or arrays not counting. Beyond that an insert fails
 *   with `Overflow` (15), "cannot insert document because it exceeds 180 levels of nesting"
 *   (`validateDepth` in `src/mongo/db/ops/insert.cpp`), and an update, upsert or findAndModify whose
 *   result is too deep with `Overflow` (15), "Document exceeds maximum nesting depth of 180"
 *   (`storageValid` in `src/mongo/db/update/storage_validation.cpp`).
 *
 * MongoDB's manual states "no more than 100 levels of nesting"; that is the supported depth it
 * promises (jstests/core/nestedobj1.js calls it a soft limit and checks deeper documents insert), not
 * the one the server enforces, which is 180. An embedded server started with `maxBSONDepth: 120`
 * enforces 100, as a mongod started with `--setParameter maxBSONDepth=120` does.
 *
 * Every walk here is iterative, so no input depth can overflow the stack.
 */
import { err } from './errors';
import { isPlainObject } from './values';

export const DEFAULT_MAX_BSON_DEPTH = 200;
export const MIN_MAX_BSON_DEPTH = 21;
export const MAX_MAX_BSON_DEPTH = 250;
export const EXTRA_SYSTEM_DEPTH_LEVELS = 20;

/** The stored-document depth limit for a maxBSONDepth (180 for the default 200). */
export function maxDepthForUserStorage(maxBSONDepth: number): number {
  return maxBSONDepth - EXTRA_SYSTEM_DEPTH_LEVELS;
}

/** Checks a `maxBSONDepth` option the way mongod checks its startup parameter. */
export function checkMaxBSONDepth(v: number): number {
  if (!Number.isInteger(v) || v < MIN_MAX_BSON_DEPTH || v > MAX_MAX_BSON_DEPTH) {
    throw new RangeError(`maxBSONDepth must be an integer from ${MIN_MAX_BSON_DEPTH} to ${MAX_MAX_BSON_DEPTH}, got ${v}`);
  }
  return v;
}

/** The children of a container value (plain object, array or DBRef), or null for a scalar. */
function children(v: unknown): unknown[] | null {
  if (v === null || typeof v !== 'object') return null;
  if (Array.isArray(v)) return v;
  if (isPlainObject(v)) return Object.values(v);
  const b = v as { _bsontype?: string; oid?: unknown; fields?: Record<string, unknown> };
  // A DBRef is stored as the embedded document { $ref, $id, $db?, ...fields }.
  if (b._bsontype === 'DBRef') return [b.oid, ...Object.values(b.fields ?? {})];
  return null;
}

/**
 * Whether a document nests more than `max` levels: the document is level 1, each non-empty object or
 * array inside adds one (empty ones do not count, as in MongoDB).
 */
export function exceedsDepth(doc: unknown, max: number): boolean {
  const stack: { items: unknown[]; i: number }[] = [{ items: children(doc) ?? [], i: 0 }];
  while (stack.length) {
    const top = stack[stack.length - 1];
    if (top.i >= top.items.length) {
      stack.pop();
      continue;
    }
    const kids = children(top.items[top.i++]);
    if (kids && kids.length) {
      if (stack.length >= max) return true;
      stack.push({ items: kids, i: 0 });
    }
  }
  return false;
}

/** MongoDB's refusal of an insert whose document is too deep. */
export function checkInsertDepth(doc: unknown, max: number): void {
  if (exceedsDepth(doc, max)) throw err(15, `cannot insert document because it exceeds ${max} levels of nesting`);
}

/** MongoDB's refusal of an update (or upsert, or findAndModify) whose resulting document is too deep. */
export function checkUpdateDepth(doc: unknown, max: number): void {
  if (exceedsDepth(doc, max)) throw err(15, `Document exceeds maximum nesting depth of ${max}`);
}

/** One open object of a wire scan: its end offset and the name of the element that opened it ('' for the root, null for a code-with-scope's scope). */
interface OpenObject {
  end: number;
  name: string | null;
  /** A code-with-scope, whose scope is the next frame. */
  cws: boolean;
}

/**
 * Scans the raw BSON object at buf[start, start + size) without decoding it and returns MongoDB's
 * message if it nests deeper than maxBSONDepth + 1 levels, else null. Malformed input returns null
 * too: the decoder reports it. Iterative, and linear in the input size.
 */
export function wireDepthError(buf: Buffer, start: number, size: number, maxBSONDepth: number): string | null {
  const maxFrames = maxBSONDepth + 1;
  // Each level below the root costs at least 7 bytes (type, empty name, length, terminator).
  if (size < 5 + 7 * maxFrames) return null;
  const limit = Math.min(buf.length, start + size);
  const frames: OpenObject[] = [{ end: start + size, name: '', cws: false }];
  let idText: string | null = null;
  let pos = start + 4;
  while (frames.length) {
    if (pos >= limit) return null;
    const type = buf[pos];
    if (type === 0) {
      pos = closeObject(frames, pos + 1);
      if (pos < 0) return null;
      continue;
    }
    const nameEnd = cstringEnd(buf, pos + 1, limit);
    if (nameEnd < 0) return null;
    const name = buf.toString('utf8', pos + 1, nameEnd);
    const v = nameEnd + 1;
    switch (type) {
      case 0x03: // object
      case 0x04: {
        // array
        if (frames.length >= maxFrames) return overflowMessage(frames, name, idText);
        const len = int32At(buf, v, limit);
        if (len < 5) return null;
        frames.push({ end: v + len, name, cws: false });
        pos = v + 4;
        continue;
      }
      case 0x0f: {
        // code with scope: [int32 total][string][document], one frame for itself and one for the scope
        if (frames.length >= maxFrames) return overflowMessage(frames, name, idText);
        const total = int32At(buf, v, limit);
        const strLen = int32At(buf, v + 4, limit);
        const scope = v + 8 + strLen;
        if (total < 14 || strLen < 1) return null;
        frames.push({ end: v + total, name, cws: true });
        if (frames.length >= maxFrames) return overflowMessage(frames, '?', idText);
        const len = int32At(buf, scope, limit);
        if (len < 5) return null;
        frames.push({ end: scope + len, name: null, cws: false });
        pos = scope + 4;
        continue;
      }
    }
    const next = scalarEnd(buf, type, v, limit);
    if (next < v || next > limit) return null;
    if (frames.length === 1 && name === '_id' && idText === null) idText = describeId(buf, type, v);
    pos = next;
  }
  return null;
}

/**
 * Closes the innermost open object at its terminator (`pos` is just past it): the offset to go on
 * from, or -1 when the object's length said it ends elsewhere (malformed).
 */
function closeObject(frames: OpenObject[], pos: number): number {
  const closed = frames.pop()!;
  if (pos !== closed.end) return -1;
  // The end of a code-with-scope's scope also ends the code-with-scope's own frame.
  if (closed.name === null && frames.length && frames[frames.length - 1].cws) {
    const cws = frames.pop()!;
    if (pos !== cws.end) return -1;
  }
  return pos;
}

/** MongoDB's refusal of a command nested too deep, `current` the element that would open one level too many. */
function overflowMessage(frames: OpenObject[], current: string, idText: string | null): string {
  const path: string[] = [];
  for (let i = 1; i < frames.length; i++) {
    const name = frames[i].name;
    if (name !== null) path.push(escape(name));
  }
  path.push(escape(current));
  return `BSONObj exceeds maximum nested object depth in element with field name '${path.join('.')}' in object with ${idText ?? 'unknown _id'}`;
}

/** The offset of the 0 that ends the cstring starting at p, or -1 when there is none before limit. */
function cstringEnd(buf: Buffer, p: number, limit: number): number {
  const z = buf.indexOf(0, p);
  return z < 0 || z >= limit ? -1 : z;
}

/** The int32 at p, or -1 when it is not inside the object or is negative. */
function int32At(buf: Buffer, p: number, limit: number): number {
  return p + 4 <= limit ? Math.max(-1, buf.readInt32LE(p)) : -1;
}

/** Where the value of a scalar element of `type` starting at v ends, or -1 for an unknown type or a malformed value. */
function scalarEnd(buf: Buffer, type: number, v: number, limit: number): number {
  switch (type) {
    case 0x01: // double
    case 0x09: // date
    case 0x11: // timestamp
    case 0x12: // int64
      return v + 8;
    case 0x10: // int32
      return v + 4;
    case 0x13: // decimal128
      return v + 16;
    case 0x07: // ObjectId
      return v + 12;
    case 0x08: // bool
      return v + 1;
    case 0x06: // undefined
    case 0x0a: // null
    case 0x7f: // maxKey
    case 0xff: // minKey
      return v;
    case 0x02: // string
    case 0x0d: // code
    case 0x0e: {
      // symbol
      const len = int32At(buf, v, limit);
      return len < 1 ? -1 : v + 4 + len;
    }
    case 0x05: {
      // binary
      const len = int32At(buf, v, limit);
      return len < 0 ? -1 : v + 5 + len;
    }
    case 0x0b: {
      // regex: two cstrings
      const a = cstringEnd(buf, v, limit);
      const b = a < 0 ? -1 : cstringEnd(buf, a + 1, limit);
      return b < 0 ? -1 : b + 1;
    }
    case 0x0c: {
      // DBPointer
      const len = int32At(buf, v, limit);
      return len < 1 ? -1 : v + 4 + len + 12;
    }
    default:
      return -1;
  }
}

/** `_id: <value>` as MongoDB's BSONElement::toString prints the common _id types. */
function describeId(buf: Buffer, type: number, v: number): string {
  switch (type) {
    case 0x10:
      return `_id: ${buf.readInt32LE(v)}`;
    case 0x12:
      return `_id: ${buf.readBigInt64LE(v)}`;
    case 0x02:
      return `_id: "${buf.toString('utf8', v + 4, v + 3 + buf.readInt32LE(v))}"`;
    case 0x07:
      return `_id: ObjectId('${buf.toString('hex', v, v + 12)}')`;
    default:
      return '_id: ?';
  }
}

/** The escaping MongoDB applies to the field path (str::escape): quotes, backslashes and control characters. */
function escape(s: string): string {
  return s.replace(/["\\\u0000-\u001f]/g, (c) => {
    if (c === '"' || c === '\\') return '\\' + c;
    const named: Record<string, string> = { '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
    return named[c] ?? '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0');
  });
}
