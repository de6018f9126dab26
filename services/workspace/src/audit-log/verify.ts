import { scoped, type RequestContext } from '@helpdesk/kit';
import type { WorkspaceModels } from '../collections';
import { entryHash } from './chain';
import type { AuditEntryDoc } from './model';

/** Walks the chain in sequence order; the first entry whose hash, link or place is wrong breaks it. */
export async function verifyAuditLog({ models }: { models: WorkspaceModels }, ctx: RequestContext) {
  let previous: Pick<AuditEntryDoc, 'sequence' | 'hash'> | null = null;
  let checkedCount = 0;
  const broken = (e: AuditEntryDoc, reason: 'hash_mismatch' | 'previous_hash_mismatch' | 'sequence_gap') => ({
    object: 'audit_log_verification' as const, valid: false, checkedCount, firstBrokenEntryId: e._id, reason,
  });
  for await (const e of scoped(models, ctx).auditEntries.find({}).sort({ sequence: 1 }).lean<AuditEntryDoc[]>().cursor()) {
    const entry = e as AuditEntryDoc;
    checkedCount++;
    if (entryHash({ ...entry, teamId: ctx.teamId, mode: ctx.mode }) !== entry.hash) return broken(entry, 'hash_mismatch');
    // The oldest kept entry starts the chain (retention removed what came before it).
    if (previous) {
      if (entry.sequence !== previous.sequence + 1) return broken(entry, 'sequence_gap');
      if (entry.previousHash !== previous.hash) return broken(entry, 'previous_hash_mismatch');
    }
    previous = entry;
  }
  return { object: 'audit_log_verification' as const, valid: true, checkedCount, firstBrokenEntryId: null, reason: null };
}
