import { startTestPlatform, type TestPlatform } from '../support/platform';
import { CommunityEvents, communityOf, FILES, MB5, pngOfSize, UUID } from './community-helpers';
import { expectError, expectOk } from './helpdesk-helpers';

let tp: TestPlatform;
let log: CommunityEvents;
let c: ReturnType<typeof communityOf>;
let topic: any;

beforeAll(async () => {
  tp = await startTestPlatform();
  log = await CommunityEvents.start(tp);
  c = communityOf(tp, await tp.createTeam());
  topic = await c.topic({ name: 'Screenshots' });
}, 60_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

const upload = (bytes: Buffer, filename: string, key = c.keys.sk_test) => c.post('/attachments', { filename, content: bytes.toString('base64') }, key);

describe('community attachments through the gateway', () => {
  it.each([
    ['png', 'image/png', 'png'],
    ['jpeg', 'image/jpeg', 'jpg'],
    ['gif', 'image/gif', 'gif'],
    ['webp', 'image/webp', 'webp'],
  ] as const)('uploads a %s judged by its bytes (whatever its name), stores it and reads it back', async (kind, type, ext) => {
    const res = await upload(FILES[kind], 'photo.bin');
    const a = expectOk(res, 201);
    expect(a).toEqual({ id: expect.stringMatching(UUID), filename: 'photo.bin', content_type: type, size_bytes: FILES[kind].length, storage_path: `community/test/${c.keys.teamId}/${a.id}.${ext}` });
    expect(await c.stored()).toContain(a.storage_path);
    const [e] = await log.waitForRequest(res.body.meta.requestId, 1);
    expect(e).toMatchObject({ type: 'community.attachment.uploaded', data: { attachment: a } });
    const back = expectOk(await c.get(`/attachments/${a.id}`), 200);
    expect(back).toEqual({ ...a, content: FILES[kind].toString('base64') });
  });

  it('an image of exactly 5 MB is accepted', async () => {
    const a = await c.upload(pngOfSize(MB5), 'big.png');
    expect(a.size_bytes).toBe(MB5);
  }, 60_000);

  it.each([
    ['a renamed .exe', () => FILES.exe, 'setup.png'],
    ['an SVG', () => FILES.svg, 'logo.svg'],
    ['text', () => FILES.text, 'notes.jpg'],
    ['an image of 5 MB + 1 byte', () => pngOfSize(MB5 + 1), 'huge.png'],
  ])('refuses %s: 400 param content, nothing stored, nothing emitted', async (_n, bytes, filename) => {
    const before = await c.stored();
    const res = await upload(bytes(), filename);
    expectError(res, 400, 'invalid_request_error', 'parameter_invalid', 'content');
    await log.settle(tp);
    expect(log.ofRequest(res.body.error.request_id)).toEqual([]);
    expect(await c.stored()).toEqual(before);
  }, 60_000);

  it('the upload alone takes bodies over 1 MB (up to 7.2 MB); other operations keep the 1 MB limit (413)', async () => {
    const mb2 = pngOfSize(2 * 1024 * 1024);
    expect((await c.upload(mb2, 'two.png')).size_bytes).toBe(mb2.length);
    const tooBig = await upload(pngOfSize(5.5 * 1024 * 1024), 'over.png');
    expect(tooBig.status).toBe(413);
    const post = await c.post('/posts', { title: 'Huge', topicId: topic.id, body: 'x'.repeat(1024 * 1024) });
    expect(post.status).toBe(413);
    expect(post.body.error.code).toBe('parameter_invalid');
  }, 60_000);

  it.each([
    ['missing filename', { content: FILES.png.toString('base64') }, 'parameter_missing', 'filename'],
    ['missing content', { filename: 'a.png' }, 'parameter_missing', 'content'],
    ['content not base64', { filename: 'a.png', content: 'not base64!' }, 'parameter_invalid', 'content'],
    ['content of the wrong type', { filename: 'a.png', content: 42 }, 'parameter_invalid', 'content'],
    ['a filename with a slash', { filename: '../a.png', content: FILES.png.toString('base64') }, 'parameter_invalid', 'filename'],
    ['a declared content type (judged by content only)', { filename: 'a.png', content: FILES.png.toString('base64'), content_type: 'image/png' }, 'parameter_invalid', 'content_type'],
  ])('refuses %s; nothing stored', async (_n, body, code, param) => {
    const before = await c.stored();
    expectError(await c.post('/attachments', body), 400, 'invalid_request_error', code, param);
    expect(await c.stored()).toEqual(before);
  });

  it('publishable keys upload nothing; uploads of another team or partition are 404', async () => {
    expectError(await upload(FILES.png, 'a.png', c.keys.pk_test), 403, 'authorization_error', 'publishable_key_write');
    const a = await c.upload(FILES.png);
    expectError(await c.get(`/attachments/${a.id}`, c.keys.sk_live), 404, 'not_found_error', 'resource_not_found');
    expectError(await tp.api.get(`/teams/${tp.otherTeam.teamId}/community/attachments/${a.id}`, { key: tp.otherTeam.sk_test }), 404, 'not_found_error', 'resource_not_found');
    // not attached to a public post yet: publishable keys cannot read it
    expectError(await c.get(`/attachments/${a.id}`, c.keys.pk_test), 404, 'not_found_error', 'resource_not_found');
  });

  it('a post lists up to 10 uploads; an 11th, an unknown path, one listed twice or one of another post are 400 and nothing is written', async () => {
    const ten = await Promise.all(Array.from({ length: 11 }, (_, i) => c.upload(FILES.gif, `g${i}.gif`)));
    const eleven = await c.post('/posts', { title: 'Eleven', topicId: topic.id, attachments: ten });
    expectError(eleven, 400, 'invalid_request_error', 'parameter_invalid', 'attachments');
    const post = await c.postIn(topic.id, { attachments: ten.slice(0, 10) });
    expect(post.attachments).toEqual(ten.slice(0, 10));
    // publishable keys may now read them: the post is public
    expectOk(await c.get(`/attachments/${ten[0].id}`, c.keys.pk_test), 200);
    const refusals: [unknown, string][] = [
      [[{ storage_path: 'community/test/unknown.png' }], 'attachments.0'],
      [[ten[10], ten[10]], 'attachments.1'],
      [[ten[0]], 'attachments.0'],
      [[{ ...ten[10], size_bytes: 1 }], 'attachments.0.size_bytes'],
    ];
    for (const [attachments, param] of refusals) {
      expectError(await c.post('/posts', { title: 'Refused', topicId: topic.id, attachments }), 400, 'invalid_request_error', 'parameter_invalid', param);
    }
    expect(expectOk(await c.get('/posts', c.keys.sk_test, { pageSize: '100' }), 200).map((p: any) => p.title)).not.toContain('Refused');
    // the 11th is still free to use
    expect((await c.postIn(topic.id, { attachments: [ten[10]] })).attachments).toEqual([ten[10]]);
  }, 60_000);

  it('PATCH attachments replaces the list and deletes the removed files from storage', async () => {
    const [a, b, d] = await Promise.all([c.upload(FILES.png, 'a.png'), c.upload(FILES.jpeg, 'b.jpg'), c.upload(FILES.webp, 'd.webp')]);
    const post = await c.postIn(topic.id, { attachments: [a, b] });
    const res = await c.patch(`/posts/${post.id}`, { attachments: [{ storage_path: b.storage_path }, d] });
    expect(expectOk(res, 200).attachments).toEqual([b, d]);
    const stored = await c.stored();
    expect(stored).not.toContain(a.storage_path);
    expect(stored).toEqual(expect.arrayContaining([b.storage_path, d.storage_path]));
    expectError(await c.get(`/attachments/${a.id}`), 404, 'not_found_error', 'resource_not_found');
    const [e] = await log.waitForRequest(res.body.meta.requestId, 1);
    expect(e).toMatchObject({ type: 'community.post.updated', data: { changes: ['attachments'] } });
  });

  it('comments take up to 5 attachments; deleting the post deletes every file of the post and its comments', async () => {
    const files = await Promise.all(Array.from({ length: 7 }, (_, i) => c.upload(FILES.png, `c${i}.png`)));
    const post = await c.postIn(topic.id, { attachments: [files[0]] });
    expectError(await c.post(`/posts/${post.id}/comments`, { body: 'six', attachments: files.slice(1, 7) }), 400, 'invalid_request_error', 'parameter_invalid', 'attachments');
    const comment = expectOk(await c.post(`/posts/${post.id}/comments`, { body: 'five', attachments: files.slice(1, 6) }), 201);
    expect(comment.attachments).toEqual(files.slice(1, 6));
    expectOk(await c.delete(`/posts/${post.id}`), 200);
    const stored = await c.stored();
    for (const f of files.slice(0, 6)) expect(stored).not.toContain(f.storage_path);
    expect(stored).toContain(files[6].storage_path);
  });

  it('members_only posts keep their attachments from publishable keys', async () => {
    const a = await c.upload(FILES.png);
    await c.postIn(topic.id, { visibility: 'members_only', attachments: [a] });
    expectError(await c.get(`/attachments/${a.id}`, c.keys.pk_test), 404, 'not_found_error', 'resource_not_found');
    expectOk(await c.get(`/attachments/${a.id}`), 200);
  });
});
