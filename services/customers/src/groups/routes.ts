import { Router } from 'express';
import { parseInput, requireObjectBody } from '@helpdesk/kit';
import { readAccess, writeAccess } from '../access';
import { createGroupSchema, listGroupsQuery, updateGroupSchema } from './schema';
import type { GroupService } from './service';

/**
 * `/teams/:teamId/customer-groups…`. The spec shows customer-group responses without the envelope:
 * a group (and a delete's `{deleted, id}`) is the bare object; the list is the bare `{data,
 * pagination}`. The request id is in the `x-svc-request-id` header. Errors keep the standard body.
 */
export function groupRoutes(groups: GroupService): Router {
  const r = Router({ mergeParams: true });

  r.get('/', async (req, res) => {
    const ctx = readAccess(res);
    const q = parseInput(listGroupsQuery, { ...(req.query as Record<string, unknown>) });
    const { items, pagination } = await groups.list(ctx, q);
    res.json({ data: items, pagination });
  });

  r.post('/', async (req, res) => {
    const ctx = writeAccess(res);
    const input = parseInput(createGroupSchema, requireObjectBody(req.body));
    res.status(201).json(await groups.create(ctx, input));
  });

  r.get('/:groupId', async (req, res) => {
    const ctx = readAccess(res);
    res.json(await groups.get(ctx, req.params.groupId));
  });

  r.patch('/:groupId', async (req, res) => {
    const ctx = writeAccess(res);
    const input = parseInput(updateGroupSchema, requireObjectBody(req.body));
    res.json(await groups.update(ctx, req.params.groupId, input));
  });

  r.delete('/:groupId', async (req, res) => {
    const ctx = writeAccess(res);
    res.json(await groups.remove(ctx, req.params.groupId));
  });

  return r;
}
