import { Router } from 'express';
import { parseInput, requireObjectBody, sendData } from '@helpdesk/kit';
import { readAccess, writeAccess } from '../access';
import { createCustomerSchema, listCustomersQuery, updateCustomerSchema } from './schema';
import type { CustomerService } from './service';

/** `/teams/:teamId/customers…`: the team and partition come from the internal token, never the URL. */
export function customerRoutes(customers: CustomerService): Router {
  const r = Router({ mergeParams: true });

  r.get('/', async (req, res) => {
    const ctx = readAccess(res);
    const q = parseInput(listCustomersQuery, { ...(req.query as Record<string, unknown>) });
    const { items, pagination } = await customers.list(ctx, q);
    sendData(res, items, { pagination });
  });

  r.post('/', async (req, res) => {
    const ctx = writeAccess(res);
    const input = parseInput(createCustomerSchema, requireObjectBody(req.body));
    sendData(res, await customers.create(ctx, input), { status: 201 });
  });

  r.get('/:customerId', async (req, res) => {
    const ctx = readAccess(res);
    sendData(res, await customers.get(ctx, req.params.customerId));
  });

  r.patch('/:customerId', async (req, res) => {
    const ctx = writeAccess(res);
    const input = parseInput(updateCustomerSchema, requireObjectBody(req.body));
    sendData(res, await customers.update(ctx, req.params.customerId, input));
  });

  r.delete('/:customerId', async (req, res) => {
    const ctx = writeAccess(res);
    sendData(res, await customers.remove(ctx, req.params.customerId));
  });

  return r;
}
