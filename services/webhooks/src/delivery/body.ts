import type { Partition } from '@helpdesk/contracts';
/**
 * The JSON body of a delivery, built once when the delivery is created (every attempt sends the
 * same bytes, so a signature can be checked and a body compared across retries):
 * `{id, type, createdAt, teamId, mode, [test: true], data}`, where `id` is the event's id, `createdAt`
 * when the event happened, `mode` the partition (`test` | `live`) and `data` the event's payload.
 */
export interface DeliveryBodySource {
  id: string;
  type: string;
  occurredAt: string;
  teamId: string;
  mode: Partition;
  data: Record<string, unknown>;
}

export function deliveryBody(e: DeliveryBodySource, test = false): string {
  return JSON.stringify({
    id: e.id,
    type: e.type,
    createdAt: e.occurredAt,
    teamId: e.teamId,
    mode: e.mode,
    ...(test ? { test: true } : {}),
    data: e.data,
  });
}
