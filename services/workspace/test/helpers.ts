import { startServiceHarness, type ServiceHarness } from '@helpdesk/testing';
import { startWorkspace, type WorkspaceRules } from '../src';

export { expectError, TEAM_A, TEAM_B, TEST_INTERNAL_SECRET as SECRET } from '@helpdesk/testing';

export type Harness = ServiceHarness<WorkspaceRules>;

/** The workspace service on the shared harness; records every event it publishes. */
export const startHarness = (): Promise<Harness> =>
  startServiceHarness(startWorkspace, { observe: ['member.#', 'invite.#', 'settings.#', 'feature_flags.#', 'api_key.#', 'session.#', 'sign_in_link.#'] });

/** One workspace for the file's tests: started before them (handed to `ready`), stopped after them. */
export function useHarness(ready: (h: Harness) => void): void {
  let h: Harness | undefined;
  beforeAll(async () => {
    h = await startHarness();
    ready(h);
  });
  afterAll(async () => {
    await h?.stop();
  });
}
