import { createHash } from 'node:crypto';
import type { AuditEntryDoc } from './model';

/** JSON with object keys sorted at every level: the same entry always hashes the same. */
export function canonicalJson(value: unknown): string {
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** SHA-256 over everything an entry says, its place in the chain and the previous entry's hash. */
export function entryHash(e: Omit<AuditEntryDoc, 'hash'>): string {
  const { _id, teamId, mode, eventId, action, resourceType, resourceId, actorType, actorId, actorName, details, createdAt, sequence, previousHash } = e;
  const body = { _id, teamId, mode, eventId, action, resourceType, resourceId, actorType, actorId, actorName, details, createdAt: new Date(createdAt), sequence, previousHash };
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}
