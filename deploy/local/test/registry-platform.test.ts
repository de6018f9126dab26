// The one-process platform and the tree follow deploy/registry.ts: every service folder is a registry
// entry (and the other way round), each declares its configuration through kit's runServiceMain, and
// `npm start` boots every registry service behind its gateway, which routes to each of them.
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { declarations, describeProcessesOnly, processSchemas, undeclaredCollections } from '@helpdesk/kit';
import { bootPlatform, type Platform } from '../src/platform';
import { PROCESSES, SERVICES } from '../../registry';

const ROOT = path.resolve(__dirname, '../../..');

it('every folder under services/ is a registry service, and every registry entry has its entry file', () => {
  const folders = readdirSync(path.join(ROOT, 'services')).filter((d) => existsSync(path.join(ROOT, 'services', d, 'package.json')));
  expect(SERVICES.map((s) => s.name).sort()).toEqual(folders.sort());
  for (const p of PROCESSES) expect(existsSync(path.join(ROOT, p.entry))).toBe(true);
});

it("every registry service's entry declares its configuration (the variables table and the deploy checks read it)", () => {
  describeProcessesOnly();
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  for (const s of SERVICES) require(path.join(ROOT, s.entry));
  expect([...processSchemas.keys()].sort()).toEqual(SERVICES.map((s) => s.name).sort());
  // A service that calls another reads that service's URL from the variable the registry names.
  for (const s of SERVICES) for (const call of s.calls) expect(Object.keys(processSchemas.get(s.name)!.shape)).toContain(call.env);
});

describe('npm start (one process)', () => {
  let platform: Platform;
  beforeAll(async () => {
    platform = await bootPlatform({ port: 0, dataDir: null, internalTokenSecret: randomBytes(32).toString('hex'), logLevel: 'silent' });
  }, 60_000);
  afterAll(() => platform?.stop());

  // One way to reach a team's data (docs/adr/0065): every collection a service creates is declared in
  // its collections.ts as team-and-partition, team-wide or platform-wide (kit's own are platform-wide).
  it("declares every collection each service's database holds", async () => {
    const declared = declarations();
    expect(Object.keys(declared).sort()).toEqual(SERVICES.map((s) => s.name).sort());
    expect(await undeclaredCollections()).toEqual(Object.fromEntries(SERVICES.map((s) => [s.name, []])));
    // Team data is never platform-wide: only kit's bookkeeping and ticketing's scan lease are.
    const platformWide = Object.entries(declared).flatMap(([db, cs]) => cs.filter((c) => c.kind === 'platform-wide' && !c.key.startsWith('kit.')).map((c) => `${db}.${c.name}`));
    expect(platformWide).toEqual(['ticketing.scheduler_leases']);
  });

  it('boots every registry service, and its gateway routes to each of them', async () => {
    const res = await fetch(new URL('/readyz', platform.baseUrl));
    const body = (await res.json()) as { data: { upstreams: Record<string, string> } };
    expect(Object.keys(body.data.upstreams).sort()).toEqual(SERVICES.map((s) => s.name).sort());
    expect(new Set(Object.values(body.data.upstreams))).toEqual(new Set(['ready']));
  });
});
