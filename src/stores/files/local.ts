// File bytes on local disk: one file per key under a directory, written to a temporary name and renamed when complete.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, access, constants } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { Transform, type Readable } from 'node:stream';
import { FileMissing, type ByteRange, type FileStorage } from '../ports/file-storage.js';

/** Keys are ids the service generates; anything else is refused rather than joined into a path. */
const SAFE_KEY = /^[A-Za-z0-9_-]{1,200}$/;

export function localFileStorage(dir: string): FileStorage {
  const root = resolve(dir);
  const pathOf = (key: string) => {
    if (!SAFE_KEY.test(key)) throw new Error(`unsafe storage key ${JSON.stringify(key)}`);
    return join(root, key);
  };
  const ready = mkdir(join(root, '.partial'), { recursive: true });
  return {
    name: 'local',
    async put(key, body) {
      await ready;
      const final = pathOf(key);
      // A partial write never shows under the key: readers see the old bytes or the new ones.
      const partial = join(root, '.partial', `${key}.${randomUUID()}`);
      let size = 0;
      const count = new Transform({ transform(chunk: Buffer, _e, done) {
        size += chunk.length;
        done(null, chunk);
      } });
      try {
        await pipeline(body, count, createWriteStream(partial));
        await rename(partial, final);
      } catch (e) {
        await rm(partial, { force: true });
        throw e;
      }
      return size;
    },
    async get(key, range?: ByteRange) {
      const path = pathOf(key);
      try {
        await access(path, constants.R_OK);
      } catch {
        throw new FileMissing(key);
      }
      return createReadStream(path, range ? { start: range.start, end: range.end } : {}) as Readable;
    },
    async delete(key) {
      await rm(pathOf(key), { force: true });
    },
    async probe() {
      await ready;
      await access(root, constants.W_OK);
    },
  };
}
