import { Router } from 'express';
import { notFound, parseInput, requireObjectBody, sendData } from '@helpdesk/kit';
import { internalAccess } from '../access';
import type { CustomerService } from '../customers/service';
import { createImplicitSchema, findByEmailQuery } from './schema';

/**
 * `/internal/customers…`: for the ticketing service, which needs an answer at once when a ticket
 * names a customer (services/customers/README.md). Never in the gateway's route table; the caller's
 * forwarded internal token gives the team and partition. Answers are customer snapshots (with `rev`).
 */
export function internalRoutes(customers: CustomerService): Router {
  const r = Router();

  r.get('/customers', async (req, res) => {
    const ctx = internalAccess(res, false);
    const q = parseInput(findByEmailQuery, { ...(req.query as Record<string, unknown>) });
    const found = await customers.findByEmail(ctx, q.email);
    if (!found) throw notFound('customer with this email');
    sendData(res, found);
  });

  r.get('/customers/:customerId', async (req, res) => {
    const ctx = internalAccess(res, false);
    sendData(res, await customers.snapshot(ctx, req.params.customerId));
  });

  r.post('/customers', async (req, res) => {
    const ctx = internalAccess(res, true);
    const input = parseInput(createImplicitSchema, requireObjectBody(req.body));
    sendData(res, await customers.createImplicit(ctx, input.name), { status: 201 });
  });

  return r;
}
