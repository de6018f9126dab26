import { SLOW_CLIENT_LIMITS, type Logger } from '@helpdesk/kit';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { routeOf } from './addresses';
import { MalformedMail, parseInboundMail } from './parse';
import type { InboundEmailConfig } from './config';
import { MailLimited, type MailRoute } from './ingest';
import type { MailIntake } from './intake';

const smtpError = (code: number, message: string) => Object.assign(new Error(message), { responseCode: code });

/**
 * The SMTP listener (docs/adr/0041): an MX or a forwarding target. It takes mail for the partitions'
 * addresses only (550 for any other recipient: never an open relay), no AUTH; STARTTLS when a key and
 * certificate are configured; SIZE from `maxBytes` (552 above it). A mail is answered 250 once its
 * ticket or message is stored (or it was ignored as automatic), 550 when it is malformed, 451 when
 * storing failed (the sending server retries later; nothing was half-written).
 */
export function smtpListener(rules: Pick<MailIntake, 'ingest'>, config: InboundEmailConfig, smtp: NonNullable<InboundEmailConfig['smtp']>, logger: Logger): SMTPServer {
  const options: SMTPServerOptions = {
    name: config.domain,
    banner: 'Helpdesk inbound mail',
    size: config.maxBytes,
    authOptional: true,
    disabledCommands: smtp.tls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
    ...(smtp.tls ? { key: smtp.tls.key, cert: smtp.tls.cert } : {}),
    logger: false,
    // An MX faces the internet: bounded connections, and a silent client is dropped (docs/adr/0063).
    maxClients: 200,
    socketTimeout: (config.slowClients ?? SLOW_CLIENT_LIMITS).headersMs,
    onRcptTo(address, _session, callback) {
      if (!routeOf(address.address, config.domain)) return callback(smtpError(550, `5.1.1 <${address.address}>: no such mailbox here`));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('error', (err) => callback(err));
      stream.on('end', () => {
        if (stream.sizeExceeded) return callback(smtpError(552, `5.3.4 Message larger than ${config.maxBytes} bytes`));
        const mailFrom = session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address;
        // One delivery per partition; a reply address wins over the plain address of the same partition.
        const routes = new Map<string, MailRoute>();
        for (const rcpt of session.envelope.rcptTo) {
          const r = routeOf(rcpt.address, config.domain);
          if (!r) continue;
          const key = `${r.teamId}:${r.mode}`;
          if (!routes.get(key)?.ticketId) routes.set(key, r);
        }
        (async () => {
          const mail = await parseInboundMail(Buffer.concat(chunks), mailFrom);
          const outcomes = [];
          for (const route of routes.values()) outcomes.push(await rules.ingest(route, mail));
          return outcomes;
        })().then(
          // The sender learns the ticket its own mail opened or continued; a duplicate names none (a Message-ID may be someone else's).
          (outcomes) => callback(null, `2.0.0 ${outcomes.map((o) => (o.outcome === 'duplicate' ? o.outcome : (o.ticketId ?? o.outcome))).join(', ')}`),
          (err: unknown) => {
            if (err instanceof MalformedMail) return callback(smtpError(550, `5.6.0 ${err.message}`));
            // RFC 3463 4.7.x: a policy refusal the sending server retries later.
            if (err instanceof MailLimited) return callback(smtpError(451, `4.7.1 ${err.message}`));
            logger.error({ err }, 'inbound mail not stored');
            callback(smtpError(451, '4.3.0 The mail could not be stored; try again later'));
          },
        );
      });
    },
  };
  return new SMTPServer(options);
}
