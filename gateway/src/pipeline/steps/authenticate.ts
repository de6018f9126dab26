import type { Step } from '../exchange';

/** Step: the bearer key (401s: authentication_required, invalid_key_format, invalid_api_key, key_expired). */
export const authenticate: Step = async (x, g) => {
  x.auth = await g.resolver.authenticate(x.req.headers.authorization);
};
