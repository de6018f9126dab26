import { WORKSPACE_INTERNAL, WORKSPACE_SESSIONS_INTERNAL, type ApiKeySnapshot, type KeyAccess, type MemberSnapshot, type Partition } from '@helpdesk/contracts';
import { ApiError, internalClient, internalClientOver, newId, type InternalTokens, type InternalTransport, type KeyClaims } from '@helpdesk/kit';
import type { ApiKeyRecord } from '../store/types';

/**
 * The gateway's questions to the workspace service, which owns members, roles and the team's name
 * (docs/adr/0012): a key's member and team (asked whenever a key is resolved, so cached with it),
 * a new team's owner, and the `api_key.*` events it emits for the gateway. Each call carries an
 * internal token the gateway mints for the team (`keyType: internal`, no permissions).
 */
export interface WorkspaceLink {
  /** The key's member (null: removed) and the team's current name; 503 when the workspace cannot answer. */
  access(key: Pick<ApiKeyRecord, 'id' | 'teamId' | 'mode' | 'memberId'>): Promise<KeyAccess>;
  createOwner(teamId: string, input: { name: string; email: string; teamName: string; teamSlug: string }): Promise<MemberSnapshot>;
  recordKeyEvent(by: KeyClaims, requestId: string, type: 'api_key.created' | 'api_key.revoked', apiKey: ApiKeySnapshot): Promise<void>;
  /**
   * A sign-in link for the team's member with `email` (default: the owner), handed to an operator
   * rather than mailed (docs/adr/0068); null when the team has no such member.
   */
  operatorSignInLink(teamId: string, email?: string): Promise<{ url: string; token: string; expiresAt: string; memberId: string } | null>;
  /** The internal token of a call the gateway makes on its own account for a team. */
  tokenFor(teamId: string, requestId: string, memberId?: string | null): string;
}

/** `workspace`: its base URL, or a transport to it (the gateway's upstream pools when it has several replicas; docs/adr/0075). */
export function workspaceLink(workspace: string | InternalTransport, tokens: InternalTokens): WorkspaceLink {
  const ops = { ...WORKSPACE_INTERNAL, ...WORKSPACE_SESSIONS_INTERNAL };
  const client = typeof workspace === 'string' ? internalClient(ops, workspace, { service: 'workspace' }) : internalClientOver(ops, workspace, { service: 'workspace' });
  const systemClaims = (teamId: string, mode: Partition, keyId: string, memberId: string | null): KeyClaims => ({
    teamId, mode, keyId, keyType: 'internal', memberId, permissions: [],
  });
  const calls = (claims: KeyClaims) => {
    const requestId = newId('request');
    return client.forRequest(tokens.mint(claims, requestId), requestId);
  };
  const answered = <T>(value: T | null, what: string): T => {
    if (value === null) throw new ApiError('service_unavailable', `The workspace service did not answer ${what}. Please retry later.`);
    return value;
  };
  return {
    async access(key) {
      const query = key.memberId ? { memberId: key.memberId } : undefined;
      return answered(await calls(systemClaims(key.teamId, key.mode, key.id, null)).call('getKeyAccess', { query }), 'the key look-up');
    },
    async createOwner(teamId, input) {
      return answered(await calls(systemClaims(teamId, 'live', 'gateway', null)).call('createTeamOwner', { body: input }), 'the owner creation');
    },
    async recordKeyEvent(by, requestId, type, apiKey) {
      await client.forRequest(tokens.mint(by, requestId), requestId).call('recordApiKeyEvent', { body: { type, apiKey } });
    },
    operatorSignInLink: (teamId, email) => calls(systemClaims(teamId, 'live', 'gateway', null)).call('createOperatorSignInLink', { body: email ? { email } : {} }),
    tokenFor: (teamId, requestId, memberId = null) => tokens.mint(systemClaims(teamId, 'live', 'gateway', memberId), requestId),
  };
}

/** A key as events carry it: never the key, never its hash. */
export function apiKeySnapshot(k: ApiKeyRecord): ApiKeySnapshot {
  return {
    id: k.id,
    prefix: k.prefix,
    type: k.type,
    mode: k.mode,
    name: k.name,
    scopes: k.scopes,
    memberId: k.memberId,
    createdAt: k.createdAt.toISOString(),
    expiresAt: k.expiresAt ? k.expiresAt.toISOString() : null,
    revokedAt: k.revokedAt ? k.revokedAt.toISOString() : null,
  };
}
