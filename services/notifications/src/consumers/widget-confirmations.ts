import type mongoose from 'mongoose';
import { consumeOnce, type TypedEvent } from '@helpdesk/kit';
import type { MailRules } from '../mail/rules';
import { CONSUMER } from './consumer';

/**
 * A chat widget sign-up's confirmation code (docs/adr/0040), mailed to the customer through the mail
 * outbox's notification message (title and text), once per event.
 */
export function widgetConfirmationConsumers(conn: mongoose.Connection, mail: MailRules) {
  return {
    async requested(e: TypedEvent<'customer.confirmation_requested'>) {
      const { customer, code, expiresAt } = e.data;
      if (!customer.email) return;
      const body = [
        `Hi ${customer.name},`,
        '',
        `Your confirmation code is ${code}.`,
        'Type it into the chat window where you wrote to us to confirm your email address.',
        `It works until ${expiresAt.replace('T', ' ').replace(/\.\d+Z$/, ' UTC')}. If you did not write to us, ignore this email.`,
      ].join('\n');
      await consumeOnce(conn, CONSUMER, e, (session) =>
        mail.queueNotification(e, customer.email, { notificationId: e.id, type: 'customer_confirmation', title: `Your confirmation code: ${code}`, body, ticketId: null }, session),
      );
    },
  };
}
