/**
 * POST /ai through the gateway, with both providers: the built-in local one, and an OpenAI-compatible
 * server (a local fake of /v1/chat/completions) reached through the official SDK; AI settings; bad inputs.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { TicketingEvents } from './automations-helpers';
import { eventually, expectError, expectOk, ISO } from './helpdesk-helpers';
import { createArticle } from './knowledge-helpers';
import { addMember, WorkspaceEvents } from './workspace-helpers';

/** The fake chat-completions server: answers as `mode` says and records every request body. */
class FakeChatServer {
  mode: 'ok' | 'error' | 'hang' = 'ok';
  content = 'A fine answer.';
  readonly requests: any[] = [];
  private server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      this.requests.push({ url: req.url, body: JSON.parse(body || '{}') });
      if (this.mode === 'hang') return; // never answers: the client's timeout must end it
      if (this.mode === 'error') {
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'model crashed', type: 'server_error' } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'fake',
          choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: this.content } }],
        }),
      );
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

let tp: TestPlatform;
let log: TicketingEvents;
const AI = () => `${tp.teamPath}/ai`;
const ai = async (body: Record<string, unknown>, platform = tp) => expectOk(await platform.api.post(`${platform.teamPath}/ai`, body), 200);

beforeAll(async () => {
  tp = await startTestPlatform();
  log = await TicketingEvents.start(tp);
}, 60_000);
afterAll(async () => tp?.stop(), 60_000);

async function ticketWithThread(platform = tp) {
  const t = expectOk(
    await platform.api.post(`${platform.teamPath}/tickets`, {
      title: 'Cannot reset my password',
      customerName: 'Ada',
      messages: [
        { sender: 'customer', content: 'The password reset email never arrives. I tried three times today.' },
        { sender: 'agent', content: 'Secret: customer is on the legacy plan', isInternal: true },
      ],
    }),
    201,
  );
  return t;
}

describe('the local provider', () => {
  it('auto-tag suggests the team\'s existing tags the thread mentions, without changing the ticket', async () => {
    for (const tags of [['password'], ['password', 'billing'], ['shipping']]) expectOk(await tp.api.post(`${tp.teamPath}/tickets`, { title: 'seed', tags }), 201);
    const t = await ticketWithThread();
    expect(await ai({ action: 'auto-tag', ticketId: t.id })).toEqual({ object: 'ai_result', action: 'auto-tag', provider: 'local', result: { tags: ['password'] } });
    expect(expectOk(await tp.api.get(`${tp.teamPath}/tickets/${t.id}`), 200)).toMatchObject({ tags: [], updatedAt: t.updatedAt });
  });

  it('summarize is extractive and leaves internal notes out unless the team allows them', async () => {
    const t = await ticketWithThread();
    const plain = await ai({ action: 'summarize', ticketId: t.id });
    expect(plain).toMatchObject({ object: 'ai_result', action: 'summarize', provider: 'local' });
    expect(plain.result.summary).toMatch(/^Cannot reset my password: /);
    expect(plain.result.summary).toContain('The password reset email never arrives.');
    expect(plain.result.summary).not.toContain('legacy plan');

    expect(expectOk(await tp.api.get(`${AI()}/settings`), 200)).toEqual({ object: 'ai_settings', includeInternalNotes: false, updatedAt: null });
    const on = expectOk(await tp.api.patch(`${AI()}/settings`, { includeInternalNotes: true }), 200);
    expect(on).toEqual({ object: 'ai_settings', includeInternalNotes: true, updatedAt: expect.stringMatching(ISO) });
    expect((await ai({ action: 'summarize', ticketId: t.id })).result.summary).toContain('legacy plan');
    // The live partition has its own settings.
    expect(expectOk(await tp.api.get(`${AI()}/settings`, { key: tp.team.sk_live }), 200)).toMatchObject({ includeInternalNotes: false });
    expectOk(await tp.api.patch(`${AI()}/settings`, { includeInternalNotes: false }), 200);
    await log.settle(tp);
    expect(log.ofType('ai_settings.updated').map((e) => [e.data.changes, e.data.previous, e.mode])).toEqual([
      [['includeInternalNotes'], { includeInternalNotes: false }, 'test'],
      [['includeInternalNotes'], { includeInternalNotes: true }, 'test'],
    ]);
  });

  it('suggest-reply is built from the best-matching published article, which counts as a use', async () => {
    const article = await createArticle(tp, { title: 'Password reset email not arriving', content: 'Check your spam folder first.\n\nMore details.', status: 'published' });
    await createArticle(tp, { title: 'Password reset drafts', content: 'Draft only', status: 'draft' });
    await createArticle(tp, { title: 'Shipping times', content: 'Two days.', status: 'published' });
    const t = await ticketWithThread();
    const res = await eventually('ticketing knows the article', async () => {
      const r = await ai({ action: 'suggest-reply', ticketId: t.id });
      return r.result.articleIds.length ? r : null;
    });
    expect(res).toEqual({
      object: 'ai_result', action: 'suggest-reply', provider: 'local',
      result: { suggestion: expect.stringContaining('Check your spam folder first.'), articleIds: [article.id] },
    });
    expect(res.result.suggestion).toMatch(/^Hi Ada,/);
    const used = await eventually('the use is counted', async () => {
      const a = expectOk(await tp.api.get(`${tp.teamPath}/articles/${article.id}`), 200);
      return a.useCount >= 1 ? a : null;
    });
    expect(used.useCount).toBe(1);
    expect(log.ofType('ai.reply_suggested').map((e) => e.data)).toEqual([{ ticketId: t.id, articleIds: [article.id] }]);
  });

  it('improve cleans up the text', async () => {
    expect(await ai({ action: 'improve', text: '  hello  there!!!  i think   this is fixed now ' })).toEqual({
      object: 'ai_result', action: 'improve', provider: 'local', result: { text: 'Hello there! I think this is fixed now.' },
    });
  });
});

describe('POST /ai: bad inputs, other teams and partitions, keys and permissions', () => {
  it('answers each with the documented error', async () => {
    const t = await ticketWithThread();
    const post = (body: unknown, key?: string) => tp.api.post(AI(), body, key ? { key } : undefined);
    expectError(await post({}), 400, 'invalid_request_error', 'parameter_missing', 'action');
    expectError(await post({ action: 'translate', ticketId: t.id }), 400, 'invalid_request_error', 'parameter_invalid', 'action');
    expectError(await post({ action: 'summarize' }), 400, 'invalid_request_error', 'parameter_missing', 'ticketId');
    expectError(await post({ action: 'improve' }), 400, 'invalid_request_error', 'parameter_missing', 'text');
    expectError(await post({ action: 'improve', text: '   ' }), 400, 'invalid_request_error', 'parameter_invalid', 'text');
    expectError(await post({ action: 'improve', text: 5 }), 400, 'invalid_request_error', 'parameter_invalid', 'text');
    expectError(await post({ action: 'summarize', ticketId: 'cus_abcdefghijklmnopqrstuvwx' }), 400, 'invalid_request_error', 'parameter_invalid', 'ticketId');
    expectError(await post({ action: 'summarize', ticketId: t.id, tone: 'pirate' }), 400, 'invalid_request_error', 'parameter_invalid', 'tone');
    expectError(await tp.api.patch(`${AI()}/settings`, { includeInternalNotes: 'yes' }), 400, 'invalid_request_error', 'parameter_invalid', 'includeInternalNotes');
    expectError(await post({ action: 'summarize', ticketId: t.id }, tp.team.sk_live), 404, 'not_found_error', 'resource_not_found');
    expectError(await tp.api.post(`/teams/${tp.otherTeam.teamId}/ai`, { action: 'summarize', ticketId: t.id }, { key: tp.otherTeam.sk_test }), 404, 'not_found_error', 'resource_not_found');
    expectError(await post({ action: 'improve', text: 'x' }, tp.team.pk_test), 403, 'authorization_error', 'publishable_key_write');
    const spectator = await addMember(tp, await WorkspaceEvents.start(tp), tp.team, 'spectator');
    expectError(await post({ action: 'improve', text: 'x' }, spectator.key), 403, 'authorization_error', 'insufficient_permissions');
    // An agent may use the AI but not change the team's AI settings.
    const agent = await addMember(tp, await WorkspaceEvents.start(tp), tp.team, 'agent');
    expect(expectOk(await post({ action: 'improve', text: 'ok' }, agent.key), 200)).toMatchObject({ result: { text: 'Ok.' } });
    expectError(await tp.api.patch(`${AI()}/settings`, { includeInternalNotes: true }, { key: agent.key }), 403, 'authorization_error', 'insufficient_permissions');
    expect(expectOk(await tp.api.get(`${AI()}/settings`), 200)).toMatchObject({ includeInternalNotes: false });
  }, 60_000);
});

describe('an OpenAI-compatible provider (AI_BASE_URL)', () => {
  let fake: FakeChatServer;
  let tp2: TestPlatform;

  beforeAll(async () => {
    fake = new FakeChatServer();
    const baseUrl = await fake.start();
    tp2 = await startTestPlatform({ ai: { openai: { baseUrl, apiKey: 'sk-fake', model: 'fake-model', timeoutMs: 500 } } });
  }, 60_000);
  afterAll(async () => {
    await tp2?.stop();
    await fake?.stop();
  }, 60_000);

  it('answers with the server\'s completion; internal notes are not sent', async () => {
    const t = await ticketWithThread(tp2);
    fake.mode = 'ok';
    fake.content = 'The customer cannot receive password reset emails.';
    expect(await ai({ action: 'summarize', ticketId: t.id }, tp2)).toEqual({
      object: 'ai_result', action: 'summarize', provider: 'openai', result: { summary: 'The customer cannot receive password reset emails.' },
    });
    const sent = fake.requests.at(-1);
    expect(sent.url).toBe('/v1/chat/completions');
    expect(sent.body.model).toBe('fake-model');
    const prompt = JSON.stringify(sent.body.messages);
    expect(prompt).toContain('The password reset email never arrives.');
    expect(prompt).not.toContain('legacy plan');
  });

  it('auto-tag keeps only the team\'s existing tags from the answer; a non-list answer is a 502', async () => {
    expectOk(await tp2.api.post(`${tp2.teamPath}/tickets`, { title: 'seed', tags: ['password'] }), 201);
    const t = await ticketWithThread(tp2);
    fake.content = '["Password", "made-up"]';
    expect((await ai({ action: 'auto-tag', ticketId: t.id }, tp2)).result).toEqual({ tags: ['password'] });
    fake.content = 'password, billing';
    expectError(await tp2.api.post(`${tp2.teamPath}/ai`, { action: 'auto-tag', ticketId: t.id }), 502, 'api_error', 'ai_provider_error');
  });

  it('a provider error is a 502 and a provider that does not answer in time a 503, never a hang', async () => {
    fake.mode = 'error';
    expectError(await tp2.api.post(`${tp2.teamPath}/ai`, { action: 'improve', text: 'fix me' }), 502, 'api_error', 'ai_provider_error');
    fake.mode = 'hang';
    expectError(await tp2.api.post(`${tp2.teamPath}/ai`, { action: 'improve', text: 'fix me' }), 503, 'api_error', 'service_unavailable');
    fake.mode = 'ok';
    fake.content = 'Fixed.';
    expect((await ai({ action: 'improve', text: 'fix me' }, tp2)).result).toEqual({ text: 'Fixed.' });
  });
});
