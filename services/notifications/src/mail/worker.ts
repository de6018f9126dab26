import { randomUUID } from 'node:crypto';
import { WORKSPACE_INTERNAL, WORKSPACE_SESSIONS_INTERNAL } from '@helpdesk/contracts';
import { internalClient, type InternalTokens, type Logger, type ServiceWorker, type Swept, type WorkSignal } from '@helpdesk/kit';
import type { mongo } from 'mongoose';
import type { MailDoc } from './model';
import { invitationMail, notificationMail, replyMail, signInMail, type RenderedMail } from './templates';
import type { MailTransport, OutgoingMail } from './transport';

export interface MailWorkerSettings {
  transport: MailTransport;
  /** The From address of every message. */
  from: string;
  /** The workspace service: the invitation's link, and where its outcome is recorded. */
  workspaceUrl: string;
  tokens: InternalTokens;
  /**
   * The look while idle, for mail no commit here announced (queued by a replica that died before
   * sending it; default 30 s). Mail queued here wakes the worker at once, and a retry's due time ends
   * its sleep (docs/adr/0070).
   */
  pollIntervalMs: number;
  /** The wait before each retry; a mail fails for good after `retryDelaysMs.length + 1` attempts. */
  retryDelaysMs: number[];
}

/** Default retries: after 30 s, 2 min, 10 min, 1 h (5 attempts over about 72 minutes). */
export const DEFAULT_RETRY_DELAYS_MS = [30_000, 120_000, 600_000, 3_600_000];
/** A claimed mail is this one worker's for this long (longer than an SMTP send's timeouts). */
const LEASE_MS = 5 * 60_000;
const NO_LEASE = new Date(0);

/**
 * Sends the mail outbox (docs/adr/0020): claims one due row at a time (a lease, so replicas never
 * send the same row at once), renders it, sends it, and records the outcome; a failure is retried
 * after the next delay and, when the delays are used up, the mail is `failed`. An invitation asks
 * the workspace service for its link when it is sent (a fresh single-use token) and reports the
 * outcome back; an invite that is no longer pending cancels its mail. A sign-in mail asks for its link the
 * same way (a used or expired link cancels it). A notification's email needs nothing more.
 */
export function startMailWorker(Mails: mongo.Collection<Swept<MailDoc>>, settings: MailWorkerSettings, queued: WorkSignal, logger: Logger): ServiceWorker {
  const workspace = internalClient({ ...WORKSPACE_INTERNAL, ...WORKSPACE_SESSIONS_INTERNAL }, settings.workspaceUrl, { service: 'workspace' });
  let stopped = false;

  const asTeam = (m: MailDoc) => {
    const requestId = `req_mail${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    const token = settings.tokens.mint(
      { teamId: m.teamId, mode: m.mode, keyId: 'notifications', keyType: 'internal', memberId: null, permissions: [] },
      requestId,
    );
    return workspace.forRequest(token, requestId);
  };

  async function claim(): Promise<MailDoc | null> {
    const now = new Date();
    return Mails.findOneAndUpdate(
      { status: 'queued', nextAttemptAt: { $lte: now }, leaseUntil: { $lte: now } },
      { $set: { leaseUntil: new Date(now.getTime() + LEASE_MS) } },
      { sort: { nextAttemptAt: 1 }, returnDocument: 'after' },
    );
  }

  async function report(m: MailDoc, body: { status: 'sent' | 'failed'; error?: string }) {
    try {
      await asTeam(m).call('recordInviteMessage', { params: { inviteId: m.invitation!.inviteId }, body });
    } catch (err) {
      // The mail's own row keeps the truth; the invite's copy of it is informative only.
      logger.warn({ err, mailId: m._id }, 'could not record the invitation message outcome');
    }
  }

  async function send(m: MailDoc): Promise<void> {
    const finish = (set: Partial<MailDoc>) => Mails.updateOne({ _id: m._id }, { $set: { leaseUntil: NO_LEASE, ...set } });
    const attempts = m.attempts + 1;
    try {
      let rendered: RenderedMail;
      let from = settings.from;
      let threading: OutgoingMail['threading'];
      if (m.invitation) {
        const link = await asTeam(m).call('issueInviteLink', { params: { inviteId: m.invitation.inviteId } });
        if (!link) {
          await finish({ status: 'cancelled', attempts, lastError: 'the invite is no longer pending' });
          return;
        }
        rendered = invitationMail(m.invitation, link.acceptUrl);
      } else if (m.signIn) {
        // The sign-in link's token is made now, never stored here (docs/adr/0068); a used or expired link is not sent.
        const link = await asTeam(m).call('issueSignInLink', { params: { signInLinkId: m.signIn.signInLinkId } });
        if (!link) {
          await finish({ status: 'cancelled', attempts, lastError: 'the sign-in link was used or has expired' });
          return;
        }
        rendered = signInMail(m.signIn, link.url);
      } else if (m.reply) {
        // From the team's support address, threaded into the customer's conversation (docs/adr/0041).
        const { thread } = m.reply;
        rendered = replyMail(m.reply);
        from = thread.fromName ? `"${thread.fromName.replace(/["\\\r\n]/g, '')}" <${thread.fromAddress}>` : thread.fromAddress;
        threading = { messageId: thread.messageId, inReplyTo: thread.inReplyTo, references: thread.references, replyTo: thread.replyTo };
      } else rendered = notificationMail(m.notification!);
      await settings.transport.send({ id: m._id, from, to: m.to, ...rendered, threading });
      await finish({ status: 'sent', attempts, sentAt: new Date(), lastError: null });
      if (m.invitation) await report(m, { status: 'sent' });
    } catch (err) {
      const error = err instanceof Error ? err.message.slice(0, 500) : 'unknown error';
      const delay = settings.retryDelaysMs[attempts - 1];
      if (delay === undefined) {
        await finish({ status: 'failed', attempts, lastError: error });
        if (m.invitation) await report(m, { status: 'failed', error });
      } else {
        await finish({ attempts, lastError: error, nextAttemptAt: new Date(Date.now() + delay) });
      }
      logger.warn({ mailId: m._id, attempts, error }, 'mail not sent');
    }
  }

  /** How long to sleep with nothing due: until the next queued row's retry or lease ends, at most the idle look. */
  async function untilNextDue(): Promise<number> {
    const next = await Mails.findOne({ status: 'queued' }, { sort: { nextAttemptAt: 1 }, projection: { nextAttemptAt: 1, leaseUntil: 1 } });
    if (!next) return settings.pollIntervalMs;
    const due = Math.max(next.nextAttemptAt.getTime(), next.leaseUntil.getTime());
    return Math.min(settings.pollIntervalMs, Math.max(0, due - Date.now()) + 5);
  }

  const loop = (async () => {
    while (!stopped) {
      let wait = settings.pollIntervalMs;
      try {
        const m = await claim();
        if (m) {
          await send(m);
          continue;
        }
        wait = await untilNextDue();
      } catch (err) {
        logger.error({ err }, 'mail worker');
      }
      if (!stopped) await queued.wait(wait);
    }
  })();

  return {
    async stop() {
      stopped = true;
      queued.signal();
      await loop;
      settings.transport.close();
    },
  };
}
