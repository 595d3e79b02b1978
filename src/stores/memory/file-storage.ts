// File bytes in memory, as the file storage port promises them: the twin of the local and S3 providers for tests.
import { Readable } from 'node:stream';
import { FileMissing, type FileStorage, type FileStorageSettings, type OpenFileStorage } from '../ports/file-storage.js';

/** The keys the local provider takes: a twin that takes more would hide a key the real one refuses. */
const SAFE_KEY = /^[A-Za-z0-9_-]{1,200}$/;

export function memoryFileStorage(name = 'memory'): FileStorage {
  const files = new Map<string, Buffer>();
  const checked = (key: string) => {
    if (!SAFE_KEY.test(key)) throw new Error(`unsafe storage key ${JSON.stringify(key)}`);
    return key;
  };
  return {
    name,
    async put(key, body) {
      checked(key);
      const chunks: Buffer[] = [];
      // Read whole before it shows: a body that fails midway leaves the old bytes (or none) under the key.
      for await (const chunk of body) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
      const bytes = Buffer.concat(chunks);
      files.set(key, bytes);
      return bytes.length;
    },
    async get(key, range) {
      const bytes = files.get(checked(key));
      if (!bytes) throw new FileMissing(key);
      return Readable.from([range ? bytes.subarray(range.start, range.end + 1) : bytes]);
    },
    async delete(key) {
      files.delete(checked(key));
    },
    async probe() {/* memory is always there */},
  };
}

/** Providers by name and settings, as OpenFileStorage builds them: those over the same settings share their bytes. */
export function memoryFileStorages(): OpenFileStorage {
  const built = new Map<string, FileStorage>();
  return (name: string, settings: FileStorageSettings) => {
    const key = name === 's3' ? `s3 ${JSON.stringify(settings.s3)}` : `local ${settings.dir}`;
    let storage = built.get(key);
    if (!storage) built.set(key, storage = memoryFileStorage(name === 's3' ? 's3' : 'local'));
    return storage;
  };
}
