import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { folderStorage, parseS3Url, s3Storage, type AttachmentStorage } from '../src/storage';

/**
 * The storage contract: the folder store and the S3 store (against s3rver, an S3-compatible server
 * that runs in this process) pass the same tests.
 */
const dirs: string[] = [];
const tempDir = async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'community-storage-'));
  dirs.push(dir);
  return dir;
};
let s3: S3rver;
let s3Url: string;

beforeAll(async () => {
  s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: await tempDir(), configureBuckets: [{ name: 'attachments', configs: [] }] });
  const { port } = (await s3.run()) as AddressInfo;
  s3Url = `http://S3RVER:S3RVER@127.0.0.1:${port}/attachments`;
});
afterAll(async () => {
  await s3?.close();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

const stores: [string, () => Promise<AttachmentStorage>][] = [
  ['folder', async () => folderStorage(await tempDir())],
  ['s3', async () => s3Storage(s3Url)],
];

describe.each(stores)('%s storage', (_name, make) => {
  let store: AttachmentStorage;
  beforeEach(async () => {
    store = await make();
  });
  afterEach(async () => {
    await store.close();
  });

  it('gives back exactly the bytes it was given, under their key', async () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255, 254]);
    await store.put('community/test/team-a/one.png', bytes, 'image/png');
    expect(await store.get('community/test/team-a/one.png')).toEqual(bytes);
    expect(await store.get('community/test/team-b/one.png')).toBeNull();
  });

  it('replaces what a key held', async () => {
    await store.put('k/replace.gif', Buffer.from('first'), 'image/gif');
    await store.put('k/replace.gif', Buffer.from('second'), 'image/gif');
    expect((await store.get('k/replace.gif'))!.toString()).toBe('second');
  });

  it('deletes a key; deleting a missing key is no error', async () => {
    await store.put('k/gone.webp', Buffer.from('x'), 'image/webp');
    await store.delete('k/gone.webp');
    expect(await store.get('k/gone.webp')).toBeNull();
    await expect(store.delete('k/never.webp')).resolves.toBeUndefined();
  });

  it('lists the keys under a prefix', async () => {
    await store.put('community/test/t1/a.png', Buffer.from('a'), 'image/png');
    await store.put('community/test/t1/b.gif', Buffer.from('b'), 'image/gif');
    await store.put('community/test/t2/c.png', Buffer.from('c'), 'image/png');
    expect(await store.list('community/test/t1/')).toEqual(['community/test/t1/a.png', 'community/test/t1/b.gif']);
    expect(await store.list('community/live/')).toEqual([]);
  });

  it('keeps a 5 MB file whole', async () => {
    const big = Buffer.alloc(5 * 1024 * 1024, 7);
    big[big.length - 1] = 1;
    await store.put('k/big.jpg', big, 'image/jpeg');
    expect((await store.get('k/big.jpg'))!.equals(big)).toBe(true);
  });

  it.each(['../escape.png', '/abs.png', 'a/../../b.png', 'a\\b.png', ''])('refuses the unsafe key %j', async (key) => {
    await expect(store.put(key, Buffer.from('x'), 'image/png')).rejects.toThrow(/unsafe storage key/);
    await expect(store.get(key)).rejects.toThrow(/unsafe storage key/);
  });
});

describe('s3 storage on a server without the bucket', () => {
  it('creates the bucket with the first upload', async () => {
    const url = new URL(s3Url);
    url.pathname = '/fresh-bucket';
    const store = s3Storage(url.toString());
    expect(await store.get('k/one.png')).toBeNull();
    expect(await store.list('k/')).toEqual([]);
    await store.delete('k/one.png');
    await store.put('k/one.png', Buffer.from('one'), 'image/png');
    expect((await store.get('k/one.png'))!.toString()).toBe('one');
    await store.close();
  });
});

describe('parseS3Url', () => {
  it('reads endpoint, credentials and bucket', () => {
    expect(parseS3Url('http://minio:minio%2Fsecret@minio:9000/community')).toEqual({
      endpoint: 'http://minio:9000',
      bucket: 'community',
      accessKeyId: 'minio',
      secretAccessKey: 'minio/secret',
    });
  });
  it.each(['http://a:b@host:9000/', 'http://host:9000/bucket', 'http://a:b@host/one/two'])('refuses %s', (url) => {
    expect(() => parseS3Url(url)).toThrow(/S3 URL/);
  });
});
