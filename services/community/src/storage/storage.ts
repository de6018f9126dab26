/**
 * Where attachment bytes live (docs/adr/0018): one small interface, two implementations, the same
 * contract tests for both (test/storage.test.ts). Keys are relative paths such as
 * `community/test/<teamId>/<id>.png`.
 */
export interface AttachmentStorage {
  /** Stores the bytes under the key (replacing what was there). */
  put(key: string, bytes: Buffer, contentType: string): Promise<void>;
  /** The bytes, or null when nothing is stored under the key. */
  get(key: string): Promise<Buffer | null>;
  /** Removes the key; removing a missing key is not an error. */
  delete(key: string): Promise<void>;
  /** Every key under the prefix (`community/test/<teamId>/`), sorted. */
  list(prefix: string): Promise<string[]>;
  /** Releases connections. */
  close(): Promise<void>;
}

/** Keys are made by the service, but a key never leaves its root: no `..`, no absolute path, no backslash. */
export function assertSafeKey(key: string): void {
  if (!/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/.test(key) || key.split('/').some((part) => part === '..' || part === '.')) {
    throw new Error(`unsafe storage key: ${key}`);
  }
}

