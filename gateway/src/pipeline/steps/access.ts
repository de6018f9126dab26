import { accessRefusal } from '@helpdesk/contracts';
import { ApiError } from '@helpdesk/kit';
import type { Step } from '../exchange';

/**
 * Step: publishable keys (no writes: `publishable_key_write`; no staff resource:
 * `publishable_key_forbidden`; only public reads), then the operation's permission
 * (`insufficient_permissions`). The services apply the same rule again.
 */
export const access: Step = (x) => {
  const refused = accessRefusal(x.route!.op, { keyType: x.auth!.key.type, permissions: x.auth!.permissions });
  if (refused) throw new ApiError(refused.code, refused.message, refused.param);
};
