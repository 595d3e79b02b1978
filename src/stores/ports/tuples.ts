// Relation tuples in the source of truth, split into what readers and what writers need.
import type { Tuple } from '../../engine/ids.js';

export interface RelationRecord {
  _id: string;
  subject: string;
  relation: string;
  resource: string;
  computedTuple: string;
  subjectType: string;
  subjectId: string;
  resourceType: string;
  resourceId: string;
  createdAt: Date;
  revision: number;
}

export type TupleMatch = ({ resource: string } | { subject: string }) & { relation?: string; subjectType?: string };

export interface TupleReads {
  findTuple(id: string): Promise<RelationRecord | null>;
  /** The records of these tuple texts, in their order; texts not stored are left out. One `_id` lookup each. */
  findTuples(texts: string[]): Promise<RelationRecord[]>;
  /**
   * The stored tuples that match, streamed in batches of at most `batch` (never all held at once): on a resource or from
   * a subject, optionally of one relation or subject type; with `bySubject`, in subject order.
   */
  tuplesMatching(match: TupleMatch, batch: number, opts?: { bySubject?: boolean }): AsyncIterable<RelationRecord[]>;
  /** Which of these tuple texts are stored now (by `_id`, so one indexed lookup per batch). */
  presentTuples(texts: string[]): Promise<Set<string>>;
  /** Every tuple (those written at or below `upToRevision` when given), in batches of `batch`, in no particular order. */
  scanTuples(batch: number, upToRevision?: number): AsyncIterable<Tuple[]>;
  countTuples(): Promise<number>;
}

export interface TupleWrites {
  /** Unordered bulk insert, idempotent per tuple: the records (new or existing) and which were created now. */
  insertTuples(tuples: Tuple[], revision: number): Promise<{ records: RelationRecord[]; created: Set<string> }>;
  deleteTuple(id: string): Promise<RelationRecord | null>;
  /** Deletes these tuples (as text) in one bulk write of `_id` deletes; how many were there. */
  deleteTupleTexts(texts: string[]): Promise<number>;
}
