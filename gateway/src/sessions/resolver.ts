import { SESSION_TOKEN_RE, uuidOfHex, WORKSPACE_SESSIONS_INTERNAL, type SessionAccess } from '@helpdesk/contracts';
import { ApiError, internalClient, internalClientOver, LookupCache, newId, type InternalTokens, type InternalTransport, type KeyClaims } from '@helpdesk/kit';
import type { ResolvedKey } from '../auth';
import { hashKey } from '../keys';
import type { KeyRepository } from '../store/types';

/**
 * How long a session's look-up is kept (docs/adr/0068): a revoked session, a removed member or a
 * changed role is refused within it on every gateway (at once on the one that proxied the change).
 */
export const SESSION_CACHE_TTL_MS = 2_000;
const MAX_CACHE_ENTRIES = 50_000;
/** Stream tokens name their issuer by hash: a session's is `session:<teamId>:<hash>` (a key's is its bare hash). */
const STREAM_ISSUER_PREFIX = 'session:';

/** A session's credential as the pipeline uses it, plus what `/auth/session` answers. */
export interface ResolvedSession extends ResolvedKey {
  access: SessionAccess;
}

export interface SessionResolverOptions {
  /** The workspace service's base URL, or a transport to it (several replicas; docs/adr/0075). */
  workspaceUrl: string | InternalTransport;
  tokens: InternalTokens;
  repo: Pick<KeyRepository, 'getTeam'>;
  /** Requests a minute of a session: the secret-key figure (the team's override first). */
  secretPerMinute: number;
  ttlMs?: number;
}

const invalid = () => new ApiError('session_invalid', 'Your session has ended (signed out, revoked, expired, or your access changed). Sign in again.');

/** The internal claims the gateway asks the workspace with, for a team (no member, no permission). */
export const gatewayClaims = (teamId: string): KeyClaims => ({ teamId, mode: 'live', keyId: 'gateway', keyType: 'internal', memberId: null, permissions: [] });

/**
 * Console sessions by their cookie: the team from the token, the session from the workspace service
 * (by the token's hash), cached for seconds, answered like a secret key of the session's member.
 */
export class SessionResolver {
  private readonly cache: LookupCache<ResolvedSession | null>;
  private readonly workspace;

  constructor(private readonly opts: SessionResolverOptions) {
    this.cache = new LookupCache({ enabled: true, ttlMs: opts.ttlMs ?? SESSION_CACHE_TTL_MS, maxEntries: MAX_CACHE_ENTRIES });
    this.workspace =
      typeof opts.workspaceUrl === 'string'
        ? internalClient(WORKSPACE_SESSIONS_INTERNAL, opts.workspaceUrl, { service: 'workspace' })
        : internalClientOver(WORKSPACE_SESSIONS_INTERNAL, opts.workspaceUrl, { service: 'workspace' });
  }

  /** The workspace's calls on a team's account (or, with a session's claims, on its own), as part of request `requestId`. */
  calls(claims: KeyClaims, requestId = newId('request')) {
    return this.workspace.forRequest(this.opts.tokens.mint(claims, requestId), requestId);
  }

  /** The session of a cookie's value; 401 `session_invalid` when it opens none. */
  async authenticate(token: string): Promise<ResolvedSession> {
    const m = SESSION_TOKEN_RE.exec(token);
    if (!m) throw invalid();
    return this.byHash(uuidOfHex(m[1]), hashKey(token));
  }

  /** A stream token's issuer when it is a session (else null: a key's). */
  issuerOf(streamIssuer: string): Promise<ResolvedSession> | null {
    if (!streamIssuer.startsWith(STREAM_ISSUER_PREFIX)) return null;
    const [teamId, hash] = streamIssuer.slice(STREAM_ISSUER_PREFIX.length).split(':');
    return this.byHash(teamId, hash);
  }

  /** How a stream token names this session as its issuer (never the token itself). */
  streamIssuer = (s: ResolvedSession) => `${STREAM_ISSUER_PREFIX}${s.team.id}:${s.key.hash}`;

  /** Keeps a session just opened, so its first request needs no look-up. */
  remember(teamId: string, tokenHash: string, access: SessionAccess): Promise<ResolvedSession | null> {
    return this.cache.get(tokenHash, () => this.resolved(teamId, tokenHash, access));
  }

  /** Drops a cached session by its token's hash, or every one (a session, member or role changed through this gateway). */
  invalidate(tokenHash?: string): void {
    this.cache.invalidate(tokenHash);
  }

  private async byHash(teamId: string, tokenHash: string): Promise<ResolvedSession> {
    const resolved = await this.cache.get(tokenHash, async () => {
      const access = await this.calls(gatewayClaims(teamId)).call('getSessionAccess', { body: { tokenHash } });
      return access ? this.resolved(teamId, tokenHash, access) : null;
    });
    if (!resolved) throw invalid();
    // Cached a moment: its maximum age or idle timeout may have passed since.
    const now = Date.now();
    if (Date.parse(resolved.access.session.idleExpiresAt) <= now || Date.parse(resolved.access.session.expiresAt) <= now) throw invalid();
    return resolved;
  }

  private async resolved(teamId: string, tokenHash: string, access: SessionAccess): Promise<ResolvedSession | null> {
    const team = await this.opts.repo.getTeam(teamId);
    if (!team) return null;
    const { session, member } = access;
    const limit = team.rateLimits?.secretPerMinute ?? this.opts.secretPerMinute;
    const permissions = [...member.permissions];
    return {
      access,
      key: {
        id: session.id,
        teamId,
        type: 'session',
        mode: session.mode,
        name: null,
        prefix: 'session',
        scopes: null,
        memberId: member.id,
        expiresAt: new Date(session.expiresAt),
        revokedAt: null,
        createdAt: new Date(session.createdAt),
        lastUsedAt: new Date(session.lastUsedAt),
        hash: tokenHash,
      },
      team: { ...team, name: access.team.name || team.name, slug: access.team.slug || team.slug, subscriptionStatus: access.team.subscriptionStatus ?? team.subscriptionStatus },
      permissions,
      limit,
      limitHeader: String(limit),
      touchedAt: Date.now(),
      claims: { teamId, mode: session.mode, keyId: session.id, keyType: 'session', memberId: member.id, permissions },
    };
  }
}
