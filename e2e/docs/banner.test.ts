/** The banner both launchers print (deploy/local/src/banner.ts): an unsafe development switch that is on shows. */
import { banner, unsafeSwitchesOn, type BannerFacts } from '@helpdesk/local';

const facts = (extra: Partial<BannerFacts> = {}): BannerFacts => ({
  title: 'Helpdesk platform',
  credentials: {
    teamId: '3f1c2a4e-8b7d-4c2a-9f1e-2b3c4d5e6f70', teamName: 'Development team', ownerMemberId: 'mem_owner', keys: { sk_test: 'sk_test_x' },
  } as BannerFacts['credentials'],
  created: false,
  file: '/tmp/data/credentials.json',
  details: [['bus', 'in-process']],
  baseUrl: 'http://127.0.0.1:8080/api/v1',
  ...extra,
});

describe('banner', () => {
  it('shows WEBHOOKS_ALLOW_LOOPBACK when it is on (true or 1), just above Ready', () => {
    for (const value of ['true', '1']) {
      const on = unsafeSwitchesOn({ WEBHOOKS_ALLOW_LOOPBACK: value });
      expect(on).toEqual([`WEBHOOKS_ALLOW_LOOPBACK=${value}: webhooks may target this machine (loopback addresses, plain http too); local development only`]);
      const lines = banner(facts({ unsafe: on })).split('\n');
      const ready = lines.findIndex((l) => l.startsWith('Ready: '));
      expect(lines[ready - 1]).toBe(`  UNSAFE      ${on[0]}`);
    }
  });

  it('says nothing when it is off, unset or anything else', () => {
    for (const env of [{}, { WEBHOOKS_ALLOW_LOOPBACK: 'false' }, { WEBHOOKS_ALLOW_LOOPBACK: '' }, { WEBHOOKS_ALLOW_LOOPBACK: 'yes' }]) {
      expect(unsafeSwitchesOn(env)).toEqual([]);
    }
    expect(banner(facts({ unsafe: [] }))).not.toContain('UNSAFE');
  });

  it('reads the environment by default (what both launchers pass on to their processes)', () => {
    const before = process.env.WEBHOOKS_ALLOW_LOOPBACK;
    try {
      process.env.WEBHOOKS_ALLOW_LOOPBACK = 'true';
      expect(banner(facts())).toContain('UNSAFE      WEBHOOKS_ALLOW_LOOPBACK=true');
      delete process.env.WEBHOOKS_ALLOW_LOOPBACK;
      expect(banner(facts())).not.toContain('UNSAFE');
    } finally {
      if (before === undefined) delete process.env.WEBHOOKS_ALLOW_LOOPBACK;
      else process.env.WEBHOOKS_ALLOW_LOOPBACK = before;
    }
  });
});
