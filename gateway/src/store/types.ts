import type { Partition, Permission } from '@helpdesk/contracts';
import type { KeyType } from '../keys';

export type SubscriptionStatus = 'active' | 'trialing' | 'past_due' | 'canceled' | 'unpaid';

export interface TeamRateLimits {
  secretPerMinute?: number | null;
  publishablePerMinute?: number | null;
}

export interface Team {
  id: string;
  name: string;
  slug: string;
  createdAt: Date;
  subscriptionStatus: SubscriptionStatus;
  rateLimits?: TeamRateLimits;
  /** The owner member the workspace service made with the team (docs/adr/0012); keys default to it. */
  ownerMemberId?: string | null;
}

/** A stored key: never the key itself, only its sha256 hash and a short listing prefix. */
export interface ApiKeyRecord {
  id: string;
  teamId: string;
  type: KeyType;
  mode: Partition;
  name: string | null;
  /** `sk_test_AbCd`: enough to recognise a key in a list, useless to an attacker. */
  prefix: string;
  /** null = every permission the key type allows. */
  scopes: Permission[] | null;
  memberId: string | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export interface StoredKey extends ApiKeyRecord {
  hash: string;
}

/** Where teams and keys live: MongoDB in every real run; memory only for unit tests of other parts. */
export interface KeyRepository {
  insertTeam(team: Team): Promise<void>;
  getTeam(id: string): Promise<Team | null>;
  getTeamBySlug(slug: string): Promise<Team | null>;
  setTeamRateLimits(teamId: string, limits: TeamRateLimits): Promise<boolean>;
  insertKey(key: StoredKey): Promise<void>;
  findKeyByHash(hash: string): Promise<StoredKey | null>;
  getKey(keyId: string): Promise<ApiKeyRecord | null>;
  /** Gives a team made before it had an owner its owner, and that owner its keys without a member. */
  setTeamOwner(teamId: string, memberId: string): Promise<void>;
  listKeys(teamId: string): Promise<ApiKeyRecord[]>;
  revokeKey(keyId: string, at: Date): Promise<boolean>;
  touchKey(keyId: string, at: Date): Promise<void>;
  close(): Promise<void>;
  /** Readiness: false while the database connection is down. */
  ready?(): boolean;
}
