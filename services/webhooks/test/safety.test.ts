/** Where deliveries may go: address ranges (IPv4, IPv6, mapped forms), URL rules, connect-time checks. */
import dns from 'node:dns';
import { hostname } from 'node:os';
import { addressVerdict, guardedLookup, isIpLiteral, isLoopbackName, urlProblem } from '../src/delivery/safety';
import { Sender } from '../src/delivery/sender';
import { Receiver } from '@helpdesk/testing';

const off = { allowLoopback: false };
const on = { allowLoopback: true };

const refused: [string, string][] = [
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['::1', 'loopback'],
  ['10.0.0.1', 'private'],
  ['172.16.5.4', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['100.64.0.1', 'carrierGradeNat'],
  ['169.254.169.254', 'linkLocal'], // cloud metadata (AWS, GCP, Azure)
  ['169.254.0.1', 'linkLocal'],
  ['fe80::1', 'linkLocal'],
  ['fd00:ec2::254', 'uniqueLocal'], // AWS metadata over IPv6
  ['fc00::1', 'uniqueLocal'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['::', 'unspecified'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['ff02::1', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  ['240.0.0.1', 'reserved'],
  ['192.0.2.10', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['2001:db8::1', 'reserved'],
  ['64:ff9b::a00:1', 'rfc6052'], // NAT64 of 10.0.0.1
  ['2002:a00:1::', '6to4'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
  // IPv4-mapped IPv6 is judged as the IPv4 address it carries.
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:169.254.169.254', 'linkLocal'],
  ['::ffff:192.168.0.1', 'private'],
  ['[::1]', 'loopback'],
  ['not-an-ip', 'invalid'],
];

describe('addressVerdict', () => {
  test.each(refused)('%s is refused (%s)', (ip, range) => {
    expect(addressVerdict(ip, off)).toEqual({ allowed: false, range });
  });

  test.each(['93.184.216.34', '8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450:4001:82a::200e', '::ffff:8.8.8.8'])('%s (public) is allowed', (ip) => {
    expect(addressVerdict(ip, off)).toEqual({ allowed: true, range: 'unicast' });
  });

  test('allowLoopback allows loopback, in every form, and nothing else that was refused', () => {
    for (const [ip, range] of refused) expect(addressVerdict(ip, on).allowed).toBe(range === 'loopback');
  });

  test('plain-HTTP connections reach loopback only, and only with allowLoopback', () => {
    expect(addressVerdict('127.0.0.1', { allowLoopback: true, loopbackOnly: true }).allowed).toBe(true);
    expect(addressVerdict('::1', { allowLoopback: true, loopbackOnly: true }).allowed).toBe(true);
    expect(addressVerdict('8.8.8.8', { allowLoopback: true, loopbackOnly: true }).allowed).toBe(false);
    expect(addressVerdict('127.0.0.1', { allowLoopback: false, loopbackOnly: true }).allowed).toBe(false);
  });

  test('isIpLiteral tells addresses from names', () => {
    expect(isIpLiteral('10.0.0.1')).toBe(true);
    expect(isIpLiteral('[fd00:ec2::254]')).toBe(true);
    expect(isIpLiteral('localhost')).toBe(false);
    expect(isIpLiteral('example.com')).toBe(false);
  });
});

/** Every refusal the setting would lift names it. */
const HINT = 'allowed only when the deployment sets WEBHOOKS_ALLOW_LOOPBACK=true (unsafe: local development only)';
const HTTP = `must use https:// (plain http:// is accepted only to a loopback host, and ${HINT})`;

describe('urlProblem (when a webhook is written, and before each attempt)', () => {
  test.each([
    ['https://example.com/hooks', off],
    ['https://example.com:8443/hooks?x=1', off],
    ['https://8.8.8.8/hook', off],
    ['http://127.0.0.1:8080/hook', on],
    ['http://[::1]:8080/hook', on],
    ['http://localhost:8080/hook', on],
    ['http://api.localhost/hook', on],
    ['https://127.0.0.1/hook', on],
    ['https://localhost:4567/hook', on],
    ['https://localhost.example.com/hook', off], // a name like any other: resolved and checked at connect time
  ])('%s is accepted (allowLoopback %j)', (url, policy) => {
    expect(urlProblem(url, policy)).toBeNull();
  });

  test.each([
    ['http://example.com/hook', off, HTTP],
    ['http://example.com/hook', on, HTTP], // plain HTTP only to loopback
    ['http://10.0.0.1/hook', on, HTTP],
    ['http://127.0.0.1/hook', off, HTTP],
    ['http://localhost/hook', off, HTTP],
    ['ftp://example.com/x', off, 'must use https://'],
    ['javascript:alert(1)', off, 'must use https://'],
    ['example.com/hook', off, 'must be an absolute URL'],
    ['https://user:pw@example.com/', off, 'must not carry credentials (user:password@)'],
    ['https://10.0.0.1/hook', off, 'must not point at a private address (10.0.0.1)'],
    ['https://10.0.0.1/hook', on, 'must not point at a private address (10.0.0.1)'],
    ['https://127.0.0.1/hook', off, `must not point at a loopback address (127.0.0.1): loopback targets are ${HINT}`],
    // A loopback name is refused as its address is: at write time, not only when a delivery connects.
    ['https://localhost:4567/hook', off, `must not point at a loopback host (localhost): loopback targets are ${HINT}`],
    ['https://api.localhost/hook', off, `must not point at a loopback host (api.localhost): loopback targets are ${HINT}`],
    ['https://169.254.169.254/latest/meta-data', on, 'must not point at a linkLocal address (169.254.169.254)'],
    ['https://[fd00:ec2::254]/', on, 'must not point at a uniqueLocal address ([fd00:ec2::254])'],
    ['https://[::ffff:10.0.0.1]/', on, 'must not point at a private address ([::ffff:a00:1])'],
    ['https://2130706433/', off, `must not point at a loopback address (127.0.0.1): loopback targets are ${HINT}`], // decimal IPv4, normalised by the URL parser
    ['https://0x7f.1/', off, `must not point at a loopback address (127.0.0.1): loopback targets are ${HINT}`],
  ])('%s is refused (allowLoopback %j): %s', (url, policy, problem) => {
    expect(urlProblem(url, policy)).toBe(problem);
  });
});

describe('at connect time', () => {
  const lookup = (policy: { allowLoopback: boolean }, host: string, all: boolean) =>
    new Promise<{ err: Error | null; address: unknown }>((resolve) => guardedLookup(policy)(host, { all }, (err, address) => resolve({ err, address })));

  test('a name that resolves to a refused address fails the lookup, naming the address', async () => {
    const r = await lookup(off, 'localhost', false);
    expect(r.err?.message).toBe(`address blocked: localhost resolved to 127.0.0.1 (loopback); loopback addresses are ${HINT}`);
    expect((await lookup(off, '10.1.2.3', false)).err?.message).toBe('address blocked: 10.1.2.3 is a private address; webhooks are only delivered to public addresses');
    expect((await lookup(off, 'localhost', true)).err?.message).toMatch(/^address blocked: localhost resolved to 127\.0\.0\.1/);
  });

  test('with allowLoopback the same name resolves, in both lookup shapes', async () => {
    expect(await lookup(on, 'localhost', false)).toEqual({ err: null, address: '127.0.0.1' });
    expect(await lookup(on, 'localhost', true)).toEqual({ err: null, address: [{ address: '127.0.0.1', family: 4 }] });
  });

  describe('Sender', () => {
    let rx: Receiver;
    beforeAll(async () => {
      rx = await Receiver.start();
    });
    afterAll(async () => rx.close());

    test('applies the create rule before connecting: loopback targets are refused, naming the setting, without a connection', async () => {
      const sender = new Sender({ allowLoopback: false, timeoutMs: 2000 });
      try {
        const out = await sender.send(`https://localhost:${rx.port}/hook`, {}, '{}');
        expect(out).toMatchObject({ ok: false, statusCode: null, error: `url refused: must not point at a loopback host (localhost): loopback targets are ${HINT}` });
        const literal = await sender.send(`https://127.0.0.1:${rx.port}/hook`, {}, '{}');
        expect(literal.error).toBe(`url refused: must not point at a loopback address (127.0.0.1): loopback targets are ${HINT}`);
        const mapped = await sender.send(`https://[::ffff:127.0.0.1]:${rx.port}/hook`, {}, '{}');
        expect(mapped.error).toMatch(/^url refused: must not point at a loopback address/);
        expect(rx.connections).toBe(0);
        expect(rx.requests).toHaveLength(0);
      } finally {
        await sender.close();
      }
    });

    test('a name that resolves to a refused address is blocked at connect time, naming the address', async () => {
      // Names other than localhost are resolved when connecting: this machine's own name resolves to
      // a loopback or private address on every machine the tests run on (checked, else skipped).
      const name = hostname();
      const resolved = await dns.promises.lookup(name).catch(() => null);
      const verdict = resolved && addressVerdict(resolved.address, off);
      if (!resolved || !verdict || verdict.allowed || isLoopbackName(name)) return;
      const sender = new Sender({ allowLoopback: false, timeoutMs: 2000 });
      try {
        const out = await sender.send(`https://${name}:${rx.port}/hook`, {}, '{}');
        expect(out).toMatchObject({ ok: false, statusCode: null, error: expect.stringMatching(new RegExp(`^address blocked: ${name} resolved to \\S+ \\(${verdict.range}\\)`)) });
        if (verdict.range === 'loopback') expect(out.error).toContain('WEBHOOKS_ALLOW_LOOPBACK=true');
        expect(rx.connections).toBe(0);
      } finally {
        await sender.close();
      }
    });

    test('a plain-http webhook kept from a run with WEBHOOKS_ALLOW_LOOPBACK fails with the rule it breaks, in one sentence', async () => {
      const sender = new Sender({ allowLoopback: false, timeoutMs: 2000 });
      try {
        const out = await sender.send(rx.url(), {}, '{}');
        expect(out.error).toBe(`url refused: ${HTTP}`);
        // The same sentence the create answers (the 400's message is `Invalid url: <problem>.`).
        expect(out.error).toBe(`url refused: ${urlProblem(rx.url(), { allowLoopback: false })}`);
        expect(rx.connections).toBe(0);
      } finally {
        await sender.close();
      }
    });

    test('with allowLoopback delivers to loopback over http, and never follows a redirect', async () => {
      const sender = new Sender({ allowLoopback: true, timeoutMs: 2000 });
      rx.respond = (r) => (r.path === '/moved' ? { status: 302, headers: { location: `${rx.url('/elsewhere')}` } } : { status: 204 });
      try {
        expect(await sender.send(rx.url('/ok'), { 'x-test': '1' }, '{"a":1}')).toMatchObject({ ok: true, statusCode: 204, error: null });
        expect(rx.forPath('/ok')[0]).toMatchObject({ method: 'POST', body: '{"a":1}', headers: expect.objectContaining({ 'x-test': '1', 'content-type': 'application/json', 'user-agent': 'Helpdesk-Webhooks/1.0' }) });
        const moved = await sender.send(rx.url('/moved'), {}, '{}');
        expect(moved).toMatchObject({ ok: false, statusCode: 302, error: `redirect not followed (302 to ${rx.url('/elsewhere')})` });
        expect(rx.forPath('/elsewhere')).toHaveLength(0);
      } finally {
        rx.respond = () => ({ status: 200 });
        await sender.close();
      }
    });

    test('a receiver slower than the timeout is a timeout; a closed port is a connection error', async () => {
      const sender = new Sender({ allowLoopback: true, timeoutMs: 300 });
      rx.respond = () => ({ status: 200, delayMs: 1_000 });
      try {
        const slow = await sender.send(rx.url('/slow'), {}, '{}');
        expect(slow).toMatchObject({ ok: false, statusCode: null, error: 'timeout: no complete answer within 300 ms' });
        expect(slow.durationMs).toBeGreaterThanOrEqual(250);
        expect(slow.durationMs).toBeLessThan(1_000);
        const closed = await Receiver.start();
        const port = closed.port;
        await closed.close();
        const refusedConn = await sender.send(`http://127.0.0.1:${port}/`, {}, '{}');
        expect(refusedConn.error).toMatch(/ECONNREFUSED/);
      } finally {
        rx.respond = () => ({ status: 200 });
        await sender.close();
      }
    });

    test('reads Retry-After from a 429', async () => {
      const sender = new Sender({ allowLoopback: true, timeoutMs: 2000 });
      rx.respond = () => ({ status: 429, headers: { 'retry-after': '7' } });
      try {
        expect(await sender.send(rx.url('/busy'), {}, '{}')).toMatchObject({ ok: false, statusCode: 429, retryAfterMs: 7000, error: 'receiver answered 429' });
      } finally {
        rx.respond = () => ({ status: 200 });
        await sender.close();
      }
    });
  });
});
