import type { SlowClientLimits } from '@helpdesk/kit';
import type { InboundMailLimits } from './limits';

/** Inbound email's settings (docs/adr/0041): the listeners are started by ./listeners.ts. */
export interface InboundEmailConfig {
  /** The domain of the partitions' addresses and of our Message-IDs (INBOUND_EMAIL_DOMAIN, default `helpdesk.local`). */
  domain: string;
  /** The largest mail taken, in bytes (SMTP SIZE and the webhook's body limit). */
  maxBytes: number;
  /** The SMTP listener; null: off. `tls`: PEM key and certificate for STARTTLS (none: no STARTTLS). */
  smtp: { host: string; port: number; tls?: { key: string | Buffer; cert: string | Buffer } } | null;
  /** The webhook listener for providers' raw MIME; null: off. */
  http: { host: string; port: number } | null;
  /** Mails an hour per sender and per partition (docs/adr/0063); default DEFAULT_INBOUND_MAIL_LIMITS. */
  limits?: InboundMailLimits;
  /** Slow clients: the listeners' time for a request's headers (SMTP: each command), and the body's minimum rate; default kit's SLOW_CLIENT_LIMITS. */
  slowClients?: SlowClientLimits;
}

export const DEFAULT_INBOUND_EMAIL: InboundEmailConfig = { domain: 'helpdesk.local', maxBytes: 10 * 1024 * 1024, smtp: null, http: null };

/** A duplicate key: the same mail, or a newer row, written meanwhile. */
export const isDuplicateKey = (err: unknown) => (err as { code?: number }).code === 11000;
