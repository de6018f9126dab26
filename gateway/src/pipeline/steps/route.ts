import { ApiError } from '@helpdesk/kit';
import type { Step } from '../exchange';

/** Step: the operation of this method and path (404 `route_not_found`; 405 `method_not_allowed` with `Allow`). */
export const route: Step = (x) => {
  if (!x.match) throw new ApiError('route_not_found', `Unrecognized request URL (${x.method} ${x.subPath}).`);
  if (!x.match.route) {
    throw new ApiError('method_not_allowed', `${x.method} is not allowed on this endpoint. Allowed: ${x.match.allow}.`, undefined, {
      headers: { Allow: x.match.allow },
    });
  }
  x.route = x.match.route;
};
