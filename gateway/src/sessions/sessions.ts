import {
  CSRF_HEADER,
  requestSignInLinkBody,
  SIGN_IN_LIMIT_WINDOW_MS,
  SIGN_IN_LINK_TTL_MS,
  SIGN_IN_LINKS_PER_ADDRESS,
  SIGN_IN_LINKS_PER_CLIENT,
  SIGN_IN_TOKEN_RE,
  SIGN_INS_PER_CLIENT,
  signInBody,
  updateSessionBody,
  uuidOfHex,
  type SessionAccess,
} from '@helpdesk/contracts';
import { ApiError, parseInput, randomBase62, type InternalTokens, type InternalTransport } from '@helpdesk/kit';
import { json, queryOf, type OwnAnswer } from '../api-keys/operations';
import type { ClientAddress, RequestProtocol } from '../client-address';
import { hashKey } from '../keys';
import { limitExceeded } from '../pipeline/steps/rate-limit';
import type { Exchange, GatewayContext } from '../pipeline/exchange';
import { passedOn, type ServiceCalls } from '../service-calls';
import type { KeyRepository } from '../store/types';
import { clearedSessionCookie, sessionCookie } from './cookie';
import { newCsrfToken, validCsrfToken } from './csrf';
import { fromAnotherSite, normalOrigin, ownOriginOf } from './origin';
import { gatewayClaims, SessionResolver, type ResolvedSession } from './resolver';

/** The link request names no team before the workspace finds the address's memberships. */
const NO_TEAM = '00000000-0000-0000-0000-000000000000';
/** The longest user agent sent along (the workspace keeps 300 characters). */
const USER_AGENT_MAX = 300;
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Proxied operations after which cached sessions may be stale: a session revoked, a member removed, a role changed. */
const SESSION_CHANGES: ReadonlySet<string> = new Set(['revokeSession', 'deleteMember', 'updateMember']);

export interface ConsoleSessionsDeps {
  /** The workspace service's base URL, or a transport to it (several replicas; docs/adr/0075). */
  workspaceUrl: string | InternalTransport;
  tokens: InternalTokens;
  repo: KeyRepository;
  services: Pick<ServiceCalls, 'workspace'>;
  /** Requests a minute of a session (the secret-key figure; a team's override first). */
  secretPerMinute: number;
  protocol: RequestProtocol;
  clientAddress: ClientAddress;
  /** How long a session's look-up is kept (default 2 s). */
  cacheTtlMs?: number;
}

const linkInvalid = () => new ApiError('sign_in_link_invalid', 'This sign-in link is not valid; request a new one.', 'token');
const sessionInvalid = () => new ApiError('session_invalid', 'Your session has ended. Sign in again.');

/** The caller's session as `/auth/session` answers it, with a fresh CSRF token. */
function sessionView(s: ResolvedSession, token: string) {
  const { endedAt: _endedAt, endReason: _endReason, ...session } = s.access.session;
  const { id, name, email, role } = s.access.member;
  return {
    object: 'session' as const,
    ...session,
    current: true,
    teamId: s.team.id,
    permissions: s.permissions,
    csrfToken: newCsrfToken(token),
    member: { id, name, email, role },
    team: { id: s.team.id, name: s.team.name, slug: s.team.slug },
  };
}

/**
 * Sign-in for people and the console's session cookie (docs/adr/0068). The gateway answers the
 * `/auth/…` operations (it draws session tokens and sets the cookie), accepts the cookie on every
 * other operation as a secret key of the session's member, and refuses it from other sites and on
 * writes without the platform's own `Origin` and the session's CSRF token. Links and sessions
 * themselves live in the workspace service, beside the members.
 */
export function createConsoleSessions(deps: ConsoleSessionsDeps) {
  const resolver = new SessionResolver({ workspaceUrl: deps.workspaceUrl, tokens: deps.tokens, repo: deps.repo, secretPerMinute: deps.secretPerMinute, ttlMs: deps.cacheTtlMs });
  const secure = (x: Exchange) => deps.protocol(x.req) === 'https';
  const ownOrigin = (x: Exchange) => ownOriginOf(x.req, deps.protocol);

  /** A browser request from another site's page: refused before anything is looked up or written. */
  function refuseOtherSite(x: Exchange): void {
    if (fromAnotherSite(x.req, x.origin, ownOrigin(x))) {
      throw new ApiError('origin_not_allowed', 'The session cookie and sign-in work from the platform\'s own pages only, not from another site.');
    }
  }

  /** One more attempt under `key` in its 15-minute window; over `max`: 429 with Retry-After. */
  async function limit(x: Exchange, g: GatewayContext, key: string, max: number, why: string): Promise<void> {
    let hit;
    try {
      hit = await g.rateLimits.hit(key, SIGN_IN_LIMIT_WINDOW_MS);
    } catch (err) {
      throw g.storeDown(err, x.requestId);
    }
    if (hit.count > max) throw limitExceeded(why, hit.resetAtMs);
  }

  /** The session of the exchange, kept again with the workspace's newest answer. */
  async function refreshed(x: Exchange, access: SessionAccess): Promise<ResolvedSession> {
    const { resolved } = x.session!;
    resolver.invalidate(resolved.key.hash);
    const next = await resolver.remember(resolved.team.id, resolved.key.hash, access);
    if (!next) throw sessionInvalid();
    return next;
  }

  /** `POST /auth/sign-in-links` and `POST /auth/sessions`: no credential (the unauthenticated step answers them). */
  const keyless: Record<string, (x: Exchange, g: GatewayContext) => Promise<OwnAnswer>> = {
    async requestSignInLink(x, g) {
      refuseOtherSite(x);
      const client = deps.clientAddress(x.req);
      await limit(x, g, `signin:client:${client}`, SIGN_IN_LINKS_PER_CLIENT, 'Too many sign-in links were asked for from this address.');
      queryOf(x);
      const input = parseInput(requestSignInLinkBody, json(x));
      // The address's hash: the store never holds an email address.
      await limit(x, g, `signin:email:${hashKey(input.email.toLowerCase())}`, SIGN_IN_LINKS_PER_ADDRESS, 'Too many sign-in links were asked for this email address.');
      await resolver.calls(gatewayClaims(input.teamId ?? NO_TEAM), x.requestId).call('requestSignInLinks', { body: input });
      return { status: 202, data: { object: 'sign_in_link_request', email: input.email, expiresInSeconds: SIGN_IN_LINK_TTL_MS / 1000 } };
    },

    async signIn(x, g) {
      refuseOtherSite(x);
      await limit(x, g, `signin:use:${deps.clientAddress(x.req)}`, SIGN_INS_PER_CLIENT, 'Too many sign-in attempts from this address.');
      queryOf(x);
      const input = parseInput(signInBody, json(x));
      const m = SIGN_IN_TOKEN_RE.exec(input.token);
      const teamId = m ? uuidOfHex(m[1]) : null;
      if (!teamId || !(await deps.repo.getTeam(teamId))) throw linkInvalid();
      // The session's token is drawn here and never leaves the gateway but in the cookie: the workspace gets its hash.
      const token = `hdses_${m![1]}_${randomBase62(43)}`;
      const tokenHash = hashKey(token);
      const userAgent = x.req.headers['user-agent'];
      const body = { linkTokenHash: hashKey(input.token), sessionTokenHash: tokenHash, userAgent: userAgent ? userAgent.slice(0, USER_AGENT_MAX) : null, mode: input.mode };
      const answer = await deps.services.workspace.forRequest(deps.tokens.mint(gatewayClaims(teamId), x.requestId), x.requestId).attempt('exchangeSignInLink', { body });
      if (!answer.ok) throw passedOn('workspace', answer);
      const resolved = await resolver.remember(teamId, tokenHash, answer.data);
      if (!resolved) throw linkInvalid();
      const maxAgeSeconds = Math.max(0, Math.floor((Date.parse(resolved.access.session.expiresAt) - Date.now()) / 1000));
      x.res.setHeader('Set-Cookie', sessionCookie(token, secure(x), maxAgeSeconds));
      return { status: 201, data: sessionView(resolved, token) };
    },
  };

  /** `GET|PATCH|DELETE /auth/session`: the session cookie only (the access step refused keys). */
  const own: Record<string, (x: Exchange) => Promise<OwnAnswer>> = {
    async getCurrentSession(x) {
      queryOf(x);
      return { status: 200, data: sessionView(x.session!.resolved, x.session!.token) };
    },

    async updateCurrentSession(x) {
      queryOf(x);
      const input = parseInput(updateSessionBody, json(x));
      const access = await resolver.calls(x.auth!.claims, x.requestId).call('updateOwnSession', { body: input });
      if (!access) throw sessionInvalid();
      return { status: 200, data: sessionView(await refreshed(x, access), x.session!.token) };
    },

    async signOut(x) {
      queryOf(x);
      const { resolved } = x.session!;
      const done = await resolver.calls(x.auth!.claims, x.requestId).call('endOwnSession');
      resolver.invalidate(resolved.key.hash);
      // Cleared whatever the answer: a session that had ended meanwhile is gone all the same.
      x.res.setHeader('Set-Cookie', clearedSessionCookie(secure(x)));
      if (!done) throw sessionInvalid();
      return { status: 200, data: { id: resolved.key.id, deleted: true } };
    },
  };

  return {
    resolver,

    /** The answer of a keyless sign-in operation, or undefined when `routeId` is none. */
    keyless: (routeId: string) => keyless[routeId],

    /** The gateway's own session operation `routeId`, or undefined. */
    operation: (routeId: string) => own[routeId],

    /** The authenticate step with a session cookie and no `Authorization`: refused from another site, else the session. */
    async authenticate(x: Exchange, token: string): Promise<void> {
      refuseOtherSite(x);
      const resolved = await resolver.authenticate(token);
      x.auth = resolved;
      x.session = { token, resolved };
    },

    /** A write made with the cookie needs the platform's own `Origin` and the session's CSRF token (403 otherwise). */
    guardWrite(x: Exchange): void {
      if (!x.session || SAFE_METHODS.has(x.method)) return;
      const origin = x.origin === null ? null : normalOrigin(x.origin);
      if (origin === null || origin !== ownOrigin(x)) {
        throw new ApiError('origin_not_allowed', `A write made with the session cookie needs the Origin of this platform's own pages${x.origin === null ? ' (none was sent)' : ''}.`);
      }
      if (!validCsrfToken(x.session.token, x.req.headers[CSRF_HEADER.toLowerCase()])) {
        throw new ApiError('csrf_token_invalid', `A write made with the session cookie needs the session's csrfToken in ${CSRF_HEADER} (GET /auth/session answers one).`);
      }
    },

    /** After a proxied answer: a change that may end sessions drops this gateway's cached ones at once. */
    afterProxied(routeId: string, status: number): void {
      if (status < 300 && SESSION_CHANGES.has(routeId)) resolver.invalidate();
    },

    /** How a stream token made with this session names it (null: the request was made with a key). */
    streamIssuer: (x: Exchange): string | null => (x.session ? resolver.streamIssuer(x.session.resolved) : null),
  };
}

export type ConsoleSessions = ReturnType<typeof createConsoleSessions>;
