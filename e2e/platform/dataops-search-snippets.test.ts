/** GET /search's snippets through the gateway: the text as written (its case), and an article's Markdown as plain text. */
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { expectOk } from './helpdesk-helpers';

let tp: TestPlatform;
const search = async (q: string, types: string) => expectOk(await tp.api.get(`${tp.teamPath}/search`, { query: { q, types } }), 200);
const post = async (path: string, body: unknown) => expectOk(await tp.api.post(`${tp.teamPath}/${path}`, body), 201);

beforeAll(async () => {
  tp = await startTestPlatform();
}, 60_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

describe('search snippets', () => {
  it('a ticket\'s snippet keeps the case it was written in, and stays within the message that matched', async () => {
    const t = await post('tickets', {
      title: 'Billing question',
      customerName: 'Grace Hopper',
      messages: [
        { sender: 'customer', content: 'Hello! My Invoice INV-2041 shows the WRONG amount. Sorry about that, I should have said so Earlier.' },
        { sender: 'agent', content: 'Thanks Grace, looking into the Glockenspiel tariff now.' },
      ],
    });
    const [hit] = (await search('sorry', 'tickets')).results;
    expect(hit).toMatchObject({ id: t.id, matchedIn: 'body' });
    expect(hit.snippet).toContain('Invoice INV-2041 shows the WRONG amount. Sorry about that, I should have said so Earlier.');
    // The second message matched: its text only, not the end of the first one.
    const [second] = (await search('glockenspiel', 'tickets')).results;
    expect(second.snippet).toBe('Thanks Grace, looking into the Glockenspiel tariff now.');
    // The customer's name is searched too, and shown as written.
    expect((await search('hopper', 'tickets')).results[0].snippet).toBe('Grace Hopper');
  });

  it('an article\'s snippet is its Markdown as plain text: no #, *, backticks, link targets or tags', async () => {
    const a = await post('articles', {
      title: 'Printer help',
      content:
        '# Resetting the **Quasarjet**\n\nHold the *Reset* button for `10 s`, then see [the manual](https://example.com/quasarjet-manual).\n\n' +
        '- Keep the <b>Quasarjet</b> plugged in\n',
    });
    const [hit] = (await search('quasarjet', 'articles')).results;
    expect(hit).toMatchObject({ id: a.id, matchedIn: 'body' });
    // About 60 characters on either side of the first word found, on one line.
    expect(hit.snippet).toBe('Resetting the Quasarjet Hold the Reset button for 10 s, then see the manua…');
    expect(hit.snippet).not.toMatch(/[#*`<>[\]]|https:/);
  });
});
