import type { AddressInfo } from 'node:net';
import { closeServer, type Logger, type ServiceWorker } from '@helpdesk/kit';
import type { MailIntake } from './intake';
import { smtpListener } from './smtp';
import { webhookListener } from './webhook';

/** Where the listeners took their ports (port 0 = any free one). */
export interface InboundListening {
  smtpPort: number | null;
  httpPort: number | null;
}

/**
 * Starts the configured inbound listeners beside the service (a worker); `ready` settles once both
 * listen (or one failed to: the port taken), and tests learn the ports from it.
 */
export function startInboundListeners(rules: MailIntake, logger: Logger): ServiceWorker & { ready: Promise<InboundListening> } {
  const { config } = rules;
  const smtp = config.smtp ? smtpListener(rules, config, config.smtp, logger) : null;
  const web = config.http ? webhookListener(rules, config, logger) : null;
  // A client's broken connection is the server's 'error' event: logged, never fatal.
  smtp?.on('error', (err) => logger.warn({ err }, 'inbound SMTP connection error'));
  const listen = (server: { listen(port: number, host: string, cb: () => void): unknown; once(ev: 'error', cb: (err: Error) => void): unknown }, port: number, host: string) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
  const ready = (async (): Promise<InboundListening> => {
    if (smtp && config.smtp) await listen(smtp, config.smtp.port, config.smtp.host);
    if (web && config.http) await listen(web, config.http.port, config.http.host);
    const listening = {
      smtpPort: smtp ? (smtp.server.address() as AddressInfo).port : null,
      httpPort: web ? (web.address() as AddressInfo).port : null,
    };
    logger.info(listening, 'inbound email listening');
    return listening;
  })();
  ready.catch((err: unknown) => logger.error({ err }, 'inbound email listeners could not start'));
  rules.listening = ready;
  return {
    ready,
    async stop() {
      await ready.catch(() => {});
      if (web) await closeServer(web);
      if (smtp) await new Promise<void>((resolve) => smtp.close(() => resolve()));
    },
  };
}
