import type { KudosDoc } from './model';

/** A kudos as answers show it. */
export const kudosView = (k: KudosDoc) => ({ id: k._id, fromMemberId: k.fromMemberId, toMemberId: k.toMemberId, message: k.message, createdAt: k.createdAt.toISOString() });
