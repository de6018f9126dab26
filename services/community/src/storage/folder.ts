import { promises as fs } from 'node:fs';
import path from 'node:path';
import { assertSafeKey, type AttachmentStorage } from './storage';

/** Attachments as files under one folder (the embedded default: `DATA_DIR/attachments`). */
export function folderStorage(root: string): AttachmentStorage {
  const fileOf = (key: string) => {
    assertSafeKey(key);
    return path.join(root, ...key.split('/'));
  };
  return {
    async put(key, bytes) {
      const file = fileOf(key);
      await fs.mkdir(path.dirname(file), { recursive: true });
      // Written beside and renamed: a reader never sees half a file.
      const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
      await fs.writeFile(tmp, bytes);
      await fs.rename(tmp, file);
    },
    async get(key) {
      try {
        return await fs.readFile(fileOf(key));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      }
    },
    async delete(key) {
      await fs.rm(fileOf(key), { force: true });
    },
    async list(prefix) {
      const keys: string[] = [];
      const walk = async (dir: string, rel: string) => {
        let entries;
        try {
          entries = await fs.readdir(dir, { withFileTypes: true });
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
          throw err;
        }
        for (const e of entries) {
          const key = rel ? `${rel}/${e.name}` : e.name;
          if (e.isDirectory()) await walk(path.join(dir, e.name), key);
          else if (!e.name.endsWith('.tmp')) keys.push(key);
        }
      };
      await walk(root, '');
      return keys.filter((k) => k.startsWith(prefix)).sort();
    },
    async close() {},
  };
}
