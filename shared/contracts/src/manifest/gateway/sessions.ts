import { defineOperations, deletedSchema } from '../operation';
import {
  currentSessionSchema,
  requestSignInLinkBody,
  SIGN_IN_LIMIT_WINDOW_MS,
  SIGN_IN_LINK_ERRORS,
  SIGN_IN_LINKS_PER_ADDRESS,
  SIGN_IN_LINKS_PER_CLIENT,
  SIGN_INS_PER_CLIENT,
  signInBody,
  signInLinkRequestSchema,
  updateSessionBody,
} from '../workspace/sessions';

const auth = { service: 'gateway', tag: 'Sign-in and sessions' } as const;

/** The gateway's own: it sets and clears the cookie. */
export const SESSIONS = defineOperations({
  requestSignInLink: {
    ...auth,
    keys: 'none',
    method: 'POST',
    path: '/auth/sign-in-links',
    summary: 'Mail a sign-in link',
    description:
      'No credential. Mails a single-use sign-in link, valid 15 minutes, to the member with this email in each team they belong to ' +
      '(only `teamId`\'s when given): `<console>/app/sign-in?token=…`. Always 202 with the same body, whether or not the address is a ' +
      `member (nothing is stored for an unknown address). At most ${SIGN_IN_LINKS_PER_ADDRESS} requests per email address and ` +
      `${SIGN_IN_LINKS_PER_CLIENT} per client address in ${SIGN_IN_LIMIT_WINDOW_MS / 60_000} minutes: then 429 \`rate_limit_exceeded\` ` +
      'with `Retry-After`. A browser request from another site\'s page (an `Origin` other than the platform\'s) is 403 `origin_not_allowed` (docs/adr/0068).',
    permission: null,
    params: {},
    body: requestSignInLinkBody,
    success: { status: 202, data: signInLinkRequestSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'invalid_json', 'origin_not_allowed', 'rate_limit_exceeded', 'service_unavailable'],
  },
  signIn: {
    ...auth,
    keys: 'none',
    method: 'POST',
    path: '/auth/sessions',
    summary: 'Sign in with a sign-in link\'s token',
    description:
      'No credential: the `token` of a sign-in link (the console\'s `/app/sign-in?token=…` page posts it, so a mail scanner opening the ' +
      'link does not use it up). Answers the new session and sets `Set-Cookie: helpdesk_session=…; HttpOnly; SameSite=Strict; Path=/` ' +
      '(`Secure` when the request came over https, directly or through TRUSTED_PROXIES), which then works like a secret key of the ' +
      "member on every operation, with their role's permissions, in `mode` (default live). The session ends after 24 hours unused, " +
      'after 7 days in any case, at sign-out, when revoked, and when its member is removed or their role changes. Refused without a ' +
      'cookie: malformed or unknown token 400 `sign_in_link_invalid`; used 409 `sign_in_link_used`; older than 15 minutes 410 ' +
      `\`sign_in_link_expired\` (all param token). At most ${SIGN_INS_PER_CLIENT} attempts per client address in 15 minutes; another site's page ` +
      '(a foreign `Origin`) is 403 `origin_not_allowed`. Emits `session.created`.',
    permission: null,
    params: {},
    body: signInBody,
    success: { status: 201, data: currentSessionSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'invalid_json', ...SIGN_IN_LINK_ERRORS, 'origin_not_allowed', 'rate_limit_exceeded', 'service_unavailable'],
  },
  getCurrentSession: {
    ...auth,
    keys: 'session',
    method: 'GET',
    path: '/auth/session',
    summary: 'The signed-in session',
    description:
      'The session of the `helpdesk_session` cookie, with a fresh `csrfToken` (every token the session was given stays valid). 401 ' +
      '`authentication_required` without the cookie, `session_invalid` when it ended; an API key is 403.',
    permission: null,
    params: {},
    success: { status: 200, data: currentSessionSchema, shape: 'envelope' },
    errors: ['session_invalid'],
  },
  updateCurrentSession: {
    ...auth,
    keys: 'session',
    method: 'PATCH',
    path: '/auth/session',
    summary: 'Switch the session\'s partition',
    description: 'Switches the partition (`test` or `live`) the session works in. Needs `X-CSRF-Token`. Emits `session.updated`.',
    permission: null,
    params: {},
    body: updateSessionBody,
    success: { status: 200, data: currentSessionSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'invalid_json', 'session_invalid', 'csrf_token_invalid', 'origin_not_allowed'],
  },
  signOut: {
    ...auth,
    keys: 'session',
    method: 'DELETE',
    path: '/auth/session',
    summary: 'Sign out',
    description: 'Ends the session and clears the cookie. Needs `X-CSRF-Token`. Emits `session.ended` (reason `signed_out`).',
    permission: null,
    params: {},
    success: { status: 200, data: deletedSchema, shape: 'envelope' },
    errors: ['session_invalid', 'csrf_token_invalid', 'origin_not_allowed'],
  },
});
