import { z } from 'zod';

export class ConfigError extends Error {}

/**
 * Parses the environment once, at start-up, with the process's own zod schema. Nothing else reads
 * `process.env`. A bad or missing variable stops the process with a message that names it.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const lines = result.error.issues.map((i) => `  ${i.path.join('.') || '(env)'}: ${i.message}`);
  throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
}

/**
 * The development switch (docs/adr/0038): a standalone process may run on in-process stand-ins
 * (the memory bus; the gateway's in-memory stores) only when HELPDESK_EMBEDDED=1 says so.
 */
export const EMBEDDED_SWITCH = 'HELPDESK_EMBEDDED';
const embeddedOn = (v: unknown) => v === true || v === '1' || v === 'true';
/** Set: not absent, not empty, and (once parsed, like SERVICE_URLS) not an empty map. */
const isSet = (v: unknown) => v !== undefined && v !== '' && !(typeof v === 'object' && v !== null && Object.keys(v).length === 0);

/** A URL a standalone process cannot run without: missing is an error naming the variable. */
export const requiredUrl = (what: string) =>
  z.preprocess((v) => (v === '' ? undefined : v), z.string({ error: (i) => (i.input === undefined ? `required: ${what}` : 'must be a string') }).url());

/**
 * Requires `names` unless the development switch is on: one issue per missing variable, naming it
 * and the stand-in the switch would allow. Applied to a finished schema (after every `.extend`).
 */
export function unlessEmbedded<S extends z.ZodObject<any>>(schema: S, names: Record<string, string>): S {
  // Checked on the raw input (`when`), so a missing variable is named even when others fail too.
  let out: z.ZodObject<any> = schema;
  for (const [name, standIn] of Object.entries(names)) {
    out = out.refine(
      (env: Record<string, unknown>) => embeddedOn(env[EMBEDDED_SWITCH]) || isSet(env[name]),
      { path: [name], message: `required (or ${EMBEDDED_SWITCH}=1 for development: ${standIn})`, when: (payload) => typeof payload.value === 'object' && payload.value !== null },
    );
  }
  embeddedRequirements.set(out, Object.keys(names));
  return out as S;
}

/** Which variables of a schema `unlessEmbedded` requires (for the generated README table). */
export const embeddedRequirements = new WeakMap<z.ZodObject<any>, string[]>();

/**
 * The database a process uses: MONGO_DB, else the database named in MONGO_URL's path, else the
 * process's own name. Never silently replaced: a URL naming a database is that database.
 */
export function mongoDbName(mongoUrl: string, mongoDb: string | undefined, fallback: string): string {
  if (mongoDb) return mongoDb;
  const match = /^mongodb(?:\+srv)?:\/\/[^/]*\/([^?]+)/.exec(mongoUrl);
  const fromUrl = match ? decodeURIComponent(match[1]) : '';
  return fromUrl || fallback;
}

/** The schemas of the processes declared in this process (docs/configuration.md's variables table is generated from them). */
export const processSchemas = new Map<string, z.ZodObject<any>>();
let describeOnly = false;
/** Makes `runServiceMain` record its schema and start nothing (scripts/env-docs.ts imports every main.ts). */
export function describeProcessesOnly(): void {
  describeOnly = true;
}
export const describingOnly = (): boolean => describeOnly;

/** Empty strings count as unset, so `FOO=` behaves like no FOO. */
export const optionalUrl = () =>
  z.preprocess((v) => (v === '' ? undefined : v), z.string().url().optional());

export const portNumber = (fallback: number) =>
  z.preprocess((v) => (v === '' || v === undefined ? fallback : Number(v)), z.number().int().min(0).max(65535));

export const boolFlag = (fallback: boolean) =>
  z.preprocess((v) => (v === undefined || v === '' ? fallback : v === 'true' || v === '1'), z.boolean());

/** Variables every process reads (gateway and services). */
export const commonEnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development').describe('`production` in deployments.'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info').describe('pino log level.'),
  METRICS_PORT: portNumber(9464).describe('Port of the Prometheus endpoint `GET /metrics` (its own port, never behind the gateway; 0 = any free port).'),
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl().describe('OTLP/HTTP collector for traces; unset = no export.'),
  ERROR_DOCS_URL: optionalUrl().describe("Where errors' `doc_url` points (`<url>#<code>`), e.g. `https://api.example.com/docs/errors` for a public deployment; default the platform's own `/docs/errors`, relative to the API's origin."),
  INTERNAL_TOKEN_SECRET: z.string({ error: (i) => (i.input === undefined ? 'required: the shared secret of internal tokens' : 'must be a string') }).min(32, 'must be at least 32 characters').describe('Shared secret of the gateway → service tokens (same value in every process).'),
  [EMBEDDED_SWITCH]: boolFlag(false).describe('Development only: allow in-process stand-ins for the servers the process would otherwise refuse to start without.'),
});

/** Variables every service process reads. */
export const serviceEnvSchema = commonEnvSchema.extend({
  PORT: portNumber(3000).describe('HTTP port of the service.'),
  HOST: z.string().min(1).default('0.0.0.0').describe('Interface the service and its metrics listen on (every interface in a container; `npm run start:processes` uses loopback).'),
  MONGO_URL: optionalUrl().describe('MongoDB 8.0 or later, a replica set (the outbox writes in transactions, and the last writes of a unit in one bulkWrite).'),
  MONGO_DB: z.string().min(1).optional().describe("Database name; default the one in MONGO_URL's path, else the service's name."),
  AMQP_URL: optionalUrl().describe('RabbitMQ. Required unless HELPDESK_EMBEDDED=1 (in-process bus: events reach no other process).'),
  AMQP_EXCHANGE: z.string().min(1).optional().describe('Topic exchange (default `helpdesk.events`); runs sharing a broker isolate themselves with their own.'),
  AMQP_QUEUE_PREFIX: z.string().min(1).optional().describe('Queue names `<prefix>.<service>` (default `helpdesk`).'),
});

/**
 * A standalone service process's schema: MONGO_URL always, AMQP_URL unless embedded, plus its own.
 * `requiredUnlessEmbedded` names more of its own variables it cannot run in production without (a
 * store that keeps state its replicas share: notifications' REDIS_URL), each with its stand-in.
 */
export function standaloneServiceSchema<S extends z.ZodObject<any>>(extraEnv: S, requiredUnlessEmbedded: Record<string, string> = {}) {
  const schema = serviceEnvSchema.extend({ MONGO_URL: requiredUrl('MongoDB replica-set URL').describe(serviceEnvSchema.shape.MONGO_URL.description!) }).extend(extraEnv.shape);
  return unlessEmbedded(schema, { AMQP_URL: 'the in-process bus', ...requiredUnlessEmbedded });
}
export type ServiceEnv = z.infer<typeof serviceEnvSchema>;
