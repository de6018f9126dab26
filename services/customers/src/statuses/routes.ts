import { Router } from 'express';
import { parseInput, requireObjectBody, sendData } from '@helpdesk/kit';
import { readAccess, writeAccess } from '../access';
import { createStatusSchema, listStatusesQuery, updateStatusSchema } from './schema';
import type { StatusService } from './service';

/** `/teams/:teamId/customer-statuses…`: reads need `view_customers`, writes `manage_settings` (team configuration). */
export function statusRoutes(statuses: StatusService): Router {
  const r = Router({ mergeParams: true });

  r.get('/', async (req, res) => {
    const ctx = readAccess(res);
    parseInput(listStatusesQuery, { ...(req.query as Record<string, unknown>) });
    sendData(res, await statuses.list(ctx));
  });

  r.post('/', async (req, res) => {
    const ctx = writeAccess(res, 'manage_settings');
    const input = parseInput(createStatusSchema, requireObjectBody(req.body));
    sendData(res, await statuses.create(ctx, input), { status: 201 });
  });

  r.patch('/:statusKey', async (req, res) => {
    const ctx = writeAccess(res, 'manage_settings');
    const input = parseInput(updateStatusSchema, requireObjectBody(req.body));
    sendData(res, await statuses.update(ctx, req.params.statusKey, input));
  });

  r.delete('/:statusKey', async (req, res) => {
    const ctx = writeAccess(res, 'manage_settings');
    sendData(res, await statuses.remove(ctx, req.params.statusKey));
  });

  return r;
}
