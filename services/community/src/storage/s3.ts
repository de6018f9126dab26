import { CreateBucketCommand, DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, NoSuchKey, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { assertSafeKey, type AttachmentStorage } from './storage';

/** `http(s)://ACCESS_KEY:SECRET@host:port/bucket`: the endpoint, credentials and bucket in one URL. */
export interface S3Location {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
}

export function parseS3Url(url: string): S3Location {
  const u = new URL(url);
  const bucket = u.pathname.replace(/^\/+|\/+$/g, '');
  if (!bucket || bucket.includes('/')) throw new Error('the S3 URL must name one bucket as its path: http://key:secret@host:port/bucket');
  if (!u.username || !u.password) throw new Error('the S3 URL must carry the access key and secret: http://key:secret@host:port/bucket');
  return {
    endpoint: `${u.protocol}//${u.host}`,
    bucket,
    accessKeyId: decodeURIComponent(u.username),
    secretAccessKey: decodeURIComponent(u.password),
  };
}

/** Nothing stored there: the key, or the whole bucket (not made yet). */
const isMissing = (err: unknown) => ['NoSuchKey', 'NoSuchBucket'].includes((err as { name?: string }).name ?? '');

/**
 * Attachments in an S3-compatible bucket (MinIO in compose) through the official AWS SDK v3:
 * path-style addressing (MinIO and most self-hosted servers), checksums only where the API requires them.
 */
export function s3Storage(url: string, opts: { region?: string } = {}): AttachmentStorage {
  const loc = parseS3Url(url);
  const client = new S3Client({
    endpoint: loc.endpoint,
    region: opts.region ?? 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: loc.accessKeyId, secretAccessKey: loc.secretAccessKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const putObject = (key: string, bytes: Buffer, contentType: string) =>
    client.send(new PutObjectCommand({ Bucket: loc.bucket, Key: key, Body: bytes, ContentType: contentType, ContentLength: bytes.length }));
  return {
    async put(key, bytes, contentType) {
      assertSafeKey(key);
      try {
        await putObject(key, bytes, contentType);
      } catch (err) {
        // A fresh server (MinIO in compose) has no bucket yet: the first upload makes it.
        if ((err as { name?: string }).name !== 'NoSuchBucket') throw err;
        await client.send(new CreateBucketCommand({ Bucket: loc.bucket })).catch((e: { name?: string }) => {
          if (e.name !== 'BucketAlreadyOwnedByYou' && e.name !== 'BucketAlreadyExists') throw e;
        });
        await putObject(key, bytes, contentType);
      }
    },
    async get(key) {
      assertSafeKey(key);
      try {
        const out = await client.send(new GetObjectCommand({ Bucket: loc.bucket, Key: key }));
        return Buffer.from(await out.Body!.transformToByteArray());
      } catch (err) {
        if (err instanceof NoSuchKey || isMissing(err)) return null;
        throw err;
      }
    },
    async delete(key) {
      assertSafeKey(key);
      await client.send(new DeleteObjectCommand({ Bucket: loc.bucket, Key: key })).catch((err) => {
        if (!isMissing(err)) throw err;
      });
    },
    async list(prefix) {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: loc.bucket, Prefix: prefix, ContinuationToken: token })).catch((err) => {
          if (isMissing(err)) return { Contents: [], IsTruncated: false, NextContinuationToken: undefined };
          throw err;
        });
        for (const o of page.Contents ?? []) if (o.Key) keys.push(o.Key);
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return keys.sort();
    },
    async close() {
      client.destroy();
    },
  };
}
