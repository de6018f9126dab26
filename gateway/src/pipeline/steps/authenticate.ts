import { takesSessionCookie } from '@helpdesk/contracts';
import { ApiError } from '@helpdesk/kit';
import { sessionCookieOf } from '../../sessions/cookie';
import { tokenParam } from '../../stream-tokens/stream-tokens';
import type { Step } from '../exchange';

/**
 * Step: the bearer key (401s: authentication_required, invalid_key_format, invalid_api_key, key_expired),
 * or on the event stream a `?token=` stream token standing for its issuing key (docs/adr/0031), or
 * without `Authorization` the console's session cookie (`session_invalid`, 403 from another site;
 * never on the keyless and the widget's operations: docs/adr/0068).
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
  if (header === undefined && g.sessions) {
    const cookie = sessionCookieOf(x.req);
    const op = x.match?.route?.op;
    if (cookie !== null && (!op || takesSessionCookie(op))) return g.sessions.authenticate(x, cookie);
  }
  x.auth = await g.resolver.authenticate(header);
};
