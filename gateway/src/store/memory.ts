import type { ApiKeyRecord, KeyRepository, StoredKey, Team, TeamRateLimits } from './types';

/**
 * Teams and keys in memory, behind the same interface as MongoKeyRepository. Used when the
 * gateway is given `mongoUrl: 'memory:'` (unit tests of other parts); never in a real run.
 */
export class MemoryKeyRepository implements KeyRepository {
  private readonly teams = new Map<string, Team>();
  private readonly keys = new Map<string, StoredKey>();

  async insertTeam(team: Team): Promise<void> {
    if (this.teams.has(team.id) || [...this.teams.values()].some((t) => t.slug === team.slug)) {
      throw Object.assign(new Error('duplicate team'), { code: 11000 });
    }
    this.teams.set(team.id, structuredClone(team));
  }
  async getTeam(id: string): Promise<Team | null> {
    const t = this.teams.get(id);
    return t ? structuredClone(t) : null;
  }
  async getTeamBySlug(slug: string): Promise<Team | null> {
    const t = [...this.teams.values()].find((x) => x.slug === slug);
    return t ? structuredClone(t) : null;
  }
  async setTeamRateLimits(teamId: string, limits: TeamRateLimits): Promise<boolean> {
    const t = this.teams.get(teamId);
    if (!t) return false;
    const next: TeamRateLimits = { ...t.rateLimits };
    for (const k of ['secretPerMinute', 'publishablePerMinute'] as const) {
      if (limits[k] === null) delete next[k];
      else if (limits[k] !== undefined) next[k] = limits[k];
    }
    t.rateLimits = next;
    return true;
  }
  async insertKey(key: StoredKey): Promise<void> {
    this.keys.set(key.id, structuredClone(key));
  }
  async findKeyByHash(hash: string): Promise<StoredKey | null> {
    for (const k of this.keys.values()) if (k.hash === hash) return structuredClone(k);
    return null;
  }
  async getKey(keyId: string): Promise<ApiKeyRecord | null> {
    const k = this.keys.get(keyId);
    if (!k) return null;
    const { hash: _hash, ...rest } = k;
    return structuredClone(rest);
  }
  async setTeamOwner(teamId: string, memberId: string): Promise<void> {
    const t = this.teams.get(teamId);
    if (t) t.ownerMemberId = memberId;
    for (const k of this.keys.values()) if (k.teamId === teamId && k.memberId === null) k.memberId = memberId;
  }
  async listKeys(teamId: string): Promise<ApiKeyRecord[]> {
    return [...this.keys.values()]
      .filter((k) => k.teamId === teamId)
      .map(({ hash: _hash, ...rest }) => structuredClone(rest));
  }
  async revokeKey(keyId: string, at: Date): Promise<boolean> {
    const k = this.keys.get(keyId);
    if (!k || k.revokedAt) return false;
    k.revokedAt = at;
    return true;
  }
  async touchKey(keyId: string, at: Date): Promise<void> {
    const k = this.keys.get(keyId);
    if (k) k.lastUsedAt = at;
  }
  async close(): Promise<void> {}
}
