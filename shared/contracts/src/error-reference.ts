import { ERROR_CODES, type ErrorCode } from './errors';

/**
 * The error reference: for every code of the error catalog (./errors.ts), what it means and what a
 * client should do. Generated from here: `docs/errors.md` (`npm run openapi`) and the HTML page the
 * platform serves at `/docs/errors` (`renderErrorReferenceHtml`), which every error's `doc_url`
 * links to (`/docs/errors#<code>` by default; a public deployment gives its own base).
 *
 * Typed by the catalog: a code without an entry, or an entry without a field, fails the typecheck.
 */
export interface ErrorReferenceEntry {
  /** What happened, in a sentence or two. */
  meaning: string;
  /** What a client should do about it. */
  action: string;
  /** Whether sending the same request again, unchanged, can succeed (after waiting, where said). */
  retryable: boolean;
}

export const ERROR_REFERENCE: Record<ErrorCode, ErrorReferenceEntry> = {
  authentication_required: {
    meaning: 'The request carried no API key: no `Authorization: Bearer <key>` header (or an empty one).',
    action: 'Send `Authorization: Bearer sk_…` (or `pk_…` for public reads). `GET /auth/whoami` tells which team and partition a key belongs to.',
    retryable: false,
  },
  invalid_api_key: {
    meaning: 'The key is well formed but unknown: it was never issued, was revoked, or its member was removed from the team.',
    action: "Use a current key (`GET /teams/{teamId}/api-keys` lists a member's keys); do not retry with the same key.",
    retryable: false,
  },
  invalid_key_format: {
    meaning: 'The `Authorization` value is not a key of this API: keys start with `sk_test_`, `sk_live_`, `pk_test_` or `pk_live_`.',
    action: 'Send the whole key after `Bearer `, without quotes or spaces.',
    retryable: false,
  },
  key_expired: {
    meaning: 'The key (or stream token) had an expiry, and it has passed.',
    action: 'Create a new key (`POST /teams/{teamId}/api-keys`), or a new stream token, and use it instead.',
    retryable: false,
  },
  insufficient_permissions: {
    meaning: "The key may not do this: the operation needs a permission the key lacks (its scopes, narrowed by its member's role), or a secret key.",
    action: '`error.message` names what is missing. Use a key of a member whose role has that permission, or a key without narrower scopes.',
    retryable: false,
  },
  publishable_key_write: {
    meaning: 'A publishable key (`pk_…`) tried to write. Publishable keys only read the public knowledge base and community.',
    action: 'Write from your server with a secret key (`sk_…`); never put a secret key in a page.',
    retryable: false,
  },
  publishable_key_forbidden: {
    meaning: 'A publishable key (`pk_…`) asked for staff data (tickets, customers, members …).',
    action: 'Read staff data from your server with a secret key (`sk_…`).',
    retryable: false,
  },
  team_access_denied: {
    meaning: "The path names another team than the key's own (`/teams/{teamId}` must be the key's team).",
    action: 'Use the `teamId` that `GET /auth/whoami` answers for this key.',
    retryable: false,
  },
  parameter_missing: {
    meaning: 'A required field or query parameter was not sent.',
    action: '`error.param` names it (a dotted path for nested fields); send it and try again.',
    retryable: false,
  },
  parameter_invalid: {
    meaning:
      'A field, query parameter or header has a value the operation does not accept: wrong type, out of range, unknown (every operation refuses fields it does not know), or a body above the size limit (413).',
    action: '`error.param` names it and `error.message` says why; fix the value (or leave an unknown field out). The spec shows this code in uppercase for `trigger-test`: compare codes case-insensitively.',
    retryable: false,
  },
  invalid_json: {
    meaning: 'The body is not a JSON object: not valid JSON, not UTF-8, or an array or a scalar where an object is expected.',
    action: 'Send `Content-Type: application/json` and a JSON object (`{…}`).',
    retryable: false,
  },
  invalid_id_format: {
    meaning: 'A path parameter is not an id of the expected kind (`tkt_…`, `cus_…`, a UUID …).',
    action: '`error.param` names the parameter; use the id exactly as the API answered it.',
    retryable: false,
  },
  resource_conflict: {
    meaning: 'The request conflicts with the current state: a duplicate (an email, a slug, the same webhook), a limit reached, or a change the resource cannot take now.',
    action: '`error.message` says what conflicts (and `error.param` which field). Read the resource again and decide; retrying unchanged gives the same answer.',
    retryable: false,
  },
  idempotency_key_in_use: {
    meaning: 'The `Idempotency-Key` was already used with a different request, or the first request with it is still running.',
    action: 'Use a new key for a different request. For the same request still running, wait a moment and retry: the first answer is then replayed.',
    retryable: true,
  },
  method_not_allowed: {
    meaning: 'The path exists, but not with this HTTP method.',
    action: 'Check the method in the API reference (`/docs`).',
    retryable: false,
  },
  resource_not_found: {
    meaning: "Nothing with this id exists in the key's team and partition (a test key never sees live data, and the other way round), or the key may not see it.",
    action: 'Check the id and the key\'s partition (`environment` in `GET /auth/whoami`). `error.param` names the parameter when it is not the path\'s.',
    retryable: false,
  },
  route_not_found: {
    meaning: 'No operation has this path. The OpenAPI document (`/api/v1/openapi.json`) lists every one that exists.',
    action: 'Check the path (it starts with `/api/v1`; team-scoped paths with `/teams/{teamId}`).',
    retryable: false,
  },
  customer_not_found: {
    meaning: 'A ticket named a customer by `customerEmail`, and no customer of the team and partition has that email.',
    action: 'Create the customer first (`POST /teams/{teamId}/customers`), or send `customerName` to create one with the ticket.',
    retryable: false,
  },
  invite_expired: {
    meaning: 'The invitation link is older than its lifetime.',
    action: 'Ask the team for a new invitation.',
    retryable: false,
  },
  invite_revoked: {
    meaning: 'The team withdrew this invitation.',
    action: 'Ask the team for a new invitation.',
    retryable: false,
  },
  invite_already_accepted: {
    meaning: 'The invitation was already used; each link works once.',
    action: 'Sign in with the key the first acceptance answered, or ask the team for a new invitation.',
    retryable: false,
  },
  feature_disabled: {
    meaning: 'The team has switched this game feature off (`GET /teams/{teamId}/preferences` shows the switches).',
    action: 'Turn it on with `PATCH /teams/{teamId}/preferences` (a key that may manage settings), or leave the feature alone.',
    retryable: false,
  },
  boss_already_active: {
    meaning: 'A boss battle is already under way; one at a time.',
    action: 'Fight it (`POST …/game/boss/damage`) or wait until it ends.',
    retryable: false,
  },
  boss_not_active: {
    meaning: 'No boss battle is under way.',
    action: 'Spawn one first, or check `GET …/game/boss/active`.',
    retryable: false,
  },
  boss_hit_already_dealt: {
    meaning: 'This ticket has already dealt its hit to the boss; each ticket hits once.',
    action: 'Close another ticket and hit with that one.',
    retryable: false,
  },
  not_enough_tickets: {
    meaning: 'The team has too few open tickets to spawn a boss.',
    action: 'Try again when more tickets are open.',
    retryable: false,
  },
  ticket_not_eligible: {
    meaning: 'The ticket cannot be used for this game action (not closed, not a customer ticket, or of another member).',
    action: '`error.message` says why; use an eligible ticket.',
    retryable: false,
  },
  insufficient_gold: {
    meaning: "The member's gold does not cover the price.",
    action: 'Earn more gold (closing tickets, quests, achievements) and try again.',
    retryable: false,
  },
  insufficient_skill_points: {
    meaning: 'The member has no skill point left to spend.',
    action: 'Level up to earn skill points, or reset the skill tree.',
    retryable: false,
  },
  game_rule_violation: {
    meaning: 'The action breaks a game rule (not at the level cap, quest unfinished, cosmetic not owned …).',
    action: '`error.message` names the rule; change the request accordingly.',
    retryable: false,
  },
  already_done: {
    meaning: 'This one-time action was already done (a quest claimed, a puzzle answered, a cosmetic bought).',
    action: 'Nothing to do: the earlier action stands.',
    retryable: false,
  },
  ai_provider_error: {
    meaning: 'The AI provider the platform uses answered with an error or an unusable answer.',
    action: 'Retry later; if it persists, the operator should check the AI provider settings (`AI_BASE_URL`).',
    retryable: true,
  },
  secret_key_forbidden: {
    meaning: 'A secret key was used on a chat-widget endpoint, which a web page calls: secret keys must never be in a page.',
    action: 'Use the publishable key (`pk_…`) in the widget.',
    retryable: false,
  },
  origin_not_allowed: {
    meaning:
      "The page's origin is not in the widget settings' `allowedOrigins`; or a request made with the console's session cookie was sent " +
      "by a page of another origin than the platform's own (or a write without an `Origin` header).",
    action:
      'Widget: add the origin (`PATCH /teams/{teamId}/settings/widget`), or embed the widget on an allowed site. Session: call the API with the ' +
      'console (`/app`) on its own origin; behind a TLS-terminating proxy, set TRUSTED_PROXIES so the gateway sees `https`.',
    retryable: false,
  },
  session_invalid: {
    meaning:
      'The session cookie (`helpdesk_session`) opens no session: it was signed out or revoked, its member was removed or their role ' +
      'changed, it expired (idle too long, or past its maximum age), or it was never issued.',
    action: 'Sign in again: request a sign-in link (`POST /auth/sign-in-links`) and open it.',
    retryable: false,
  },
  csrf_token_invalid: {
    meaning: 'A write made with the session cookie carried no `X-CSRF-Token` header, or one that is not this session\'s.',
    action: 'Send the `csrfToken` that `POST /auth/sessions` or `GET /auth/session` answered, in `X-CSRF-Token`, with every POST, PATCH and DELETE.',
    retryable: false,
  },
  sign_in_link_invalid: {
    meaning: 'The sign-in token is not one this platform issued (mistyped, cut, made up), or its member has left the team.',
    action: 'Request a new sign-in link (`POST /auth/sign-in-links`) and open the newest mail.',
    retryable: false,
  },
  sign_in_link_expired: {
    meaning: 'The sign-in link is older than its 15 minutes.',
    action: 'Request a new sign-in link (`POST /auth/sign-in-links`).',
    retryable: false,
  },
  sign_in_link_used: {
    meaning: 'The sign-in link was already used: each link signs in once.',
    action: 'If that was you, you are signed in on that browser; otherwise request a new link (`POST /auth/sign-in-links`).',
    retryable: false,
  },
  rate_limit_exceeded: {
    meaning:
      'The key (or session) made more requests this minute than its limit (`X-RateLimit-Limit`); or too many sign-in links were asked ' +
      'for one address, or from one client address, in the last 15 minutes.',
    action: 'Wait `Retry-After` seconds (also `error.retryAfter`), then retry; spread requests out. The typed client does this by itself.',
    retryable: true,
  },
  internal_error: {
    meaning: 'Something failed on the platform that the request could not have caused.',
    action: 'Retry (with the same `Idempotency-Key` for a write); if it persists, report `error.request_id`.',
    retryable: true,
  },
  database_error: {
    meaning: 'The platform could not read or write its database.',
    action: 'Retry after a moment (with the same `Idempotency-Key` for a write); if it persists, report `error.request_id`.',
    retryable: true,
  },
  service_unavailable: {
    meaning: 'A part of the platform cannot be reached right now (restarting, overloaded, or not deployed); the request did not run.',
    action: 'Retry after `Retry-After` seconds, with the same `Idempotency-Key` for a write.',
    retryable: true,
  },
  internal_token_invalid: {
    meaning: "Between the platform's own parts only: a service was called without a valid internal token. Clients of the API never see it.",
    action: 'Operators: every process must share the same `INTERNAL_TOKEN_SECRET`.',
    retryable: false,
  },
};

/** Where the platform serves the error reference (every `doc_url` points into it by default). */
export const ERROR_DOCS_PATH = '/docs/errors';

/**
 * An error's `doc_url`: `<base>#<code>` (lowercase). `base` defaults to the platform's own page
 * (`/docs/errors`, relative to the API's origin); a public deployment passes its own absolute URL
 * (`https://developer.example.com/errors`). A `#` at the end of `base` is not doubled.
 */
export function errorDocUrl(code: string, base: string = ERROR_DOCS_PATH): string {
  return `${base.replace(/#$/, '')}#${code.toLowerCase()}`;
}

export interface ErrorReferenceRow extends ErrorReferenceEntry {
  code: ErrorCode;
  status: number;
  type: string;
}

/** Every code of the catalog with its status, type, meaning and action, by status then code. */
export function errorReferenceRows(): ErrorReferenceRow[] {
  return (Object.keys(ERROR_CODES) as ErrorCode[])
    .map((code) => ({ code, status: ERROR_CODES[code].status, type: ERROR_CODES[code].type, ...ERROR_REFERENCE[code] }))
    .sort((a, b) => a.status - b.status || a.code.localeCompare(b.code));
}

const INTRO = [
  'Every error answers the same body: `{success: false, error: {type, code, message, param?, doc_url, request_id}, meta}`.',
  '`code` is what a program branches on (compare it case-insensitively: the spec shows a few in uppercase); `message` is for',
  'people and may change; `param` names the offending field; `doc_url` links to the entry below; `request_id` identifies the',
  'request in the platform\'s logs. A 429 also carries `Retry-After` and `error.retryAfter`.',
];

/** `docs/errors.md`: the reference as Markdown (written by `npm run openapi`; a test checks it is current). */
export function renderErrorReferenceMarkdown(): string {
  const lines = [
    '# Error reference',
    '',
    '<!-- Generated by `npm run openapi` from shared/contracts/src/error-reference.ts; do not edit. -->',
    '',
    ...INTRO,
    `The platform serves this page at \`${ERROR_DOCS_PATH}\`; each error's \`doc_url\` is \`${ERROR_DOCS_PATH}#<code>\` there.`,
    '',
    '| code | HTTP | type | retry as is |',
    '|---|---|---|---|',
    ...errorReferenceRows().map((r) => `| [\`${r.code}\`](#${r.code}) | ${r.status} | \`${r.type}\` | ${r.retryable ? 'yes' : 'no'} |`),
    '',
  ];
  for (const r of errorReferenceRows()) {
    lines.push(`## ${r.code}`, '', `**HTTP ${r.status}**, type \`${r.type}\`${r.retryable ? ', retryable' : ''}.`, '', r.meaning, '', `**What to do:** ${r.action}`, '');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
/** The reference's bits of Markdown (`code` spans only) as HTML. */
const inlineHtml = (s: string) => escapeHtml(s).replace(/`([^`]+)`/g, '<code>$1</code>');

/**
 * The reference as a complete HTML page (the platform serves it at `/docs/errors`; each entry's `id`
 * is its code, the `#<code>` of every `doc_url`). No script; `stylesheet` (CSS text) is inlined in a
 * `<style>` element, a small readable default otherwise.
 */
export function renderErrorReferenceHtml(opts: { stylesheet?: string; title?: string } = {}): string {
  const title = opts.title ?? 'Error reference · Helpdesk API';
  const css =
    opts.stylesheet ??
    [
      'body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#fff;max-width:60rem;margin:0 auto;padding:1rem 1.25rem 3rem}',
      'h1{font-size:1.75rem}h2{font-size:1.25rem;margin-top:2rem;scroll-margin-top:1rem}',
      'code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;background:#f2f2f2;padding:0 .2em;border-radius:3px}',
      'table{border-collapse:collapse;width:100%}th,td{border:1px solid #c8c8c8;padding:.35rem .6rem;text-align:left}th{background:#f2f2f2}',
      'a{color:#0645ad}a:focus,a:hover{text-decoration:underline}section:target{outline:3px solid #0645ad;outline-offset:4px}',
      '@media (prefers-color-scheme:dark){body{background:#121212;color:#e8e8e8}code,th{background:#2a2a2a}th,td{border-color:#555}a{color:#8ab4f8}section:target{outline-color:#8ab4f8}}',
    ].join('\n');
  const rows = errorReferenceRows();
  const index = rows
    .map((r) => `<tr><td><a href="#${r.code}"><code>${r.code}</code></a></td><td>${r.status}</td><td><code>${r.type}</code></td><td>${r.retryable ? 'yes' : 'no'}</td></tr>`)
    .join('\n');
  const entries = rows
    .map(
      (r) =>
        `<section id="${r.code}" aria-labelledby="h-${r.code}">\n<h2 id="h-${r.code}"><code>${r.code}</code></h2>\n` +
        `<p><strong>HTTP ${r.status}</strong>, type <code>${r.type}</code>${r.retryable ? ', retryable' : ''}.</p>\n` +
        `<p>${inlineHtml(r.meaning)}</p>\n<p><strong>What to do:</strong> ${inlineHtml(r.action)}</p>\n</section>`,
    )
    .join('\n');
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>\n${css}\n</style>`,
    '</head>',
    '<body>',
    '<main>',
    `<h1>${escapeHtml(title.split(' · ')[0])}</h1>`,
    `<p>${inlineHtml(INTRO.join(' '))}</p>`,
    '<table>',
    '<caption>Every error code, by HTTP status</caption>',
    '<thead><tr><th scope="col">code</th><th scope="col">HTTP</th><th scope="col">type</th><th scope="col">retry as is</th></tr></thead>',
    `<tbody>\n${index}\n</tbody>`,
    '</table>',
    entries,
    '</main>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
