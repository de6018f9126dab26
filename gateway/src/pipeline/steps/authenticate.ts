import { ApiError } from '@helpdesk/kit';
import { tokenParam } from '../../stream-tokens/stream-tokens';
import type { Step } from '../exchange';

/**
 * Step: the bearer key (401s: authentication_required, invalid_key_format, invalid_api_key, key_expired),
 * or on the event stream a `?token=` stream token standing for its issuing key (docs/adr/0031).
 */
export const authenticate: Step = async (x, g) => {
  const header = x.req.headers.authorization;
  const token = x.match?.route?.op.stream === true ? tokenParam(x.query) : null;
  if (token !== null) {
    if (header !== undefined) throw new ApiError('parameter_invalid', 'Send an API key or a stream token, not both.', 'token');
    const { auth, claims } = await g.streamTokens.authenticate(token);
    x.auth = auth;
    x.streamToken = claims;
    return;
  }
  x.auth = await g.resolver.authenticate(header);
};
