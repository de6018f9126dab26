import type { Permission } from '@helpdesk/contracts';
import type { KeyClaims } from './fast-token';
import { ApiError, type Logger } from '@helpdesk/kit';
import { effectivePermissions } from './admin';
import type { WorkspaceLink } from './api-keys/workspace-link';
import { hashKey, hasValidBody, kindOf, sameHash } from './keys';
import type { KeyRepository, StoredKey, Team } from './store/types';

/** A console session (gateway/src/sessions, docs/adr/0068) as the pipeline sees it: a key of type `session`. */
export type SessionKey = Omit<StoredKey, 'type'> & { type: 'session' };

/** A key as the gateway uses it per request, cached for `ttlMs` (or a console session, shaped the same). */
export interface ResolvedKey {
  key: StoredKey | SessionKey;
  team: Team;
  permissions: Permission[];
  /** Requests per minute for this key (team override, else the deployment's figure). */
  limit: number;
  limitHeader: string;
  touchedAt: number;
  /** The internal-token claims of this key, minus the request id. */
  claims: KeyClaims;
}

/** `Bearer` + exactly one space + the key; any other whitespace (tab, two spaces, newline) is refused. */
const BEARER_RE = /^Bearer [A-Za-z0-9_]+$/;
const MAX_CACHE_ENTRIES = 50_000;
const TOUCH_EVERY_MS = 60_000;

export interface KeyResolverOptions {
  repo: KeyRepository;
  logger: Logger;
  /** How long a resolved key (or an unknown hash) stays cached; revocation takes effect within it. */
  ttlMs: number;
  secretPerMinute: number;
  publishablePerMinute: number;
  /**
   * The workspace service, when the platform has one: a key's member's role and the team's name are
   * asked on every cache miss, so a role change, a removed member or a rename takes effect within
   * `ttlMs` (docs/adr/0012).
   */
  workspace?: WorkspaceLink;
}

interface CacheEntry {
  value: Promise<ResolvedKey | null>;
  until: number;
}

export class KeyResolver {
  private readonly cache = new Map<string, CacheEntry>();
  constructor(private readonly opts: KeyResolverOptions) {}

  /** Drops every cached key (a key was revoked or a team's limits changed in this process). */
  invalidate(): void {
    this.cache.clear();
  }

  /** The caller's key, or an ApiError with the documented 401 code. */
  async authenticate(header: string | undefined): Promise<ResolvedKey> {
    if (header === undefined || header === '') {
      throw new ApiError('authentication_required', 'No API key provided. Send it as "Authorization: Bearer <API_KEY>".');
    }
    if (!BEARER_RE.test(header)) {
      throw new ApiError('authentication_required', 'Malformed Authorization header. Use exactly "Bearer <API_KEY>", with no extra whitespace.');
    }
    const token = header.slice(7);
    const kind = kindOf(token);
    if (!kind) throw new ApiError('invalid_key_format', 'API keys start with sk_live_, sk_test_, pk_live_ or pk_test_.');
    if (!hasValidBody(token)) throw new ApiError('invalid_api_key', 'Invalid API key provided.');
    return this.authenticateHash(hashKey(token));
  }

  /** The key with this hash (a stream token names its issuing key so: gateway/src/stream-tokens), checked like a bearer key. */
  async authenticateHash(hash: string): Promise<ResolvedKey> {
    const resolved = await this.lookup(hash);
    // the map lookup found the record by hash; compare the digests in constant time all the same
    if (!resolved || !sameHash(resolved.key.hash, hash) || resolved.key.revokedAt) {
      throw new ApiError('invalid_api_key', 'Invalid API key provided.');
    }
    const now = Date.now();
    if (resolved.key.expiresAt && resolved.key.expiresAt.getTime() <= now) {
      throw new ApiError('key_expired', 'This API key has expired.');
    }
    if (now - resolved.touchedAt > TOUCH_EVERY_MS) {
      resolved.touchedAt = now;
      this.opts.repo.touchKey(resolved.key.id, new Date(now)).catch((err) => this.opts.logger.warn({ err }, 'lastUsedAt update failed'));
    }
    return resolved;
  }

  private lookup(hash: string): Promise<ResolvedKey | null> {
    const now = Date.now();
    const hit = this.cache.get(hash);
    if (hit && hit.until > now) return hit.value;
    if (this.cache.size >= MAX_CACHE_ENTRIES) this.cache.clear();
    // concurrent misses share one database read
    const entry: CacheEntry = { value: this.load(hash), until: Number.POSITIVE_INFINITY };
    this.cache.set(hash, entry);
    entry.value.then(
      () => {
        entry.until = Date.now() + this.opts.ttlMs;
        if (this.opts.ttlMs <= 0 && this.cache.get(hash) === entry) this.cache.delete(hash);
      },
      () => {
        if (this.cache.get(hash) === entry) this.cache.delete(hash);
      },
    );
    return entry.value;
  }

  private async load(hash: string): Promise<ResolvedKey | null> {
    const key = await this.opts.repo.findKeyByHash(hash);
    if (!key) return null;
    const team = await this.opts.repo.getTeam(key.teamId);
    if (!team) return null;
    const limit =
      key.type === 'secret'
        ? (team.rateLimits?.secretPerMinute ?? this.opts.secretPerMinute)
        : (team.rateLimits?.publishablePerMinute ?? this.opts.publishablePerMinute);
    let permissions = effectivePermissions(key.type, key.scopes);
    let shownTeam = team;
    if (this.opts.workspace) {
      const access = await this.opts.workspace.access(key);
      // A removed member's keys stop working; a key's permissions never exceed its member's role.
      if (key.memberId && !access.member) return null;
      if (access.member) permissions = permissions.filter((p) => access.member!.permissions.includes(p));
      if (access.team) shownTeam = { ...team, name: access.team.name, slug: access.team.slug };
      // The workspace keeps the subscription (docs/adr/0024); whoami shows its status, cached with the key.
      if (access.team?.subscriptionStatus) shownTeam = { ...shownTeam, subscriptionStatus: access.team.subscriptionStatus };
    }
    return {
      key,
      team: shownTeam,
      permissions,
      claims: { teamId: team.id, mode: key.mode, keyId: key.id, keyType: key.type, memberId: key.memberId, permissions },
      limit,
      limitHeader: String(limit),
      touchedAt: key.lastUsedAt ? key.lastUsedAt.getTime() : 0,
    };
  }
}
