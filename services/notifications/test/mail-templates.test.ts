/** The notification email's footer says why the recipient gets it: a member's settings, or a customer's chat sign-up. */
import { notificationMail } from '../src/mail/templates';

const base = { notificationId: 'evt_abcdefgh12', title: 'Your confirmation code: ABCD2345', body: 'Your confirmation code is ABCD2345.', ticketId: null };

test("a member's notification names their notification settings", () => {
  const m = notificationMail({ ...base, type: 'ticket_assigned' });
  expect(m.text).toContain('notification emails are on in your notification settings');
  expect(m.html).toContain('notification emails are on in your notification settings');
});

test("a widget customer's confirmation code does not mention settings they do not have", () => {
  const m = notificationMail({ ...base, type: 'customer_confirmation' });
  expect(m.subject).toBe('Your confirmation code: ABCD2345');
  for (const part of [m.text, m.html]) {
    expect(part).toContain('ABCD2345');
    expect(part).toContain('this address was given in a chat on our support site');
    expect(part).not.toContain('notification settings');
  }
});
