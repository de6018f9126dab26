/**
 * SERVICE_URLS (gateway/src/config.ts): `name=url,…`, a service named more than once having replicas
 * the gateway spreads requests and held streams over itself (docs/adr/0075). A bad value is a
 * configuration error naming the variable and the entry, before anything starts.
 */
import { loadConfig } from '@helpdesk/kit';
import { PUBLIC_OPERATIONS } from '@helpdesk/contracts';
import { gatewayEnvSchema, parseServiceUrls } from '../src';
import { servicesWithoutUrl } from '../src/config';

const env = { MONGO_URL: 'mongodb://127.0.0.1:1/x', INTERNAL_TOKEN_SECRET: 'a'.repeat(40), HELPDESK_EMBEDDED: '1' };
const serviceUrls = (value: string) => loadConfig(gatewayEnvSchema, { ...env, SERVICE_URLS: value }).SERVICE_URLS;

describe('SERVICE_URLS', () => {
  it('one URL per service, as the manifest names them', () => {
    expect(serviceUrls('ticketing=http://ticketing:3000, customers=http://customers:3000/base')).toEqual({
      ticketing: ['http://ticketing:3000'],
      customers: ['http://customers:3000/base'],
    });
  });

  it('a service named more than once: its replicas, in the order given', () => {
    expect(serviceUrls('notifications=http://127.0.0.1:4101,ticketing=http://127.0.0.1:4000,notifications=http://127.0.0.1:4102,notifications=https://n3.internal:443')).toEqual({
      notifications: ['http://127.0.0.1:4101', 'http://127.0.0.1:4102', 'https://n3.internal:443'],
      ticketing: ['http://127.0.0.1:4000'],
    });
  });

  it('empty entries are skipped; empty altogether is no service (allowed with HELPDESK_EMBEDDED=1 only)', () => {
    expect(serviceUrls(' , ticketing=http://t:1 ,, ')).toEqual({ ticketing: ['http://t:1'] });
    expect(serviceUrls('')).toEqual({});
    expect(() => loadConfig(gatewayEnvSchema, { ...env, HELPDESK_EMBEDDED: '', REDIS_URL: 'redis://r:6379', SECRETS_KEY: 'k'.repeat(40), SERVICE_URLS: ' , ' })).toThrow(/SERVICE_URLS: required/);
  });

  it.each([
    ['ticketing', /"ticketing" is not name=url/],
    ['=http://t:1', /"=http:\/\/t:1" is not name=url/],
    ['ticketing=', /ticketing's "" is not a URL/],
    ['ticketing=not a url', /ticketing's "not a url" is not a URL/],
    ['ticketing=ftp://t:21', /ticketing's "ftp:\/\/t:21" is not an http\(s\) URL/],
    ['ticketing=http://user:pw@t:1', /has a query, fragment or credentials/],
    ['ticketing=http://t:1/?x=1', /has a query, fragment or credentials/],
    ['Ticketing=http://t:1', /"Ticketing" is not a service name/],
    ['notifications=http://n:1,notifications=http://n:1', /notifications=http:\/\/n:1 is given twice/],
    // A separator other than the comma is not a list: the second URL would make the first's port invalid.
    ['notifications=http://n:1|http://n:2', /is not a URL/],
  ])('%s is a configuration error naming SERVICE_URLS', (value, message) => {
    expect(() => serviceUrls(value)).toThrow(/SERVICE_URLS/);
    expect(() => parseServiceUrls(value)).toThrow(message);
  });

  it('a service with replicas has a URL: only services named nowhere answer 503', () => {
    const urls = parseServiceUrls('ticketing=http://t:1,notifications=http://n:1,notifications=http://n:2');
    const missing = servicesWithoutUrl(PUBLIC_OPERATIONS, urls);
    expect(missing).not.toContain('ticketing');
    expect(missing).not.toContain('notifications');
    expect(missing).toContain('customers');
  });
});
