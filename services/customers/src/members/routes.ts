import { Router, type Request } from 'express';
import { parseInput, requireObjectBody } from '@helpdesk/kit';
import { readAccess, writeAccess } from '../access';
import { addMembersSchema, listMembersQuery, removeMemberQuery } from './schema';
import type { MemberService } from './service';

/** `/teams/:teamId/customer-groups/:groupId/members`: without the envelope, like every customer-group response. */
export function memberRoutes(members: MemberService): Router {
  const r = Router({ mergeParams: true });
  const groupIdOf = (req: Request) => (req.params as Record<string, string>).groupId;

  r.get('/', async (req, res) => {
    const ctx = readAccess(res);
    const q = parseInput(listMembersQuery, { ...(req.query as Record<string, unknown>) });
    const { items, pagination } = await members.list(ctx, groupIdOf(req), q);
    res.json({ data: items, pagination });
  });

  r.post('/', async (req, res) => {
    const ctx = writeAccess(res);
    const input = parseInput(addMembersSchema, requireObjectBody(req.body));
    res.json(await members.add(ctx, groupIdOf(req), input));
  });

  r.delete('/', async (req, res) => {
    const ctx = writeAccess(res);
    const q = parseInput(removeMemberQuery, { ...(req.query as Record<string, unknown>) });
    res.json(await members.remove(ctx, groupIdOf(req), q.customerId));
  });

  return r;
}
