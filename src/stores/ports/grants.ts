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

/** A grant as both adapters store it (a MongoDB document; the twin keeps the same shape). */
export interface GrantDoc {
  _id: string;
  subject: string;
  permission: string;
  resource: string;
  computedTuple: string;
  resourceType: string;
  revision: number;
  createdAt: Date;
}

/** The grant as a tuple, its permission in the relation's place. */
export const grantTuple = (g: GrantDoc): Tuple => ({ subject: g.subject, relation: g.permission, resource: g.resource });
