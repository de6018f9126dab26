/**
 * Makes the README's screenshots of the agent console (docs/images/console-inbox.png,
 * console-ticket.png, console-game.png) on a platform seeded with a small, plausible team. Run by hand
 * through jest (the platform's helpers expect it), never by `npm test` (the name is not *.test.ts):
 *
 *   npx jest --testMatch '<rootDir>/e2e/console/screenshots.ts' --testTimeout 180000
 */
import path from 'node:path';
import { startTestPlatform } from '../support/platform';
import { expectOk } from '../platform/helpdesk-helpers';
import { addTeammate, consoleBuilt, launchBrowser, originOf, signIn, until } from './console-helpers';

const OUT = path.resolve(__dirname, '../../docs/images');

const TICKETS: [title: string, priority: string, customer: string, message: string][] = [
  ['Invoice shows the wrong VAT number', 'high', 'Priya Natarajan', 'Our March invoice lists last year’s VAT number. Could you reissue it?'],
  ['Cannot reset my password', 'urgent', 'Tom Becker', 'The reset mail never arrives, and I am locked out before a demo.'],
  ['Export to CSV cuts long notes', 'normal', 'Lena Ortiz', 'Notes longer than a few lines are cut in the CSV export.'],
  ['Add a second admin to our account', 'low', 'Priya Natarajan', 'Please make Arjun an admin as well.'],
  ['Webhook deliveries fail since Monday', 'high', 'Sam Okafor', 'Our endpoint gets 401s for every delivery since Monday.'],
  ['Dark mode for the widget?', 'low', 'Lena Ortiz', 'Is there a dark theme for the chat widget?'],
  ['Refund for a double charge', 'urgent', 'Marco Rossi', 'We were charged twice for April.'],
  ['SSO login loops back to the start', 'high', 'Ines Duarte', 'After the identity provider we land on the login page again.'],
  ['Attachments over 5 MB are rejected', 'normal', 'Sam Okafor', 'Our customers send larger PDFs.'],
  ['Where do I change the invoice address?', 'low', 'Marco Rossi', 'We moved offices last month.'],
  ['The mobile app logs me out hourly', 'normal', 'Ines Duarte', 'Since the last update I sign in every hour.'],
  ['API returns 429 during our nightly sync', 'high', 'Tom Becker', 'The sync stops halfway with rate-limit errors.'],
];

it('makes the screenshots', async () => {
  consoleBuilt();
  const tp = await startTestPlatform();
  const key = tp.team.sk_live;
  const api = (p: string) => `/teams/${tp.team.teamId}${p}`;
  const mate = await addTeammate(tp);
  const hit = (ticketId: string, k: string) =>
    until('the hit', async () => {
      const res = await tp.api.post(api('/game/boss/damage'), { ticketId }, { key: k });
      return res.status === 422 ? null : expectOk(res, 200);
    });
  expectOk(await tp.api.post(api('/sla/rules'), { name: 'Urgent: 1 h / 8 h', priorityKey: 'urgent', responseTimeMinutes: 60, resolutionTimeMinutes: 480, use24x7: true }, { key }), 201);
  expectOk(await tp.api.post(api('/sla/rules'), { name: 'High: 4 h / 24 h', priorityKey: 'high', responseTimeMinutes: 240, resolutionTimeMinutes: 1440, use24x7: true }, { key }), 201);
  const ids: string[] = [];
  for (const [title, priority, customer, message] of TICKETS) {
    const t = expectOk(await tp.api.post(api('/tickets'), { title, priority, customerName: customer, messages: [{ sender: 'customer', content: message }] }, { key }), 201);
    ids.push(t.id);
  }
  expectOk(await tp.api.post(api('/game/boss/spawn'), {}, { key }), 201);
  // The teammate has been busy: two closes that hit the boss.
  for (const id of ids.slice(5, 7)) {
    expectOk(await tp.api.patch(api(`/tickets/${id}`), { status: 'closed' }, { key: mate.key }), 200);
    await hit(id, mate.key);
  }
  const focus = ids[1]!;
  expectOk(await tp.api.patch(api(`/tickets/${focus}`), { status: 'open', tags: ['login', 'vip'], assignedTo: mate.id }, { key }), 200);
  expectOk(await tp.api.post(api(`/tickets/${focus}/messages`), { content: 'Hi Tom, we are looking into it right now. Could you check your spam folder in the meantime?' }, { key: mate.key }), 201);
  expectOk(await tp.api.post(api(`/tickets/${focus}/messages`), { content: 'Mail logs show the reset mails bounce at their gateway. Asking their IT.', messageType: 'internal' }, { key: mate.key }), 201);
  expectOk(await tp.api.post(api(`/tickets/${focus}/messages`), { content: 'Nothing in spam either. The demo is in two hours!', sender: 'customer' }, { key }), 201);
  // The owner closes one too (their first: an achievement).
  expectOk(await tp.api.patch(api(`/tickets/${ids[4]}`), { status: 'closed' }, { key }), 200);
  await hit(ids[4]!, key);
  await new Promise((r) => setTimeout(r, 1500));

  const browser = await launchBrowser();
  const { page, context } = await signIn(browser, tp, tp.team);
  const origin = originOf(tp);
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`${origin}/app/?folder=all`);
  await page.waitForSelector('li[data-ticket-id]');
  await page.waitForSelector('.stream-live');
  await page.keyboard.press('j');
  await page.screenshot({ path: path.join(OUT, 'console-inbox.png') });
  await page.goto(`${origin}/app/tickets/${focus}`);
  await page.locator('.message.note').waitFor();
  await page.screenshot({ path: path.join(OUT, 'console-ticket.png') });
  await page.goto(`${origin}/app/game`);
  await page.getByRole('table', { name: 'Fighters' }).waitFor();
  await page.screenshot({ path: path.join(OUT, 'console-game.png') });
  await context.close();
  await browser.close();
  await tp.stop();
  console.log(`written to ${OUT}`);
});
