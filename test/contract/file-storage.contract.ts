// The file storage port's contract: what every provider (local disk, S3, the in-memory twin) must do, as describe/it blocks.
import { randomBytes, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { FileMissing, type FileStorage } from '../../src/stores/ports/file-storage.js';

export interface FileStorageUnderTest {
  store: FileStorage;
  cleanup(): Promise<void>;
}

const key = () => `k-${randomUUID()}`;
const body = (bytes: Buffer) => Readable.from([bytes]);
const read = async (r: Readable): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const c of r) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks);
};
/** A body that sends `first` then fails, as an upload cut off midway does. */
const failing = (first: Buffer) =>
  Readable.from((async function*() {
    yield first;
    throw new Error('the client went away');
  })());

export function fileStorageContract(name: string, make: () => Promise<FileStorageUnderTest>): void {
  describe(`file storage contract: ${name}`, () => {
    let store: FileStorage;
    let cleanup: () => Promise<void>;
    beforeAll(async () => {
      ({ store, cleanup } = await make());
    });
    afterAll(async () => {
      await cleanup?.();
    });

    it('reads back what was written, and counts its bytes', async () => {
      const k = key();
      const bytes = Buffer.from(Array.from({ length: 256 * 3 }, (_, i) => i % 256));
      expect(await store.put(k, body(bytes))).toBe(bytes.length);
      expect((await read(await store.get(k))).equals(bytes)).toBe(true);
    });

    it('keeps a body of many chunks whole and in order', async () => {
      const k = key();
      const parts = Array.from({ length: 40 }, () => randomBytes(32 * 1024));
      expect(await store.put(k, Readable.from(parts))).toBe(40 * 32 * 1024);
      expect((await read(await store.get(k))).equals(Buffer.concat(parts))).toBe(true);
    });

    it('keeps an empty body as zero bytes, not as nothing', async () => {
      const k = key();
      expect(await store.put(k, body(Buffer.alloc(0)))).toBe(0);
      expect((await read(await store.get(k))).length).toBe(0);
    });

    it('replaces what was under the key', async () => {
      const k = key();
      await store.put(k, body(Buffer.from('first version, longer')));
      await store.put(k, body(Buffer.from('second')));
      expect((await read(await store.get(k))).toString()).toBe('second');
    });

    it('reads an inclusive byte range: from the start, in the middle, to the last byte', async () => {
      const k = key();
      await store.put(k, body(Buffer.from('0123456789')));
      expect((await read(await store.get(k, { start: 0, end: 0 }))).toString()).toBe('0');
      expect((await read(await store.get(k, { start: 3, end: 6 }))).toString()).toBe('3456');
      expect((await read(await store.get(k, { start: 7, end: 9 }))).toString()).toBe('789');
    });

    it('throws FileMissing for a key never written', async () => {
      await expect(store.get(key())).rejects.toBeInstanceOf(FileMissing);
      await expect(store.get(key(), { start: 0, end: 1 })).rejects.toBeInstanceOf(FileMissing);
    });

    it('deletes: the key is missing after, and deleting it again is fine', async () => {
      const k = key();
      await store.put(k, body(Buffer.from('gone soon')));
      await store.delete(k);
      await expect(store.get(k)).rejects.toBeInstanceOf(FileMissing);
      await expect(store.delete(k)).resolves.toBeUndefined();
      await expect(store.delete(key())).resolves.toBeUndefined();
    });

    it('deletes only its key', async () => {
      const [a, b] = [key(), key()];
      await store.put(a, body(Buffer.from('a')));
      await store.put(b, body(Buffer.from('b')));
      await store.delete(a);
      expect((await read(await store.get(b))).toString()).toBe('b');
    });

    it('leaves nothing under a new key when the body fails midway', async () => {
      const k = key();
      await expect(store.put(k, failing(randomBytes(1024)))).rejects.toThrow('the client went away');
      await expect(store.get(k)).rejects.toBeInstanceOf(FileMissing);
    });

    it('keeps the old bytes when a replacing body fails midway', async () => {
      const k = key();
      await store.put(k, body(Buffer.from('the old bytes')));
      await expect(store.put(k, failing(randomBytes(1024)))).rejects.toThrow('the client went away');
      expect((await read(await store.get(k))).toString()).toBe('the old bytes');
    });

    it('answers the probe while usable', async () => {
      await expect(store.probe()).resolves.toBeUndefined();
    });
  });
}
