import { createHash } from 'node:crypto';
import type { AuditEntryDoc } from './model';

/** JSON with object keys sorted at every level: the same entry always hashes the same. */
export function canonicalJson(value: unknown): string {
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i ? ',' : '') + canonicalJson(value[i]);
    return out + ']';
  }
  if (value && typeof value === 'object') {
    // sort() without a comparator orders by UTF-16 code units, as `<` on strings does.
    const keys = Object.keys(value).sort();
    let out = '{';
    for (const k of keys) {
      const v = (value as Record<string, unknown>)[k];
      if (v === undefined) continue;
      out += (out.length > 1 ? ',' : '') + JSON.stringify(k) + ':' + canonicalJson(v);
    }
    return out + '}';
  }
  return JSON.stringify(value ?? null);
}

/** SHA-256 over everything an entry says, its place in the chain and the previous entry's hash. */
export function entryHash(e: Omit<AuditEntryDoc, 'hash'>): string {
  const { _id, teamId, mode, eventId, action, resourceType, resourceId, actorType, actorId, actorName, details, createdAt, sequence, previousHash } = e;
  // Only entries made through a console session name it: every older entry hashes as it always did (docs/adr/0068).
  const actorSessionId = e.actorSessionId ?? undefined;
  const body = { _id, teamId, mode, eventId, action, resourceType, resourceId, actorType, actorId, actorSessionId, actorName, details, createdAt: new Date(createdAt), sequence, previousHash };
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}
