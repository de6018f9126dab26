import path from 'node:path';
import { folderStorage } from './folder';
import { s3Storage } from './s3';
import type { AttachmentStorage } from './storage';

export type { AttachmentStorage } from './storage';
export { assertSafeKey } from './storage';
export { folderStorage } from './folder';
export { s3Storage, parseS3Url, type S3Location } from './s3';

/** The store the configuration names: S3-compatible when its URL is set, else a folder under the data directory. */
export function attachmentStorage(opts: { s3Url?: string; s3Region?: string; dataDir: string }): AttachmentStorage {
  return opts.s3Url ? s3Storage(opts.s3Url, { region: opts.s3Region }) : folderStorage(path.join(opts.dataDir, 'attachments'));
}
