import type { EventEnvelope, Partition } from '@helpdesk/contracts';
import type { TestPlatform } from '../support/platform';
import { eventually, expectOk } from './helpdesk-helpers';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const POST_KEYS = [
  'attachments', 'author', 'body', 'comment_count', 'created_at', 'custom_fields', 'id', 'is_locked', 'is_pinned', 'slug', 'status',
  'title', 'topic_id', 'updated_at', 'visibility', 'vote_count',
];
export const TOPIC_KEYS = ['createdAt', 'customFieldConfig', 'description', 'id', 'name', 'postCount', 'slug', 'updatedAt'];
export const COMMENT_KEYS = ['attachments', 'author', 'body', 'created_at', 'id', 'is_official_answer', 'post_id', 'updated_at'];
export const MB5 = 5 * 1024 * 1024;

/** Images and impostors, as bytes: each starts with the signature the type is judged by. */
export const FILES = {
  png: Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082', 'hex'),
  jpeg: Buffer.from('ffd8ffe000104a46494600010100000100010000ffd9', 'hex'),
  gif: Buffer.from('474946383961010001000000002c00000000010001000002024401003b', 'hex'),
  webp: Buffer.concat([Buffer.from('RIFF'), Buffer.from([26, 0, 0, 0]), Buffer.from('WEBPVP8L'), Buffer.from([13, 0, 0, 0, 0x2f, 0, 0, 0, 0x10, 7, 0x10, 0x11, 0x11, 0x88, 0x88, 0xfe, 7, 0])]),
  exe: Buffer.concat([Buffer.from('MZ'), Buffer.from([0x90, 0, 3, 0, 0, 0, 4, 0, 0, 0, 0xff, 0xff]), Buffer.alloc(64)]),
  svg: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"><script>alert(1)</script></svg>'),
  text: Buffer.from('just some text, not an image'),
};

/** A PNG of exactly `size` bytes: the signature, then padding. */
export const pngOfSize = (size: number) => Buffer.concat([FILES.png, Buffer.alloc(size - FILES.png.length, 0)]);

/** Collects every event the community service publishes, for the file's lifetime. */
export class CommunityEvents {
  readonly events: EventEnvelope<any>[] = [];

  static async start(tp: TestPlatform): Promise<CommunityEvents> {
    const log = new CommunityEvents();
    await tp.observe('community', ['community.#'], async (e: EventEnvelope) => {
      log.events.push(e as EventEnvelope<any>);
    });
    return log;
  }

  ofRequest(requestId: string): EventEnvelope<any>[] {
    return this.events.filter((e) => e.requestId === requestId);
  }

  /** Polls (never a fixed sleep) until `count` events match; then returns them. */
  waitFor(match: (e: EventEnvelope<any>) => boolean, count: number, what: string): Promise<EventEnvelope<any>[]> {
    return eventually(`${count} events (${what})`, () => {
      const found = this.events.filter(match);
      return found.length >= count && found;
    });
  }

  waitForRequest(requestId: string, count: number): Promise<EventEnvelope<any>[]> {
    return this.waitFor((e) => e.requestId === requestId, count, `request ${requestId}`);
  }

  /**
   * Proves nothing more is coming for earlier requests: a marker write (a topic, in the first team's
   * live partition, outside what the tests count) and its event. The outbox publishes in commit order.
   */
  async settle(tp: TestPlatform): Promise<void> {
    const res = await tp.api.post(`${tp.teamPath}/community/topics`, { name: `marker ${Math.random().toString(36).slice(2)}` }, { key: tp.team.sk_live });
    expectOk(res, 201);
    await tp.platform.community.relay.drain();
    await this.waitForRequest(res.body.meta.requestId, 1);
  }
}

/** A team's paths and keys, and calls on them. */
export function communityOf(tp: TestPlatform, keys = tp.team) {
  const path = `/teams/${keys.teamId}/community`;
  return {
    keys,
    path,
    get: (p: string, key = keys.sk_test, query?: Record<string, string>) => tp.api.get(`${path}${p}`, { key, query }),
    post: (p: string, body: unknown, key = keys.sk_test) => tp.api.post(`${path}${p}`, body, { key }),
    patch: (p: string, body: unknown, key = keys.sk_test) => tp.api.patch(`${path}${p}`, body, { key }),
    delete: (p: string, key = keys.sk_test, query?: Record<string, string>) => tp.api.delete(`${path}${p}`, { key, query }),
    async topic(body: Record<string, unknown> = {}, key = keys.sk_test): Promise<any> {
      return expectOk(await tp.api.post(`${path}/topics`, { name: `Topic ${Math.random().toString(36).slice(2, 8)}`, ...body }, { key }), 201);
    },
    async postIn(topicId: string, body: Record<string, unknown> = {}, key = keys.sk_test): Promise<any> {
      return expectOk(await tp.api.post(`${path}/posts`, { title: 'A question', topicId, ...body }, { key }), 201);
    },
    async upload(bytes: Buffer, filename = 'image.png', key = keys.sk_test): Promise<any> {
      return expectOk(await tp.api.post(`${path}/attachments`, { filename, content: bytes.toString('base64') }, { key }), 201);
    },
    /** What the attachment storage holds for this team and partition. */
    stored: (mode: Partition = 'test') => tp.platform.community.storage.list(`community/${mode}/${keys.teamId}/`),
  };
}
