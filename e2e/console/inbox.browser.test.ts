/**
 * The agent console's inbox and a ticket (issue 35 items 2 and 3), in Chromium: an inbox that updates
 * live from the event stream, reply and note (told apart in the thread and stored as such), assignment,
 * tags, merge, the customer's other tickets, folders and paging, and a pass with the keyboard alone.
 * Every change is checked where a client sees it: through the API.
 */
import type { Browser, Page } from 'playwright-core';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { expectOk } from '../platform/helpdesk-helpers';
import { addTeammate, browserDescribe, consoleBuilt, signInToken, startRelay, watchProblems, customerTicket, launchBrowser, memberOfKey, originOf, seriousViolations, signIn, until, type SignedIn } from './console-helpers';

browserDescribe('inbox.browser.test')('the console: inbox and tickets', () => {
  let tp: TestPlatform;
  let browser: Browser;
  let origin: string;
  let me: SignedIn;
  let page: Page;
  let owner: { id: string; name: string; email: string };
  let teammate: { id: string; key: string };

  const api = (path: string) => `/teams/${tp.team.teamId}${path}`;
  const getTicket = async (id: string) => expectOk(await tp.api.get(api(`/tickets/${id}`), { key: tp.team.sk_live }), 200);
  const row = (id: string) => page.locator(`li[data-ticket-id="${id}"]`);

  beforeAll(async () => {
    consoleBuilt();
    tp = await startTestPlatform();
    origin = originOf(tp);
    teammate = await addTeammate(tp);
    owner = await memberOfKey(tp, tp.team.sk_live);
    browser = await launchBrowser();
    me = await signIn(browser, tp, tp.team);
    page = me.page;
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await tp?.stop();
  }, 60_000);
  afterEach(() => expect(me.problems).toEqual([]));

  it('shows new tickets and their changes live, newest first, without a reload', async () => {
    await page.goto(`${origin}/app/`);
    await page.waitForSelector('.stream-live');
    const first = await customerTicket(tp, tp.team, 'Live one');
    await row(first.id).waitFor();
    const second = await customerTicket(tp, tp.team, 'Live two', { priority: 'urgent' });
    await row(second.id).waitFor();
    const ids = await page.$$eval('li[data-ticket-id]', (els) => els.map((e) => e.getAttribute('data-ticket-id')));
    expect(ids.indexOf(second.id)).toBeLessThan(ids.indexOf(first.id));
    // A change made elsewhere (another member, through the API) reaches the row.
    expectOk(await tp.api.patch(api(`/tickets/${first.id}`), { status: 'pending' }, { key: teammate.key }), 200);
    await until('the row to say Pending', async () => (await row(first.id).textContent())?.includes('Pending'));
    expect(await seriousViolations(page)).toEqual([]);
  }, 60_000);

  it('reconnects after the connection drops and shows what was committed meanwhile (Last-Event-ID)', async () => {
    const relay = await startRelay(tp);
    const context = await browser.newContext();
    const p = await context.newPage();
    const problems = watchProblems(p);
    try {
      await p.goto(`${relay.origin}/app/sign-in?token=${encodeURIComponent(await signInToken(tp, tp.team.teamId))}`);
      await p.getByRole('button', { name: 'Sign in' }).click();
      await p.waitForSelector('h1#inbox-title');
      await p.waitForSelector('.stream-live');
      // An event first, so the stream has an id to resume from.
      const seen = await customerTicket(tp, tp.team, 'Seen before the drop');
      await p.locator(`li[data-ticket-id="${seen.id}"]`).waitFor();
      const reconnects: Promise<Record<string, string>>[] = [];
      p.on('request', (r) => r.url().includes('/events/stream') && reconnects.push(r.allHeaders()));
      relay.cut(true);
      await p.waitForSelector('.stream-reconnecting');
      const missed = await customerTicket(tp, tp.team, 'Committed while the line was down');
      relay.cut(false);
      await p.locator(`li[data-ticket-id="${missed.id}"]`).waitFor({ timeout: 20_000 });
      await p.waitForSelector('.stream-live');
      // The browser came back with the id of the last event it had.
      expect(reconnects.length).toBeGreaterThan(0);
      expect((await reconnects[0])['last-event-id']).toMatch(/^\d+-\d+$/);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
      await relay.close();
    }
  }, 60_000);

  it('inserts a knowledge article found by search, and the AI suggested reply, into the draft', async () => {
    const article = expectOk(
      await tp.api.post(api('/articles'), { title: 'Resetting your password', content: 'Open Settings, then Security, then Reset password.', status: 'published' }, { key: tp.team.sk_live }),
      201,
    );
    const t = await customerTicket(tp, tp.team, 'How do I reset my password');
    await page.goto(`${origin}/app/tickets/${t.id}`);
    await page.waitForSelector('#ticket-title');
    await page.getByRole('button', { name: 'Insert article…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Insert a knowledge article' });
    await dialog.getByLabel('Search published articles').fill('password');
    await dialog.getByRole('button', { name: /Resetting your password/ }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: /Resetting your password/ }).click();
    const box = page.getByLabel('Reply to the customer');
    await until('the article in the draft', async () => (await box.inputValue()).includes('Open Settings, then Security'));
    expect(article.id).toMatch(/^art_/);
    await box.fill('');
    await page.getByRole('button', { name: 'Suggest a reply' }).click();
    await until('a suggestion in the draft', async () => (await box.inputValue()).trim().length > 0);
  }, 60_000);

  it('replies and notes: the thread tells them apart, the API stores a public reply and an internal note', async () => {
    const t = await customerTicket(tp, tp.team, 'Reply and note');
    await page.goto(`${origin}/app/tickets/${t.id}`);
    await page.waitForSelector('#ticket-title');
    await page.getByLabel('Reply to the customer').fill('We are on it.');
    await page.getByRole('button', { name: 'Send reply' }).click();
    await page.locator('.message', { hasText: 'We are on it.' }).waitFor();
    await page.getByRole('radio', { name: 'Internal note' }).check();
    await page.getByRole('combobox', { name: /Internal note/ }).fill('Customer is on the legacy plan.');
    await page.getByRole('button', { name: 'Add note' }).click();
    const note = page.locator('.message', { hasText: 'Customer is on the legacy plan.' });
    await note.waitFor();
    expect(await note.getAttribute('class')).toContain('note');
    expect(await note.locator('.kind').textContent()).toBe('Internal note');
    expect(await page.locator('.message', { hasText: 'We are on it.' }).locator('.kind').textContent()).toBe('Public reply');
    const stored = (await getTicket(t.id)).messages.map((m: any) => [m.content, m.isInternal, m.sender, m.authorId]);
    expect(stored).toEqual([
      ['Reply and note: please help.', false, 'customer', null],
      ['We are on it.', false, 'agent', owner.id],
      ['Customer is on the legacy plan.', true, 'agent', owner.id],
    ]);
    expect(await seriousViolations(page)).toEqual([]);
  }, 60_000);

  it('a mention picks a member from the list', async () => {
    const t = await customerTicket(tp, tp.team, 'Mention');
    await page.goto(`${origin}/app/tickets/${t.id}?compose=note`);
    const box = page.getByRole('combobox', { name: /Internal note/ });
    await box.waitFor();
    await box.pressSequentially('Ask @Memb');
    await page.getByRole('listbox', { name: 'Members' }).getByRole('option', { name: /Member agent/ }).waitFor();
    await box.press('Enter');
    expect(await box.inputValue()).toBe('Ask @Member agent ');
  }, 60_000);

  it('assignment, priority, tags and status are saved as they change', async () => {
    const t = await customerTicket(tp, tp.team, 'Properties');
    await page.goto(`${origin}/app/tickets/${t.id}`);
    await page.waitForSelector('#ticket-title');
    await page.getByLabel('Assignee').selectOption(teammate.id);
    await until('the assignment', async () => (await getTicket(t.id)).assignedTo === teammate.id);
    await page.getByRole('button', { name: 'Assign to me' }).click();
    await until('the assignment to me', async () => (await getTicket(t.id)).assignedTo === owner.id);
    await page.getByLabel('Priority').selectOption('high');
    await page.getByLabel('New tag').fill('billing');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByRole('button', { name: 'Remove tag billing' }).waitFor();
    await page.getByLabel('Status').selectOption('pending');
    await until('the changes', async () => {
      const now = await getTicket(t.id);
      return now.priority === 'high' && now.status === 'pending' && now.tags.join() === 'billing';
    });
    // Mine shows it now.
    await page.goto(`${origin}/app/?folder=mine`);
    await row(t.id).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
  }, 60_000);

  it("the customer's card lists their other tickets; merge moves one into this ticket", async () => {
    const email = `merge-${Date.now()}@example.com`;
    expectOk(await tp.api.post(api('/customers'), { name: 'Mia Merge', email }, { key: tp.team.sk_live }), 201);
    const a = await customerTicket(tp, tp.team, 'First of two', { customerEmail: email });
    const b = await customerTicket(tp, tp.team, 'Second of two', { customerEmail: email });
    await page.goto(`${origin}/app/tickets/${b.id}`);
    await page.locator('.customer', { hasText: 'Mia Merge' }).waitFor();
    await page.locator('.customer').getByRole('link', { name: 'First of two' }).waitFor();
    await page.getByRole('button', { name: 'Merge tickets into this one…' }).click();
    await page.getByRole('checkbox', { name: /First of two/ }).check();
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Merge 1 ticket' }).click();
    await page.locator('.message', { hasText: 'First of two: please help.' }).waitFor();
    expect((await getTicket(a.id)).status).toBe('merged');
    expect((await getTicket(a.id)).mergedInto).toBe(b.id);
  }, 60_000);

  it('a keyboard-only pass: move, open, reply, note, assign, the shortcut list', async () => {
    const t = await customerTicket(tp, tp.team, 'Keyboard only');
    await page.goto(`${origin}/app/?folder=unassigned`);
    await row(t.id).waitFor();
    // The newest is first and selected; j moves down, k back up.
    await page.keyboard.press('j');
    await page.keyboard.press('k');
    expect(await page.evaluate(`document.activeElement?.closest('li')?.getAttribute('data-ticket-id')`)).toBe(t.id);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${origin}/app/tickets/${t.id}`);
    await page.waitForSelector('#ticket-title');
    await page.keyboard.press('r');
    expect(await page.evaluate('document.activeElement?.id')).toBe('composer-text');
    await page.keyboard.type('Typed without a mouse.');
    await page.keyboard.press('Control+Enter');
    await page.locator('.message', { hasText: 'Typed without a mouse.' }).waitFor();
    await page.keyboard.press('Escape');
    await page.keyboard.press('n');
    await page.keyboard.type('A note by keyboard.');
    await page.keyboard.press('Control+Enter');
    await page.locator('.message.note', { hasText: 'A note by keyboard.' }).waitFor();
    await page.keyboard.press('Escape');
    await page.keyboard.press('a');
    expect(await page.evaluate('document.activeElement?.id')).toBe('ticket-assignee');
    await page.keyboard.press('ArrowDown'); // the first member: the owner
    await until('the assignment by keyboard', async () => (await getTicket(t.id)).assignedTo !== null);
    await page.keyboard.press('Escape');
    await page.evaluate('document.activeElement?.blur()');
    await page.keyboard.press('?');
    await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.keyboard.press('Escape');
    await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor({ state: 'hidden' });
    const stored = (await getTicket(t.id)).messages.map((m: any) => [m.content, m.isInternal]);
    expect(stored.slice(1)).toEqual([
      ['Typed without a mouse.', false],
      ['A note by keyboard.', true],
    ]);
    // From the inbox, r opens the selected ticket with the reply box focused.
    await page.goto(`${origin}/app/?folder=all`);
    await page.waitForSelector('li[data-ticket-id]');
    await page.keyboard.press('r');
    await page.waitForSelector('#ticket-title');
    await until('the composer focused', async () => (await page.evaluate('document.activeElement?.id')) === 'composer-text');
  }, 90_000);

  it('pages through many tickets: ] and [ move a page, the list never empties while the next loads', async () => {
    for (let i = 0; i < 60; i += 20) {
      await Promise.all(Array.from({ length: 20 }, (_, j) => customerTicket(tp, tp.team, `Bulk ${i + j}`)));
    }
    await page.goto(`${origin}/app/?folder=all`);
    await page.waitForSelector('li[data-ticket-id]');
    const firstPage = await page.$$eval('li[data-ticket-id]', (els) => els.map((e) => e.getAttribute('data-ticket-id')));
    expect(firstPage.length).toBe(50);
    await page.keyboard.press(']');
    await page.waitForURL(/page=2/);
    await until('page 2', async () => (await page.textContent('.pager [aria-current]'))?.startsWith('Page 2'));
    const second = await page.$$eval('li[data-ticket-id]', (els) => els.map((e) => e.getAttribute('data-ticket-id')));
    expect(second.length).toBeGreaterThan(0);
    expect(second.filter((id) => firstPage.includes(id))).toEqual([]);
    await page.keyboard.press('[');
    await until('page 1', async () => (await page.textContent('.pager [aria-current]'))?.startsWith('Page 1'));
  }, 90_000);
});
