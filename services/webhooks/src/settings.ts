/** The delivery settings of one deployment (README: Webhooks). */
export interface WebhookSettings {
  /**
   * WEBHOOKS_ALLOW_LOOPBACK: also deliver to loopback addresses, over plain HTTP too. Unsafe: for
   * local development and tests only. Private, link-local and metadata addresses stay refused.
   */
  allowLoopback: boolean;
  /** Per-attempt timeout; at most 15 s. */
  timeoutMs: number;
}

export const MAX_TIMEOUT_MS = 15_000;

export const DEFAULT_SETTINGS: WebhookSettings = {
  allowLoopback: false,
  timeoutMs: 10_000,
};
