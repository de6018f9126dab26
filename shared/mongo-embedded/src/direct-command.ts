/**
 * Commands handed over in process, without BSON (docs/adr/0052).
 *
 * On the wire the driver serialises a command to BSON and the server parses it back (wire.ts, with
 * promoteValues and promoteLongs). In process the driver's command object can be handed over
 * directly, but only as a copy that is exactly what that round trip would have produced: the server
 * keeps what it is given (inserted documents) and must not see the caller's later changes, and a
 * number must arrive as the number it would have been. `commandBody` builds that copy for the values
 * a command usually holds; for anything else (an unusual type, a `toBSON` method, a key BSON refuses,
 * a string with unpaired surrogates, deep nesting) it answers null and the command takes the wire,
 * where BSON itself decides. test/direct-command.test.ts checks the copy against the round trip.
 */
import { Binary, Long, UUID } from 'bson';
import type { Doc } from './values';

/**
 * Deeper than this, the command takes the wire, where the depth limits are checked exactly
 * (depth.ts); well below both (201 levels for a command, 180 for a stored document).
 */
const MAX_DIRECT_DEPTH = 100;

const JS_INT_MAX = Long.fromNumber(2 ** 53);
const JS_INT_MIN = Long.fromNumber(-(2 ** 53));

/** Thrown inside the copy when BSON's own encoding must decide. */
const TAKE_THE_WIRE = Symbol('take the wire');

/** A string with an unpaired UTF-16 surrogate (BSON encodes it as U+FFFD): it takes the wire. */
const illFormed = (s: string): boolean => !(s as string & { isWellFormed(): boolean }).isWellFormed();

/**
 * The command as the server would have parsed it from the wire, or null when it must take the wire.
 * `ignoreUndefined` is the driver's serialisation option (an undefined field is left out instead of
 * being null; in arrays it is null either way).
 */
export function commandBody(command: Doc, ignoreUndefined: boolean): Doc | null {
  try {
    return copyObject(command, ignoreUndefined, 1);
  } catch (e) {
    if (e === TAKE_THE_WIRE) return null;
    throw e;
  }
}

function copyObject(o: Doc, ignoreUndefined: boolean, depth: number): Doc {
  if (depth > MAX_DIRECT_DEPTH || 'toBSON' in o || '$ref' in o) throw TAKE_THE_WIRE;
  const out: Doc = {};
  for (const key of Object.keys(o)) {
    if (key === '__proto__' || key.includes('\0') || illFormed(key)) throw TAKE_THE_WIRE;
    const v = o[key];
    if (v === undefined) {
      if (!ignoreUndefined) out[key] = null;
      continue;
    }
    out[key] = copyValue(v, ignoreUndefined, depth);
  }
  return out;
}

/** A Map is a document to BSON (mongoose sends some); only string keys are copied here. */
function mapEntries(m: Map<unknown, unknown>): [string, unknown][] {
  const entries: [string, unknown][] = [];
  for (const [k, v] of m) {
    if (typeof k !== 'string') throw TAKE_THE_WIRE;
    entries.push([k, v]);
  }
  return entries;
}

function copyValue(v: unknown, ignoreUndefined: boolean, depth: number): unknown {
  switch (typeof v) {
    case 'string':
      if (illFormed(v)) throw TAKE_THE_WIRE;
      return v;
    case 'number':
    case 'boolean':
      return v;
    case 'object':
      break;
    default:
      // undefined inside an array (null on the wire) is handled by the caller; functions, symbols
      // and bigints take the wire.
      throw TAKE_THE_WIRE;
  }
  if (v === null) return null;
  if (Array.isArray(v)) {
    if (depth >= MAX_DIRECT_DEPTH) throw TAKE_THE_WIRE;
    const out = new Array(v.length);
    for (let i = 0; i < v.length; i++) {
      const item = v[i];
      if (typeof item === 'function' || typeof item === 'symbol') throw TAKE_THE_WIRE;
      out[i] = item === undefined ? null : copyValue(item, ignoreUndefined, depth + 1);
    }
    return out;
  }
  const proto = Object.getPrototypeOf(v);
  if (proto === Object.prototype || proto === null) {
    if ('_bsontype' in (v as object)) throw TAKE_THE_WIRE;
    return copyObject(v as Doc, ignoreUndefined, depth + 1);
  }
  if (v instanceof Map) return copyObject(Object.fromEntries(mapEntries(v)), ignoreUndefined, depth + 1);
  if (v instanceof Date) {
    const t = v.getTime();
    if (Number.isNaN(t)) throw TAKE_THE_WIRE;
    return new Date(t);
  }
  if (v instanceof Uint8Array && (proto === Buffer.prototype || proto === Uint8Array.prototype)) {
    return new Binary(Buffer.from(v), 0);
  }
  switch ((v as { _bsontype?: unknown })._bsontype) {
    // Immutable once made: shared, as values.ts's clones share them.
    case 'ObjectId':
    case 'Decimal128':
    case 'Timestamp':
    case 'MinKey':
    case 'MaxKey':
      return v;
    case 'Int32':
    case 'Double':
      return (v as { value: number }).value;
    case 'Long': {
      // promoteLongs: a number from -2^53 to 2^53, else the Long.
      const l = v as Long;
      return l.lessThanOrEqual(JS_INT_MAX) && l.greaterThanOrEqual(JS_INT_MIN) ? l.toNumber() : l;
    }
    case 'Binary': {
      const b = v as Binary;
      const bytes = Buffer.from(b.buffer.subarray(0, b.position));
      // The parser makes a UUID of a 16-byte subtype 4.
      return b.sub_type === Binary.SUBTYPE_UUID && bytes.length === 16 ? new UUID(bytes) : new Binary(bytes, b.sub_type);
    }
    default:
      throw TAKE_THE_WIRE;
  }
}
