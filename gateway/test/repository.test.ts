import { adminOver, createGatewayAdmin, openRepository, type GatewayAdmin } from '../src/admin';
import { hashKey } from '../src/keys';
import { MemoryKeyRepository } from '../src/store/memory';
import type { KeyRepository } from '../src/store/types';
import { startMongo } from './helpers';

/** Dates may come from another realm (structuredClone under jest). */
const isDate = (v: unknown) => Object.prototype.toString.call(v) === '[object Date]';

/** The same contract for the MongoDB repository (on the embedded server) and the in-memory one. */
function contract(name: string, open: () => Promise<{ repo: KeyRepository; done: () => Promise<void> }>) {
  describe(name, () => {
    let repo: KeyRepository;
    let admin: GatewayAdmin;
    let done: () => Promise<void>;
    beforeAll(async () => {
      ({ repo, done } = await open());
      admin = adminOver(repo);
    });
    afterAll(async () => {
      await done();
    });

    it('teams: create with derived, unique slugs; explicit id; duplicates refused', async () => {
      const a = await admin.createTeam({ name: 'Acme Support!' });
      expect(a).toMatchObject({ name: 'Acme Support!', slug: 'acme-support', subscriptionStatus: 'active' });
      expect(a.id).toMatch(/^[0-9a-f-]{36}$/);
      const b = await admin.createTeam({ name: 'Acme Support' });
      expect(b.slug).toBe('acme-support-2');
      const id = '6f1c1d7e-8d5c-4a5e-9f3e-1a2b3c4d5e6f';
      const c = await admin.createTeam({ name: 'Fixed', id, slug: 'fixed' });
      expect(c.id).toBe(id);
      expect(await admin.getTeam(id)).toMatchObject({ id, name: 'Fixed', slug: 'fixed' });
      await expect(admin.createTeam({ name: 'Again', slug: 'fixed' })).rejects.toThrow(/already exists/);
      await expect(admin.createTeam({ name: 'Bad', slug: 'Not A Slug' })).rejects.toThrow(/slug/);
      await expect(admin.createTeam({ name: '' })).rejects.toThrow(/name/);
      expect(await admin.getTeam('00000000-0000-4000-8000-000000000000')).toBeNull();
    });

    it('keys: stored hashed, found by hash, listed, revoked once, touched', async () => {
      const team = await admin.createTeam({ name: 'Keys' });
      const { key, record } = await admin.createKey({ teamId: team.id, type: 'secret', mode: 'live', name: 'server', scopes: ['view_tickets'] });
      expect(key).toMatch(/^sk_live_[A-Za-z0-9]{40}$/);
      expect(record).toMatchObject({ teamId: team.id, type: 'secret', mode: 'live', name: 'server', scopes: ['view_tickets'], revokedAt: null, prefix: key.slice(0, 12) });
      const found = await repo.findKeyByHash(hashKey(key));
      expect(found).toMatchObject({ id: record.id, hash: hashKey(key) });
      expect(isDate(found!.createdAt)).toBe(true);
      expect(await repo.findKeyByHash(hashKey(key + 'x'))).toBeNull();
      const when = new Date();
      await repo.touchKey(record.id, when);
      expect((await repo.findKeyByHash(hashKey(key)))!.lastUsedAt!.getTime()).toBe(when.getTime());
      const { record: pk } = await admin.createKey({ teamId: team.id, type: 'publishable', mode: 'test', expiresAt: new Date('2030-01-01T00:00:00Z') });
      const list = await admin.listKeys(team.id);
      expect(list.map((k) => k.id).sort()).toEqual([record.id, pk.id].sort());
      expect(JSON.stringify(list)).not.toContain(key.slice(12));
      expect(list.find((k) => k.id === pk.id)!.expiresAt!.toISOString()).toBe('2030-01-01T00:00:00.000Z');
      expect(await admin.revokeKey(record.id)).toBe(true);
      expect(await admin.revokeKey(record.id)).toBe(false);
      expect(await admin.revokeKey('key_doesnotexist')).toBe(false);
      expect(isDate((await repo.findKeyByHash(hashKey(key)))!.revokedAt)).toBe(true);
      await expect(admin.createKey({ teamId: '00000000-0000-4000-8000-000000000000', type: 'secret', mode: 'test' })).rejects.toThrow(/no team/);
    });

    it('team rate limits: set, partly replace, clear', async () => {
      const team = await admin.createTeam({ name: 'Limits' });
      await admin.setTeamRateLimits(team.id, { secretPerMinute: 500, publishablePerMinute: 50 });
      expect((await admin.getTeam(team.id))!.rateLimits).toEqual({ secretPerMinute: 500, publishablePerMinute: 50 });
      await admin.setTeamRateLimits(team.id, { secretPerMinute: null });
      expect((await admin.getTeam(team.id))!.rateLimits).toEqual({ publishablePerMinute: 50 });
      await expect(admin.setTeamRateLimits(team.id, { secretPerMinute: 0 })).rejects.toThrow(/positive/);
      await expect(admin.setTeamRateLimits('00000000-0000-4000-8000-000000000000', { secretPerMinute: 5 })).rejects.toThrow(/no team/);
    });
  });
}

contract('memory repository', async () => ({ repo: new MemoryKeyRepository(), done: async () => {} }));

contract('mongo repository (embedded MongoDB)', async () => {
  const mongo = await startMongo();
  const repo = await openRepository(mongo.uri(), `gw_repo_${Date.now()}`);
  return {
    repo,
    done: async () => {
      await repo.close();
      await mongo.close();
    },
  };
});

it('createGatewayAdmin opens its own connection and closes it', async () => {
  const mongo = await startMongo();
  const admin = await createGatewayAdmin(mongo.uri(), `gw_admin_${Date.now()}`);
  const team = await admin.createTeam({ name: 'Standalone' });
  expect((await admin.getTeam(team.id))!.name).toBe('Standalone');
  await admin.close();
  await mongo.close();
});
