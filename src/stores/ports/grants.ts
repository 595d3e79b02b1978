// Direct grants (a subject holds a permission on a resource without a relation), read and written.
import type { Tuple } from '../../engine/ids.js';

export interface GrantReads {
  /** The grants naming this object, as resource then as subject, streamed in batches of at most `batch`. */
  grantsInvolving(object: string, batch: number): AsyncIterable<Tuple[]>;
  presentGrants(texts: string[]): Promise<Set<string>>;
  scanGrants(batch: number, upToRevision?: number): AsyncIterable<Tuple[]>;
  countGrants(): Promise<number>;
}

export interface GrantWrites {
  putGrant(g: Tuple, revision: number): Promise<{ created: boolean }>;
  deleteGrant(g: Tuple): Promise<boolean>;
}

export type GrantStore = GrantReads & GrantWrites;
