import { DATAOPS, updateArticleBody, updateCustomerBody, updateTicketBody, type BulkResource } from '@helpdesk/contracts';
import { ApiError, handlersFor, parameterInvalid, parameterMissing, toApiError } from '@helpdesk/kit';
import type { z } from 'zod';
import { MANAGE_PERMISSION, requirePermissions } from '../access';
import type { TransferClients } from './clients';

/** What `data` is checked against: the resource's own PATCH body. */
export const PATCH_BODY: Record<BulkResource, z.ZodType> = { tickets: updateTicketBody, customers: updateCustomerBody, articles: updateArticleBody };

/** A body's part validated by another schema: its problems name `<prefix>.<field>`. */
export function parseNested<S extends z.ZodType>(schema: S, value: unknown, prefix: string): z.output<S> {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  const err = toApiError(result.error);
  const param = err.param ? `${prefix}.${err.param}` : prefix;
  throw new ApiError(err.code, err.message.replace(err.param ?? '\u0000', param), param);
}

/**
 * `POST /bulk` (docs/adr/0036): `data` is validated as the resource's PATCH body before anything is
 * written; then the owning service runs each id through its own rules and events.
 */
export const bulkHandlers = (clients: TransferClients) =>
  handlersFor(DATAOPS)({
    bulk: async ({ ctx, body, token }) => {
      requirePermissions(ctx, [MANAGE_PERMISSION[body.resource]]);
      if (body.action === 'update' && body.data === undefined) throw parameterMissing('data', 'Missing required parameter: data (the fields to set on every id).');
      if (body.action === 'delete' && body.data !== undefined) throw parameterInvalid('data', 'Invalid data: a delete takes no data.');
      const data = body.action === 'update' ? (parseNested(PATCH_BODY[body.resource], body.data, 'data') as Record<string, unknown>) : undefined;
      if (data && !Object.keys(data).length) throw parameterInvalid('data', 'Invalid data: name at least one field to set.');
      const ids = [...new Set(body.ids)];
      const answer = await clients.call(body.resource, 'bulk', ctx, token, { action: body.action, ids, ...(data ? { data } : {}) });
      return {
        object: 'bulk_result' as const,
        action: body.action,
        resource: body.resource,
        total: ids.length,
        succeeded: answer.succeeded.length,
        failed: answer.errors.length,
        succeededIds: answer.succeeded,
        errors: answer.errors,
      };
    },
  });
