import { PERMISSIONS, PUBLISHABLE_PERMISSIONS, UUID_RE, type Partition, type Permission } from '@helpdesk/contracts';
import { newId, newUuid } from '@helpdesk/kit';
import type { WorkspaceLink } from './api-keys/workspace-link';
import { generateKey, type KeyType } from './keys';
import { MemoryKeyRepository } from './store/memory';
import { MongoKeyRepository } from './store/mongo';
import type { ApiKeyRecord, KeyRepository, Team, TeamRateLimits } from './store/types';

export interface CreateKeyInput {
  teamId: string;
  type: KeyType;
  mode: Partition;
  name?: string;
  expiresAt?: Date;
  scopes?: Permission[];
  /** The member the key belongs to; default the team's owner, `null` for none (an operator's key). */
  memberId?: string | null;
}

/** A new team's owner (docs/adr/0012); without one a placeholder is made, to be renamed later. */
export interface OwnerInput {
  name: string;
  email: string;
}

/** Team and key management: used by the operator CLI, the local platform and tests. */
export interface GatewayAdmin {
  /** Also makes the team's owner member when the platform has a workspace service. */
  createTeam(input: { name: string; slug?: string; id?: string; owner?: OwnerInput }): Promise<Team>;
  getTeam(id: string): Promise<Team | null>;
  /**
   * A team made before the platform had a workspace service gets its owner, who then holds the
   * team's keys that had no member. Nothing when it has an owner or there is no workspace service.
   */
  ensureOwner(teamId: string, owner: OwnerInput): Promise<Team | null>;
  createKey(input: CreateKeyInput): Promise<{ key: string; record: ApiKeyRecord }>;
  listKeys(teamId: string): Promise<ApiKeyRecord[]>;
  revokeKey(keyId: string): Promise<boolean>;
  setTeamRateLimits(teamId: string, limits: TeamRateLimits): Promise<void>;
  /**
   * A one-time sign-in link to the console (15 minutes) for the team's member with `email`, else its
   * owner, handed to the operator instead of mailed (docs/adr/0068). Needs the workspace service.
   */
  createSignInLink(input: { teamId: string; email?: string }): Promise<{ url: string; token: string; expiresAt: string; memberId: string }>;
  close(): Promise<void>;
}

export class AdminError extends Error {}

export const slugify = (name: string) =>
  name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48) || 'team';

const SLUG_RE = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

/** The permissions a key carries: its scopes, or every permission its type allows. */
export function effectivePermissions(type: KeyType, scopes: readonly Permission[] | null): Permission[] {
  const allowed: readonly Permission[] = type === 'secret' ? PERMISSIONS : PUBLISHABLE_PERMISSIONS;
  return scopes ? allowed.filter((p) => scopes.includes(p)) : [...allowed];
}

/**
 * The admin over a repository. `onKeyChange` lets a running gateway drop its key cache at once
 * when a key is revoked or a team's limits change in the same process. With `workspace`, a new team
 * gets its owner member there, and keys belong to it unless told otherwise.
 */
export function adminOver(repo: KeyRepository, onKeyChange: () => void = () => {}, workspace?: WorkspaceLink): GatewayAdmin {
  return {
    async createTeam(input) {
      const name = input.name?.trim();
      if (!name) throw new AdminError('team name is required');
      if ([...name].length > 255) throw new AdminError('team name is at most 255 characters');
      if (input.id !== undefined && !UUID_RE.test(input.id)) throw new AdminError('team id must be a UUID');
      let slug = input.slug ?? slugify(name);
      if (!SLUG_RE.test(slug)) throw new AdminError(`invalid slug "${slug}": lowercase letters, digits and dashes`);
      if (input.slug === undefined) {
        // a derived slug is made unique; an explicit one must be free
        const base = slug;
        for (let i = 2; (await repo.getTeamBySlug(slug)) && i < 1000; i++) slug = `${base}-${i}`;
      }
      const team: Team = { id: (input.id ?? newUuid()).toLowerCase(), name, slug, createdAt: new Date(), subscriptionStatus: 'active' };
      if (workspace) {
        // The owner first (the workspace answers a retry with the same owner): a team is never stored without one.
        const owner = input.owner ?? { name: `${name.slice(0, 90)} owner`, email: `owner@${slug}.example.com` };
        team.ownerMemberId = (await workspace.createOwner(team.id, { ...owner, teamName: name, teamSlug: slug })).id;
      }
      try {
        await repo.insertTeam(team);
      } catch (err: any) {
        if (err?.code === 11000) throw new AdminError(`a team with id ${team.id} or slug "${slug}" already exists`);
        throw err;
      }
      return team;
    },
    getTeam: (id) => repo.getTeam(id),
    async ensureOwner(teamId, owner) {
      const team = await repo.getTeam(teamId);
      if (!team || team.ownerMemberId || !workspace) return team;
      const member = await workspace.createOwner(team.id, { ...owner, teamName: team.name, teamSlug: team.slug });
      await repo.setTeamOwner(team.id, member.id);
      onKeyChange();
      return { ...team, ownerMemberId: member.id };
    },
    async createKey(input) {
      if (input.type !== 'secret' && input.type !== 'publishable') throw new AdminError('type must be secret or publishable');
      if (input.mode !== 'test' && input.mode !== 'live') throw new AdminError('mode must be test or live');
      const team = await repo.getTeam(input.teamId);
      if (!team) throw new AdminError(`no team ${input.teamId}`);
      let scopes: Permission[] | null = null;
      if (input.scopes) {
        const allowed: readonly string[] = input.type === 'secret' ? PERMISSIONS : PUBLISHABLE_PERMISSIONS;
        for (const s of input.scopes) {
          if (!allowed.includes(s)) throw new AdminError(`scope "${s}" is not allowed for a ${input.type} key (allowed: ${allowed.join(', ')})`);
        }
        scopes = [...new Set(input.scopes)];
      }
      if (input.expiresAt && Number.isNaN(input.expiresAt.getTime())) throw new AdminError('expiresAt is not a valid date');
      const { key, hash, listingPrefix } = generateKey(input.type, input.mode);
      const record: ApiKeyRecord = {
        id: newId('key'),
        teamId: team.id,
        type: input.type,
        mode: input.mode,
        name: input.name ?? null,
        prefix: listingPrefix,
        scopes,
        memberId: input.memberId === undefined ? (team.ownerMemberId ?? null) : input.memberId,
        expiresAt: input.expiresAt ?? null,
        revokedAt: null,
        createdAt: new Date(),
        lastUsedAt: null,
      };
      await repo.insertKey({ ...record, hash });
      return { key, record };
    },
    listKeys: (teamId) => repo.listKeys(teamId),
    async revokeKey(keyId) {
      const done = await repo.revokeKey(keyId, new Date());
      onKeyChange();
      return done;
    },
    async setTeamRateLimits(teamId, limits) {
      for (const v of [limits.secretPerMinute, limits.publishablePerMinute]) {
        if (v != null && (!Number.isInteger(v) || v < 1)) throw new AdminError('rate limits must be positive integers');
      }
      if (!(await repo.setTeamRateLimits(teamId, limits))) throw new AdminError(`no team ${teamId}`);
      onKeyChange();
    },
    async createSignInLink({ teamId, email }) {
      if (!workspace) throw new AdminError('sign-in links need the workspace service (--workspace-url, WORKSPACE_URL or SERVICE_URLS)');
      if (!(await repo.getTeam(teamId))) throw new AdminError(`no team ${teamId}`);
      const link = await workspace.operatorSignInLink(teamId, email);
      if (!link) throw new AdminError(email ? `no member with email ${email} in team ${teamId}` : `team ${teamId} has no owner`);
      return link;
    },
    close: () => repo.close(),
  };
}

const namedMemory = new Map<string, MemoryKeyRepository>();

/**
 * `memory:` gives a fresh in-memory repository, `memory:NAME` one shared by every gateway of this
 * process opened with the same name (tests of other parts only); anything else is MongoDB.
 */
export async function openRepository(mongoUrl: string, dbName = 'gateway'): Promise<KeyRepository> {
  if (mongoUrl.startsWith('memory:')) {
    const name = mongoUrl.slice('memory:'.length);
    if (!name) return new MemoryKeyRepository();
    const key = `${name}/${dbName}`;
    let repo = namedMemory.get(key);
    if (!repo) namedMemory.set(key, (repo = new MemoryKeyRepository()));
    return repo;
  }
  return MongoKeyRepository.connect(mongoUrl, dbName);
}

/** An admin with its own connection, for the CLI and scripts (no HTTP server); `workspace` makes teams' owners. */
export async function createGatewayAdmin(mongoUrl: string, dbName = 'gateway', workspace?: WorkspaceLink): Promise<GatewayAdmin> {
  return adminOver(await openRepository(mongoUrl, dbName), () => {}, workspace);
}
