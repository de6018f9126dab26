/**
 * The client address behind proxies (TRUSTED_PROXIES): `X-Forwarded-For` is believed from trusted
 * hops only, and the address is its right-most one that is not a trusted proxy (express's `trust
 * proxy`, proxy-addr). Every per-address limit uses it: the widget's visitors here, the help center's
 * pages in help-center-limit.test.ts.
 */
import type { IncomingMessage } from 'node:http';
import { loadConfig } from '@helpdesk/kit';
import { WIDGET_ADDRESS_PER_MINUTE } from '@helpdesk/contracts';
import { clientAddressOf, gatewayEnvSchema, parseTrustedProxies } from '../src';
import { startHarness, type Harness } from './helpers';

const request = (peer: string, forwardedFor?: string) =>
  ({ socket: { remoteAddress: peer }, headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } }) as unknown as IncomingMessage;

describe('clientAddressOf', () => {
  it('trusting nothing, the peer is the client whatever X-Forwarded-For says', () => {
    const address = clientAddressOf([]);
    expect(address(request('10.1.2.3', '203.0.113.9'))).toBe('10.1.2.3');
  });

  it('behind a trusted hop, the right-most address that is not a trusted proxy', () => {
    const address = clientAddressOf(parseTrustedProxies('10.0.0.0/8, 172.16.0.0/12'));
    expect(address(request('10.1.2.3', '203.0.113.9'))).toBe('203.0.113.9');
    // Two trusted hops (an Ingress behind a load balancer), then the client.
    expect(address(request('10.1.2.3', '203.0.113.9, 172.16.5.5'))).toBe('203.0.113.9');
    // A forged left-most value does not move the client the trusted proxy saw.
    expect(address(request('10.1.2.3', '6.6.6.6, 203.0.113.9'))).toBe('203.0.113.9');
    // An untrusted peer's header is ignored.
    expect(address(request('198.51.100.7', '203.0.113.9'))).toBe('198.51.100.7');
    // A trusted peer without the header is the client.
    expect(address(request('10.1.2.3'))).toBe('10.1.2.3');
  });

  it('IPv6 and IPv4-mapped peers', () => {
    const address = clientAddressOf(parseTrustedProxies('127.0.0.1,::1'));
    expect(address(request('::1', '2001:db8::1'))).toBe('2001:db8::1');
    expect(address(request('::ffff:127.0.0.1', '203.0.113.9'))).toBe('203.0.113.9');
  });
});

describe('TRUSTED_PROXIES', () => {
  const env = { MONGO_URL: 'mongodb://127.0.0.1:1/x', INTERNAL_TOKEN_SECRET: 'a'.repeat(40), HELPDESK_EMBEDDED: '1' };

  it('is empty (nothing forwarded is believed) by default, a list of entries when set', () => {
    expect(loadConfig(gatewayEnvSchema, env).TRUSTED_PROXIES).toEqual([]);
    expect(loadConfig(gatewayEnvSchema, { ...env, TRUSTED_PROXIES: '10.0.0.0/8, 172.16.0.0/12,fd00::/8' }).TRUSTED_PROXIES).toEqual(['10.0.0.0/8', '172.16.0.0/12', 'fd00::/8']);
  });

  it.each(['banana', '10.0.0.0/33', '10.0.0.0/8,300.1.1.1', '10.0.0.0/8;172.16.0.0/12'])('%s is a configuration error naming TRUSTED_PROXIES', (value) => {
    expect(() => loadConfig(gatewayEnvSchema, { ...env, TRUSTED_PROXIES: value })).toThrow(/TRUSTED_PROXIES: invalid/);
  });
});

describe("the widget's per-address limit", () => {
  let h: Harness;
  afterEach(async () => {
    await h?.stop();
  });

  /** Requests the widget's endpoint with this X-Forwarded-For until one is refused; the count served. */
  async function servedBeforeLimit(forwardedFor: string): Promise<number> {
    for (let i = 0; i <= WIDGET_ADDRESS_PER_MINUTE; i++) {
      const res = await fetch(`${h.teamUrl}/widget/conversations`, { method: 'POST', headers: { 'x-forwarded-for': forwardedFor } });
      if (res.status === 429) return i;
    }
    return WIDGET_ADDRESS_PER_MINUTE + 1;
  }

  it('from an untrusted hop (the default), two forged X-Forwarded-For values share one limit', async () => {
    h = await startHarness();
    expect(await servedBeforeLimit('203.0.113.1')).toBe(WIDGET_ADDRESS_PER_MINUTE);
    expect(await servedBeforeLimit('203.0.113.2')).toBe(0);
  });

  it('behind a trusted proxy, two clients get a limit each', async () => {
    h = await startHarness({ trustedProxies: ['127.0.0.1/8', '::1'] });
    expect(await servedBeforeLimit('203.0.113.1')).toBe(WIDGET_ADDRESS_PER_MINUTE);
    expect(await servedBeforeLimit('203.0.113.2')).toBe(WIDGET_ADDRESS_PER_MINUTE);
    // A forged left-most address in front of the same client is still that client.
    expect(await servedBeforeLimit('6.6.6.6, 203.0.113.2')).toBe(0);
  });
});
