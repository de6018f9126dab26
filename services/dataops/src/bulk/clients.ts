import {
  BULK_INTERNAL_BY_RESOURCE,
  CUSTOMERS_BULK_INTERNAL,
  type BulkResource,
  type ExportPageAnswer,
  type ExportPageInput,
  type ImportRowOutcome,
  type ImportRowsInput,
  type InternalBulkAnswer,
  type InternalBulkInput,
  type Operations,
} from '@helpdesk/contracts';
import { internalClient, type RequestContext } from '@helpdesk/kit';
import type { z } from 'zod';
import type { DataopsConfig } from '../rules';

/** 500 imported rows (or 100 bulk ids) go through their service's rules one by one: it may take a while. */
const TRANSFER_TIMEOUT_MS = 120_000;

interface Kinds {
  bulk: [InternalBulkInput, InternalBulkAnswer];
  exportPage: [ExportPageInput, ExportPageAnswer];
  importRows: [ImportRowsInput, { outcomes: ImportRowOutcome[] }];
}

/**
 * The owning services' bulk, export and import operations (each service's manifest/<service>/dataops.ts, gathered in manifest/dataops/owners.ts), by resource: each call
 * forwards the caller's token, so each service answers in the caller's team and partition.
 */
export function transferClients(config: DataopsConfig) {
  const urls = { ticketing: config.ticketingUrl, customers: config.customersUrl, knowledge: config.knowledgeUrl };
  const clients = Object.fromEntries(
    Object.entries(BULK_INTERNAL_BY_RESOURCE).map(([resource, { service, ops }]) => [
      resource,
      internalClient(ops as Operations, urls[service], { service, timeoutMs: TRANSFER_TIMEOUT_MS }),
    ]),
  ) as Record<BulkResource, ReturnType<typeof internalClient<Operations>>>;
  const requesters = internalClient(CUSTOMERS_BULK_INTERNAL, config.customersUrl, { service: 'customers', timeoutMs: TRANSFER_TIMEOUT_MS });

  return {
    /** One of a resource's three operations; it always answers (a 404 there is a bug, not a missing record). */
    async call<K extends keyof Kinds>(resource: BulkResource, kind: K, ctx: RequestContext, token: string, body: Kinds[K][0]): Promise<Kinds[K][1]> {
      const id = BULK_INTERNAL_BY_RESOURCE[resource][kind];
      const answer = await clients[resource].forRequest(token, ctx.requestId).call(id, { body });
      if (answer === null) throw new Error(`${resource}: ${id} answered 404`);
      return answer as Kinds[K][1];
    },
    /** Ticket import's requesters, found or created by the customers service (rule 3). */
    async ensureRequesters(ctx: RequestContext, token: string, body: z.input<(typeof CUSTOMERS_BULK_INTERNAL)['ensureRequesters']['body']>) {
      const answer = await requesters.forRequest(token, ctx.requestId).call('ensureRequesters', { body });
      if (answer === null) throw new Error('ensureRequesters answered 404');
      return answer.customers;
    },
  };
}
export type TransferClients = ReturnType<typeof transferClients>;
