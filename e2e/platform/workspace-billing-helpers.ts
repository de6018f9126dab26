import type { EventEnvelope } from '@helpdesk/contracts';
import { eventually } from '@helpdesk/testing';
import type { TestPlatform } from '../support/platform';
import { expectOk } from './helpdesk-helpers';

/**
 * Collects the workspace's `billing.*` events, and proves none is still coming (`settle`): a marker
 * event (the other team's widget greeting) committed after them arrives on the same queue.
 */
export async function billingEventLog(tp: TestPlatform) {
  const events: EventEnvelope<any>[] = [];
  const markers: EventEnvelope<any>[] = [];
  await tp.observe('workspace', ['billing.#', 'widget_settings.#'], async (e) => {
    (e.type === 'widget_settings.updated' ? markers : events).push(e as EventEnvelope<any>);
  });
  async function settle(): Promise<void> {
    const res = await tp.api.patch(`/teams/${tp.otherTeam.teamId}/settings/widget`, { greeting: `marker ${Date.now()}` }, { key: tp.otherTeam.sk_test });
    const requestId = expectOk(res, 200) && res.body.meta.requestId;
    await eventually('the marker event', async () => markers.some((e) => e.requestId === requestId), 15_000);
  }
  return { events, settle };
}
