import { z } from 'zod';

/** The delivery settings of one deployment (README: Delivery settings). Tests shorten the timings. */
export interface WebhookSettings {
  /**
   * WEBHOOKS_ALLOW_LOOPBACK: also deliver to loopback addresses, over plain HTTP too. Unsafe: for
   * local development and tests only. Private, link-local and metadata addresses stay refused.
   */
  allowLoopback: boolean;
  /** WEBHOOKS_TIMEOUT_MS: per-attempt timeout (connect, answer and body); at most 15 s. */
  timeoutMs: number;
  /** Waits before attempts 2, 3, … (attempt 1 is immediate); after the last one a delivery is failed. */
  retryScheduleMs: number[];
  /** ± fraction of random spread applied to each wait (0.1 = ±10 %), so failing receivers are not hit in lockstep. */
  jitter: number;
  /** The longest wait a `Retry-After` answer can impose; a later one is capped to this. */
  retryAfterMaxMs: number;
  /** The shortest sleep between the worker's looks for due retries (new deliveries are kicked at once). */
  pollIntervalMs: number;
  /** The longest: with nothing pending it looks this often, for rows a dead replica left (docs/adr/0070). */
  idlePollMs: number;
  /** How long a worker owns a claimed delivery; a crashed worker's rows are retried after it. */
  leaseMs: number;
  /** A webhook whose attempts have all failed for this long (no success) is disabled. */
  failingDisableMs: number;
  /** Attempts in flight at once, per process (the worker holds three times as many more rows, leased to it, waiting for a slot: docs/adr/0076). */
  concurrency: number;
  /** Webhooks per team and partition. */
  maxWebhooksPerTeam: number;
}

export const MAX_TIMEOUT_MS = 15_000;

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: 8 attempts over about 27.6 hours. */
export const DEFAULT_RETRY_SCHEDULE_MS = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];

export const DEFAULT_SETTINGS: WebhookSettings = {
  allowLoopback: false,
  timeoutMs: 10_000,
  retryScheduleMs: DEFAULT_RETRY_SCHEDULE_MS,
  jitter: 0.1,
  retryAfterMaxMs: 10 * HOUR,
  pollIntervalMs: SECOND,
  idlePollMs: 30 * SECOND,
  leaseMs: MINUTE,
  failingDisableMs: 5 * 24 * HOUR,
  concurrency: 32,
  maxWebhooksPerTeam: 20,
};

const settingsSchema = z
  .object({
    allowLoopback: z.boolean(),
    timeoutMs: z.number().int().min(1).max(MAX_TIMEOUT_MS),
    retryScheduleMs: z.array(z.number().int().min(0)).max(50),
    jitter: z.number().min(0).max(0.5),
    retryAfterMaxMs: z.number().int().min(0),
    pollIntervalMs: z.number().int().min(1),
    idlePollMs: z.number().int().min(1),
    leaseMs: z.number().int().min(1),
    failingDisableMs: z.number().int().min(1),
    concurrency: z.number().int().min(1).max(1000),
    maxWebhooksPerTeam: z.number().int().min(1),
  })
  // A lease shorter than an attempt could let a second worker send the same delivery while the first still waits.
  .refine((s) => s.leaseMs > s.timeoutMs, { message: 'leaseMs must be longer than timeoutMs', path: ['leaseMs'] });

/** The defaults with the given overrides, checked (a bad value throws at start-up, naming it). */
export function resolveSettings(overrides: Partial<WebhookSettings> = {}): WebhookSettings {
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined));
  const merged = { ...DEFAULT_SETTINGS, ...defined };
  // A timeout alone may be raised to 15 s: keep the lease comfortably above it unless it was set too.
  if (overrides.leaseMs === undefined) merged.leaseMs = Math.max(merged.leaseMs, merged.timeoutMs * 4);
  const parsed = settingsSchema.safeParse(merged);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`webhooks settings: ${issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data;
}
