import {
  acceptInviteBody,
  API_KEY_LIFETIME_DAYS_MAX,
  createApiKeyBody,
  INVITE_TOKEN_RE,
  listApiKeysQuery,
  PUBLISHABLE_PERMISSIONS,
  type Permission,
} from '@helpdesk/contracts';
import { z } from 'zod';
import { ApiError, parameterInvalid, parseInput, type Logger } from '@helpdesk/kit';
import type { GatewayAdmin } from '../admin';
import type { KeyResolver } from '../auth';
import type { Exchange } from '../pipeline/exchange';
import { passedOn, type ServiceCalls } from '../service-calls';
import type { ApiKeyRecord, KeyRepository } from '../store/types';
import { apiKeySnapshot, type WorkspaceLink } from './workspace-link';

/** What one of the gateway's own operations answers. */
export interface OwnAnswer {
  status: number;
  data: unknown;
}

export interface ApiKeyDeps {
  repo: KeyRepository;
  admin: GatewayAdmin;
  resolver: KeyResolver;
  services: Pick<ServiceCalls, 'workspace'>;
  logger: Logger;
  workspace?: WorkspaceLink;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** A key as listed (docs/adr/0013): never the key, never its hash. */
export function apiKeyView(k: ApiKeyRecord) {
  const { revokedAt: _revokedAt, ...rest } = apiKeySnapshot(k);
  return { object: 'api_key' as const, ...rest, lastUsedAt: k.lastUsedAt ? k.lastUsedAt.toISOString() : null };
}

/** The request's JSON body (the body step checked it parses), `{}` when it has none. */
export const json = (x: Exchange): unknown => (x.body ? JSON.parse(x.body.toString('utf8')) : {});

const NO_QUERY = z.strictObject({});

/** The query string checked against the operation's schema (none: any parameter is unknown, 400), as services do. */
export function queryOf<S extends z.ZodType>(x: Exchange, schema: S = NO_QUERY as unknown as S): z.output<S> {
  return parseInput(schema, Object.fromEntries(new URLSearchParams(x.query.startsWith('?') ? x.query.slice(1) : x.query)));
}

/**
 * The API-key operations and invite acceptance, which the gateway serves itself because it owns keys
 * (docs/adr/0013). Each reads the exchange the pipeline filled (key, team, route params, raw body).
 */
export function apiKeyOperations(deps: ApiKeyDeps) {
  const { repo, admin, resolver, workspace, logger } = deps;

  /** Emitted through the workspace service's outbox; a failure is logged, the key operation stands. */
  const emitKeyEvent = (x: Exchange, type: 'api_key.created' | 'api_key.revoked', record: ApiKeyRecord, claims = x.auth?.claims) => {
    if (!workspace || !claims) return Promise.resolve();
    return workspace
      .recordKeyEvent(claims, x.requestId, type, apiKeySnapshot(record))
      .catch((err) => logger.error({ err, requestId: x.requestId, keyId: record.id }, `${type} not recorded`));
  };

  /** Keys of the caller's partition the caller may see: its member's, or all with `manage_members`. */
  const visible = (x: Exchange, k: ApiKeyRecord) => {
    const { key, permissions } = x.auth!;
    if (k.mode !== key.mode) return false;
    return permissions.includes('manage_members') || k.memberId === key.memberId || k.id === key.id;
  };

  return {
    async listApiKeys(x: Exchange): Promise<OwnAnswer> {
      const q = queryOf(x, listApiKeysQuery);
      const keys = (await repo.listKeys(x.auth!.team.id)).filter((k) => visible(x, k) && (q.includeRevoked || !k.revokedAt));
      return { status: 200, data: keys.map(apiKeyView) };
    },

    async createApiKey(x: Exchange): Promise<OwnAnswer> {
      queryOf(x);
      const input = parseInput(createApiKeyBody, json(x));
      const { key: caller, permissions, team } = x.auth!;
      const mode = input.mode ?? caller.mode;
      if (caller.mode === 'test' && mode === 'live') {
        throw new ApiError('insufficient_permissions', 'A test key cannot create a live key.', 'mode');
      }
      if (input.expiresAt !== undefined && input.expiresInDays !== undefined) {
        throw parameterInvalid('expiresInDays', 'Give expiresAt or expiresInDays, not both.');
      }
      let expiresAt: Date | undefined;
      if (input.expiresInDays !== undefined) expiresAt = new Date(Date.now() + input.expiresInDays * DAY_MS);
      if (input.expiresAt !== undefined) {
        expiresAt = new Date(input.expiresAt);
        const ahead = expiresAt.getTime() - Date.now();
        if (ahead <= 0 || ahead > API_KEY_LIFETIME_DAYS_MAX * DAY_MS) {
          throw parameterInvalid('expiresAt', `Invalid expiresAt: must be in the future and at most ${API_KEY_LIFETIME_DAYS_MAX} days ahead.`);
        }
      }
      let scopes: Permission[] | undefined = input.scopes;
      if (scopes) {
        const lacking = scopes.filter((p) => !permissions.includes(p));
        if (lacking.length) throw new ApiError('insufficient_permissions', `This API key cannot grant what it lacks: ${lacking.join(', ')}.`, 'scopes');
        if (input.type === 'publishable') {
          const unreadable = scopes.filter((p) => !PUBLISHABLE_PERMISSIONS.includes(p));
          if (unreadable.length) throw parameterInvalid('scopes', `Invalid scopes: a publishable key can only carry ${PUBLISHABLE_PERMISSIONS.join(', ')}.`);
        }
      } else if (caller.scopes) {
        // A scoped key cannot make an unrestricted one: the new key gets the caller's permissions.
        scopes = input.type === 'publishable' ? permissions.filter((p) => PUBLISHABLE_PERMISSIONS.includes(p)) : [...permissions];
      }
      const { key, record } = await admin.createKey({ teamId: team.id, type: input.type, mode, name: input.name, scopes, expiresAt, memberId: caller.memberId });
      await emitKeyEvent(x, 'api_key.created', record);
      return { status: 201, data: { ...apiKeyView(record), key } };
    },

    async revokeApiKey(x: Exchange): Promise<OwnAnswer> {
      queryOf(x);
      const { paramNames, paramValues } = x.match!;
      const keyId = paramValues[paramNames.indexOf('keyId')];
      const found = await repo.getKey(keyId);
      if (!found || found.teamId !== x.auth!.team.id || found.revokedAt || found.mode !== x.auth!.key.mode) {
        throw new ApiError('resource_not_found', `No such API key: '${keyId}'.`);
      }
      if (!visible(x, found)) {
        throw new ApiError('insufficient_permissions', "Revoking another member's key needs the permission manage_members.");
      }
      if (await admin.revokeKey(keyId)) await emitKeyEvent(x, 'api_key.revoked', { ...found, revokedAt: new Date() });
      resolver.invalidate();
      return { status: 200, data: { id: keyId, deleted: true } };
    },

    /**
     * `POST /invites/accept` (no key): the token names the team; the workspace service turns the
     * invite into a member (its refusals are passed on as they are), then the member's first key is made here.
     */
    async acceptInvite(x: Exchange): Promise<OwnAnswer> {
      queryOf(x);
      const input = parseInput(acceptInviteBody, json(x));
      const m = INVITE_TOKEN_RE.exec(input.token);
      const teamId = m && m[1].replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
      const team = teamId ? await repo.getTeam(teamId) : null;
      if (!team || !workspace) throw new ApiError('resource_not_found', 'No invitation has this token.', 'token');
      const answer = await deps.services.workspace.forRequest(workspace.tokenFor(team.id, x.requestId), x.requestId).attempt('acceptInviteToken', { body: json(x) });
      if (!answer.ok) throw passedOn('workspace', answer);
      const { member, mode } = answer.data;
      const { key, record } = await admin.createKey({ teamId: team.id, type: 'secret', mode, name: 'first key', memberId: member.id });
      const claims = { teamId: team.id, mode, keyId: record.id, keyType: 'secret' as const, memberId: member.id, permissions: [] };
      await emitKeyEvent(x, 'api_key.created', record, claims);
      return { status: 201, data: { member, apiKey: { ...apiKeyView(record), key } } };
    },
  };
}

export type ApiKeyOperations = ReturnType<typeof apiKeyOperations>;
