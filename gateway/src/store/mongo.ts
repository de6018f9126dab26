import mongoose, { Schema } from 'mongoose';
import { PARTITIONS } from '@helpdesk/contracts';
import { connectMongo } from '@helpdesk/kit';
import type { ApiKeyRecord, KeyRepository, StoredKey, Team, TeamRateLimits } from './types';

/**
 * Teams and keys in the gateway's own database. These are not tenant data inside a team (a key is
 * looked up by its hash before the team is known), so the tenancy plugin does not apply here.
 */
const teamSchema = new Schema(
  {
    _id: { type: String, required: true },
    name: { type: String, required: true },
    slug: { type: String, required: true, unique: true },
    subscriptionStatus: { type: String, required: true, default: 'active' },
    ownerMemberId: { type: String, default: null },
    rateLimits: {
      secretPerMinute: { type: Number, required: false },
      publishablePerMinute: { type: Number, required: false },
    },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'teams' },
);

const keySchema = new Schema(
  {
    _id: { type: String, required: true },
    hash: { type: String, required: true, unique: true },
    prefix: { type: String, required: true },
    teamId: { type: String, required: true, index: true },
    type: { type: String, required: true, enum: ['secret', 'publishable'] },
    mode: { type: String, required: true, enum: [...PARTITIONS] },
    name: { type: String, default: null },
    scopes: { type: [String], default: null },
    memberId: { type: String, default: null },
    expiresAt: { type: Date, default: null },
    revokedAt: { type: Date, default: null },
    createdAt: { type: Date, required: true },
    lastUsedAt: { type: Date, default: null },
  },
  { versionKey: false, collection: 'api_keys' },
);

type Doc = Record<string, any>;

const toTeam = (d: Doc): Team => ({
  id: d._id,
  name: d.name,
  slug: d.slug,
  createdAt: d.createdAt,
  subscriptionStatus: d.subscriptionStatus,
  ownerMemberId: d.ownerMemberId ?? null,
  rateLimits: d.rateLimits
    ? {
        ...(d.rateLimits.secretPerMinute != null ? { secretPerMinute: d.rateLimits.secretPerMinute } : {}),
        ...(d.rateLimits.publishablePerMinute != null ? { publishablePerMinute: d.rateLimits.publishablePerMinute } : {}),
      }
    : undefined,
});

const toRecord = (d: Doc): ApiKeyRecord => ({
  id: d._id,
  teamId: d.teamId,
  type: d.type,
  mode: d.mode,
  name: d.name ?? null,
  prefix: d.prefix,
  scopes: Array.isArray(d.scopes) ? [...d.scopes] : null,
  memberId: d.memberId ?? null,
  expiresAt: d.expiresAt ?? null,
  revokedAt: d.revokedAt ?? null,
  createdAt: d.createdAt,
  lastUsedAt: d.lastUsedAt ?? null,
});

export class MongoKeyRepository implements KeyRepository {
  private constructor(
    private readonly conn: mongoose.Connection,
    private readonly teams: mongoose.Model<any>,
    private readonly keys: mongoose.Model<any>,
  ) {}

  ready(): boolean {
    return this.conn.readyState === 1;
  }

  static async connect(url: string, dbName = 'gateway'): Promise<MongoKeyRepository> {
    const conn = await connectMongo(url, dbName);
    const teams = conn.model('Team', teamSchema) as unknown as mongoose.Model<any>;
    const keys = conn.model('ApiKey', keySchema) as unknown as mongoose.Model<any>;
    await Promise.all([teams.init(), keys.init()]);
    return new MongoKeyRepository(conn, teams, keys);
  }

  async insertTeam(team: Team): Promise<void> {
    const { id, ...rest } = team;
    await this.teams.create({ _id: id, ...rest });
  }

  async getTeam(id: string): Promise<Team | null> {
    const d = await this.teams.findById(id).lean<Doc>();
    return d ? toTeam(d) : null;
  }

  async getTeamBySlug(slug: string): Promise<Team | null> {
    const d = await this.teams.findOne({ slug }).lean<Doc>();
    return d ? toTeam(d) : null;
  }

  async setTeamRateLimits(teamId: string, limits: TeamRateLimits): Promise<boolean> {
    const set: Doc = {};
    const unset: Doc = {};
    for (const k of ['secretPerMinute', 'publishablePerMinute'] as const) {
      if (limits[k] === undefined) continue;
      if (limits[k] === null) unset[`rateLimits.${k}`] = 1;
      else set[`rateLimits.${k}`] = limits[k];
    }
    const r = await this.teams.updateOne({ _id: teamId }, { ...(Object.keys(set).length ? { $set: set } : {}), ...(Object.keys(unset).length ? { $unset: unset } : {}) });
    return r.matchedCount > 0;
  }

  async insertKey(key: StoredKey): Promise<void> {
    const { id, ...rest } = key;
    await this.keys.create({ _id: id, ...rest });
  }

  async findKeyByHash(hash: string): Promise<StoredKey | null> {
    const d = await this.keys.findOne({ hash }).lean<Doc>();
    return d ? { ...toRecord(d), hash: d.hash } : null;
  }

  async getKey(keyId: string): Promise<ApiKeyRecord | null> {
    const d = await this.keys.findById(keyId).lean<Doc>();
    return d ? toRecord(d) : null;
  }


  async setTeamOwner(teamId: string, memberId: string): Promise<void> {
    await this.teams.updateOne({ _id: teamId }, { $set: { ownerMemberId: memberId } });
    await this.keys.updateMany({ teamId, memberId: null }, { $set: { memberId } });
  }

  async listKeys(teamId: string): Promise<ApiKeyRecord[]> {
    const docs = await this.keys.find({ teamId }).sort({ createdAt: 1 }).lean<Doc[]>();
    return docs.map(toRecord);
  }

  async revokeKey(keyId: string, at: Date): Promise<boolean> {
    const r = await this.keys.updateOne({ _id: keyId, revokedAt: null }, { $set: { revokedAt: at } });
    return r.modifiedCount > 0;
  }

  async touchKey(keyId: string, at: Date): Promise<void> {
    await this.keys.updateOne({ _id: keyId }, { $set: { lastUsedAt: at } });
  }

  async close(): Promise<void> {
    await this.conn.close();
  }
}
