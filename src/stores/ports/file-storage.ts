// Where file bytes live (local disk, an S3-compatible bucket): written from a stream, read whole or as a byte range.
import type { Readable } from 'node:stream';

export interface ByteRange { start: number; end: number } // both inclusive, as in HTTP

export interface FileStorage {
  /** The provider's name, kept on each file record so a file is read back from where it was written. */
  readonly name: string;
  /** Writes `body` under `key`, replacing what was there; the number of bytes written. Nothing is left behind on failure. */
  put(key: string, body: Readable): Promise<number>;
  /** The bytes under `key` (or a range of them); throws FileMissing when there are none. */
  get(key: string, range?: ByteRange): Promise<Readable>;
  /** Removes `key`; a key that is already gone is fine. */
  delete(key: string): Promise<void>;
  /** Throws when the provider cannot be used (for /ready). */
  probe(): Promise<void>;
}

export class FileMissing extends Error {
  constructor(key: string) { super(`no stored bytes under ${key}`); }
}
