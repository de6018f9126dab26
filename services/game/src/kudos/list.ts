import { scoped, type Scope } from '@helpdesk/kit';
import type { GameModels } from '../collections';
import type { KudosDoc } from './model';
import { kudosView } from './view';

/** Newest first: all, a member's given and received (`memberId`), or only what they received. */
export async function listKudos(
  { models }: { models: GameModels },
  scope: Scope,
  { memberId, skip, limit, receivedOnly = false }: { memberId: string | undefined; skip: number; limit: number; receivedOnly?: boolean },
) {
  const filter = !memberId ? {} : receivedOnly ? { toMemberId: memberId } : { $or: [{ fromMemberId: memberId }, { toMemberId: memberId }] };
  const kudos = scoped(models, scope).kudos;
  const [rows, total] = await Promise.all([
    kudos.find(filter).sort({ createdAt: -1, _id: -1 }).skip(skip).limit(limit).lean<KudosDoc[]>(),
    kudos.countDocuments(filter),
  ]);
  return { data: rows.map(kudosView), total };
}
