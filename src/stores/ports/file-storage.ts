// Where file bytes live (local disk, an S3-compatible bucket): written from a stream, read whole or as a byte range.
import type { Readable } from 'node:stream';

export interface ByteRange {
  start: number;
  end: number;
} // both inclusive, as in HTTP

/**
 * Keys are ids the service generates ([A-Za-z0-9_-], at most 200 characters); a provider may refuse any other.
 */
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
  constructor(key: string) {
    super(`no stored bytes under ${key}`);
  }
}

/** Where the providers keep their bytes, as the `storage` module's config says. */
export interface FileStorageSettings {
  /** The local provider's directory. */
  dir: string;
  /** The s3 provider's bucket; `endpoint` an S3-compatible server's URL, AWS itself when absent. */
  s3: { bucket: string; endpoint?: string; region: string; forcePathStyle: boolean };
}

/**
 * Builds the provider named `name` (`local`, `s3`; any other name is the local one) over these settings. Each call
 * builds a new one: the caller keeps those it uses. Two built over the same settings see the same bytes.
 */
export type OpenFileStorage = (name: string, settings: FileStorageSettings) => FileStorage;
