import { z } from 'zod';
import { commonEnvSchema, optionalUrl, portNumber, requiredUrl, secretsEnvSchema, unlessEmbedded } from '@helpdesk/kit';
import { parseTrustedProxies } from './client-address';

/** Defaults for the per-key rate limits (the spec's per-minute figures; docs/adr/0001). */
export const DEFAULT_SECRET_PER_MINUTE = 120;
export const DEFAULT_PUBLISHABLE_PER_MINUTE = 60;

const positiveInt = (fallback: number) =>
  z.preprocess((v) => (v === '' || v === undefined ? fallback : Number(v)), z.number().int().min(1).max(1_000_000));

/** A comma-separated variable parsed by `parse` (empty: nothing); what `parse` throws is the variable's issue. */
const parsedList = <T>(parse: (value: string) => T) =>
  z
    .string()
    .default('')
    .transform((v, ctx) => {
      try {
        return parse(v);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    });

/**
 * `ticketing=http://ticketing:3000,customers=http://customers:3000` → `{ticketing: [url], customers: [url]}`.
 * A service named more than once has several replicas, each its own base URL, which the gateway takes
 * in turn (docs/adr/0075): `notifications=http://127.0.0.1:4101,notifications=http://127.0.0.1:4102`.
 * A URL must be http(s) and carry no query, fragment or credentials; the same URL twice is refused.
 */
export function parseServiceUrls(value: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const part of value.split(',')) {
    const item = part.trim();
    if (!item) continue;
    const eq = item.indexOf('=');
    if (eq <= 0) throw new Error(`SERVICE_URLS: "${item}" is not name=url`);
    const name = item.slice(0, eq).trim();
    const url = item.slice(eq + 1).trim();
    if (!/^[a-z][a-z0-9-]*$/.test(name)) throw new Error(`SERVICE_URLS: "${name}" is not a service name (lower-case letters, digits, dashes)`);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new Error(`SERVICE_URLS: ${name}'s "${url}" is not a URL`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error(`SERVICE_URLS: ${name}'s "${url}" is not an http(s) URL`);
    if (parsed.search || parsed.hash || parsed.username || parsed.password) throw new Error(`SERVICE_URLS: ${name}'s "${url}" has a query, fragment or credentials`);
    const urls = (out[name] ??= []);
    if (urls.includes(url)) throw new Error(`SERVICE_URLS: ${name}=${url} is given twice`);
    urls.push(url);
  }
  return out;
}

/**
 * The gateway process's environment (gateway/src/main.ts). Nothing else reads process.env.
 * REDIS_URL and SERVICE_URLS are required unless HELPDESK_EMBEDDED=1 (docs/adr/0038); SERVICE_URLS may name
 * any subset of the services (one service deployed at a time).
 */
const gatewayEnvFields = commonEnvSchema.extend({
  PORT: portNumber(8080).describe('HTTP port of the public API.'),
  HOST: z.string().min(1).default('0.0.0.0').describe('Interface the API listens on (`npm start` defaults to 127.0.0.1 instead).'),
  MONGO_URL: requiredUrl('MongoDB (teams and API keys)').describe('MongoDB (teams and API keys).'),
  MONGO_DB: z.string().min(1).optional().describe("Database name; default the one in MONGO_URL's path, else `gateway`."),
  REDIS_URL: optionalUrl().describe('Redis: rate-limit counters and Idempotency-Key records shared by every gateway. Required unless HELPDESK_EMBEDDED=1.'),
  REDIS_KEY_PREFIX: z.string().min(1).default('hd:gw:').describe('Prefix of every Redis key the gateway writes (gateways sharing counters must use the same).'),
  SERVICE_URLS: parsedList(parseServiceUrls).describe(
    '`name=url,…` of the services this gateway routes to: any subset of the API manifest\'s (one at least unless HELPDESK_EMBEDDED=1); the routes of a service without a URL answer 503 `service_unavailable`. A service named more than once (`notifications=http://10.0.0.5:3000,notifications=http://10.0.0.6:3000`) has replicas: the gateway spreads requests and held streams over them itself, passing over one that refuses connections (`npm run start:processes` names the notifications replicas so). In Kubernetes one Service URL per service.',
  ),
  TRUSTED_PROXIES: parsedList(parseTrustedProxies).describe(
    'Comma-separated IPs and CIDRs of the proxies in front of the gateway (an Ingress controller, a load balancer), e.g. `10.0.0.0/8,172.16.0.0/12`: only their `X-Forwarded-For` is believed, and the client address (per-address limits) is its right-most address that is not one of them. Empty: the peer\'s address, the header ignored.',
  ),
  RATE_LIMIT_SECRET_PER_MINUTE: positiveInt(DEFAULT_SECRET_PER_MINUTE).describe('Requests per minute per secret key (teams may override).'),
  RATE_LIMIT_PUBLISHABLE_PER_MINUTE: positiveInt(DEFAULT_PUBLISHABLE_PER_MINUTE).describe('Requests per minute per publishable key.'),
  KEY_CACHE_TTL_MS: z
    .preprocess((v) => (v === '' || v === undefined ? 5000 : Number(v)), z.number().int().min(0).max(60_000))
    .describe('How long a resolved key stays cached in memory (bounds how late a revocation takes effect).'),
  // The Idempotency-Key answers kept in Redis are sealed with it (a new API key is in one; docs/adr/0067).
  SECRETS_KEY: secretsEnvSchema.shape.SECRETS_KEY.optional().describe('Key of the secrets kept at rest: the Idempotency-Key answers kept in Redis (a new API key can be in one) are sealed with it; at least 32 random characters, the same in every gateway (docs/adr/0067).'),
  SECRETS_KEY_PREVIOUS: secretsEnvSchema.shape.SECRETS_KEY_PREVIOUS,
});
export const gatewayEnvSchema = unlessEmbedded(gatewayEnvFields, {
  REDIS_URL: 'in-memory rate limits and idempotency, one gateway only',
  SERVICE_URLS: 'no service routes',
  SECRETS_KEY: 'Idempotency-Key answers kept unsealed',
});
export type GatewayEnv = z.infer<typeof gatewayEnvSchema>;

/** Services of the API manifest that SERVICE_URLS does not name (their routes answer 503 until they get one). */
export function servicesWithoutUrl(operations: Record<string, { service: string }>, urls: Record<string, string | readonly string[]>): string[] {
  return routedServices(operations).filter((s) => !urls[s]?.length);
}

/** The services the API manifest routes to (every one but the gateway itself), sorted. */
export function routedServices(operations: Record<string, { service: string }>): string[] {
  return [...new Set(Object.values(operations).map((op) => op.service).filter((s) => s !== 'gateway'))].sort();
}
