// Direct grants (a subject holds a permission on a resource without a relation), read and written.
import type { Tuple } from '../../engine/ids.js';

export interface GrantReads {
  /** Every grant naming this object, as subject or as resource. */
  grantsInvolving(object: string): Promise<Tuple[]>;
  presentGrants(texts: string[]): Promise<Set<string>>;
  scanGrants(batch: number, upToRevision?: number): AsyncIterable<Tuple[]>;
  countGrants(): Promise<number>;
}

export interface GrantWrites {
  putGrant(g: Tuple, revision: number): Promise<{ created: boolean }>;
  deleteGrant(g: Tuple): Promise<boolean>;
}

export type GrantStore = GrantReads & GrantWrites;
