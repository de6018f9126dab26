import { Router } from 'express';
import { internalTokenOf, parseInput, requireObjectBody, sendData } from '@helpdesk/kit';
import type { Response } from 'express';
import type { CustomersClient } from '../customers/client';
import { readAccess, writeAccess } from '../access';
import { createTicketSchema, getTicketQuery, listTicketsQuery, updateTicketSchema } from './schema';
import type { TicketService } from './service';

/** `/teams/:teamId/tickets…`: the team and partition come from the internal token, never the URL. */
export function ticketRoutes(tickets: TicketService, customers: CustomersClient): Router {
  const r = Router({ mergeParams: true });
  const lookup = (res: Response) => customers.forRequest(internalTokenOf(res), res.locals.requestId as string);

  r.get('/', async (req, res) => {
    const ctx = readAccess(res);
    const q = parseInput(listTicketsQuery, { ...(req.query as Record<string, unknown>) });
    const { items, pagination } = await tickets.list(ctx, q);
    sendData(res, items, { pagination });
  });

  r.post('/', async (req, res) => {
    const ctx = writeAccess(res);
    const input = parseInput(createTicketSchema, requireObjectBody(req.body));
    sendData(res, await tickets.create(ctx, input, lookup(res)), { status: 201 });
  });

  r.get('/:ticketId', async (req, res) => {
    const ctx = readAccess(res);
    const q = parseInput(getTicketQuery, { ...(req.query as Record<string, unknown>) });
    sendData(res, await tickets.get(ctx, req.params.ticketId, q));
  });

  r.patch('/:ticketId', async (req, res) => {
    const ctx = writeAccess(res);
    const input = parseInput(updateTicketSchema, requireObjectBody(req.body));
    sendData(res, await tickets.update(ctx, req.params.ticketId, input, lookup(res)));
  });

  r.delete('/:ticketId', async (req, res) => {
    const ctx = writeAccess(res);
    sendData(res, await tickets.remove(ctx, req.params.ticketId));
  });

  return r;
}
