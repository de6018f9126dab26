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

/** Empty strings count as unset, so `FOO=` behaves like no FOO. */
export const optionalUrl = () =>
  z.preprocess((v) => (v === '' ? undefined : v), z.string().url().optional());

export const portNumber = (fallback: number) =>
  z.preprocess((v) => (v === '' || v === undefined ? fallback : Number(v)), z.number().int().min(0).max(65535));

export const boolFlag = (fallback: boolean) =>
  z.preprocess((v) => (v === undefined || v === '' ? fallback : v === 'true' || v === '1'), z.boolean());

/** Variables every service process reads. */
export const serviceEnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  PORT: portNumber(3000),
  MONGO_URL: optionalUrl(),
  AMQP_URL: optionalUrl(),
  /** RabbitMQ names (default `helpdesk.events` and queues `helpdesk.<service>`): runs sharing a broker isolate themselves with their own. */
  AMQP_EXCHANGE: z.string().min(1).optional(),
  AMQP_QUEUE_PREFIX: z.string().min(1).optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl(),
  INTERNAL_TOKEN_SECRET: z.string().min(32, 'must be at least 32 characters'),
});
export type ServiceEnv = z.infer<typeof serviceEnvSchema>;
