import type { Scope } from '@helpdesk/kit';
import type { InboundEmailConfig } from './config';
import { ingestMail, type IngestMailDeps, type IngestOutcome, type MailRoute } from './ingest';
import { DEFAULT_INBOUND_MAIL_LIMITS, inboundMailLimiter } from './limits';
import type { InboundListening } from './listeners';
import type { InboundMail } from './parse';
import { verifyInboundSecret } from './secret';

/** What the inbound listeners (SMTP, the providers' webhook) use: their settings, a mail's way in, the webhook's secret check. */
export interface MailIntake {
  config: InboundEmailConfig;
  /** Set when the listeners start (./listeners.ts): their ports once they listen. */
  listening: Promise<InboundListening> | null;
  ingest(route: MailRoute, mail: InboundMail): Promise<IngestOutcome>;
  verifySecret(teamId: string, presented: string): Promise<Scope | null>;
}

/** The intake on the service's dependencies, with the hourly limits of its settings (docs/adr/0063). */
export function mailIntake(deps: Omit<IngestMailDeps, 'mailLimiter' | 'domain'>, config: InboundEmailConfig): MailIntake {
  const ingestDeps: IngestMailDeps = { ...deps, domain: config.domain, mailLimiter: inboundMailLimiter(deps.models, config.limits ?? DEFAULT_INBOUND_MAIL_LIMITS) };
  return {
    config,
    listening: null,
    ingest: (route, mail) => ingestMail(ingestDeps, route, mail),
    verifySecret: (teamId, presented) => verifyInboundSecret(deps, teamId, presented),
  };
}
