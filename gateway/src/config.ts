import { z } from 'zod';
import { optionalUrl, portNumber } from '@helpdesk/kit';

/** Defaults for the per-key rate limits (the spec's per-minute figures; docs/adr/0001). */
export const DEFAULT_SECRET_PER_MINUTE = 120;
export const DEFAULT_PUBLISHABLE_PER_MINUTE = 60;

const positiveInt = (fallback: number) =>
  z.preprocess((v) => (v === '' || v === undefined ? fallback : Number(v)), z.number().int().min(1).max(1_000_000));

/** `ticketing=http://ticketing:3000,customers=http://customers:3000` → `{ticketing: …, customers: …}`. */
export function parseServiceUrls(value: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of value.split(',')) {
    const item = part.trim();
    if (!item) continue;
    const eq = item.indexOf('=');
    if (eq <= 0) throw new Error(`SERVICE_URLS: "${item}" is not name=url`);
    const name = item.slice(0, eq).trim();
    const url = item.slice(eq + 1).trim();
    new URL(url); // throws on a bad URL
    out[name] = url;
  }
  return out;
}

/** The gateway process's environment (gateway/src/main.ts). Nothing else reads process.env. */
export const gatewayEnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  PORT: portNumber(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  MONGO_URL: z.string().url(),
  MONGO_DB: z.string().min(1).default('gateway'),
  REDIS_URL: optionalUrl(),
  /** Prefix of every Redis key the gateway writes (gateways sharing counters must use the same). */
  REDIS_KEY_PREFIX: z.string().min(1).default('hd:gw:'),
  INTERNAL_TOKEN_SECRET: z.string().min(32, 'must be at least 32 characters'),
  SERVICE_URLS: z
    .string()
    .default('')
    .transform((v, ctx) => {
      try {
        return parseServiceUrls(v);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    }),
  RATE_LIMIT_SECRET_PER_MINUTE: positiveInt(DEFAULT_SECRET_PER_MINUTE),
  RATE_LIMIT_PUBLISHABLE_PER_MINUTE: positiveInt(DEFAULT_PUBLISHABLE_PER_MINUTE),
  /** How long a resolved key stays cached in memory (bounds how late a revocation takes effect). */
  KEY_CACHE_TTL_MS: z.preprocess((v) => (v === '' || v === undefined ? 5000 : Number(v)), z.number().int().min(0).max(60_000)),
});
export type GatewayEnv = z.infer<typeof gatewayEnvSchema>;
