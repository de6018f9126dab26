import { Router } from 'express';
import { parseInput, requireObjectBody, sendData } from '@helpdesk/kit';
import { readAccess, writeAccess } from '../access';
import { addMessageSchema, listMessagesQuery } from './schema';
import type { MessageService } from './service';

/** `/teams/:teamId/tickets/:ticketId/messages`. */
export function messageRoutes(messages: MessageService): Router {
  const r = Router({ mergeParams: true });

  r.get('/', async (req, res) => {
    const ctx = readAccess(res);
    const q = parseInput(listMessagesQuery, { ...(req.query as Record<string, unknown>) });
    const { items, pagination } = await messages.list(ctx, (req.params as Record<string, string>).ticketId, q);
    sendData(res, items, { pagination });
  });

  r.post('/', async (req, res) => {
    const ctx = writeAccess(res);
    const input = parseInput(addMessageSchema, requireObjectBody(req.body));
    sendData(res, await messages.add(ctx, (req.params as Record<string, string>).ticketId, input), { status: 201 });
  });

  return r;
}
