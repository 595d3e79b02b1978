// The tuple graph projected from the source of truth: TUPLE and GRANT edges, walked for index work and explanations.
import type { Tuple } from '../../engine/ids.js';

/** One tuple or grant edge of the projection, with whether MongoDB has it now. */
export interface EdgeChange {
  tuple: Tuple;
  grant: boolean;
  present: boolean;
}

/** The tuple graph projected into Neo4j: TUPLE edges for tuples, GRANT edges for direct grants. */
export interface GraphStore {
  /** MERGEs present edges and deletes absent ones; `mark` tags the edges a rebuild has seen (a sync without one leaves marks). */
  sync(changes: EdgeChange[], mark?: string): Promise<void>;
  /** Tuples and grants on any of the resources; at most `limit` of them together when given. */
  on(objects: string[], limit?: number): Promise<{ tuples: Tuple[]; grants: Tuple[] }>;
  /** Resources that any of `objects` is the subject of, at most `limit` (one step up from subjects). */
  from(objects: string[], limit: number): Promise<string[]>;
  /** Objects of `type` in the projection, at most `limit`. */
  ofType(type: string, limit: number): Promise<string[]>;
  /** Which objects are the subject of a tuple or grant whose `Type#name` is in their item's lists. */
  namedAsSubject(items: Array<{ key: string; tuples: string[]; grants: string[] }>): Promise<Set<string>>;
  /**
   * Tuples and grants whose resource or subject has this type (definition changes), a page of at most `objects` objects of
   * the type after `after` (an object key; '' to start) at a time; `next` is where the next page starts, null at the end.
   */
  touchingType(type: string, after: string, objects: number): Promise<{ tuples: Tuple[]; grants: Tuple[]; next: string | null }>;
  /** TUPLE (or GRANT) edges after `after` in key order, with whether a rebuild tagged them with `mark` (sweeps). */
  edgesAfter(grant: boolean, after: string, limit: number, mark: string): Promise<Array<{ key: string; marked: boolean }>>;
  /** Tuples on paths from subject to resource (bounded), for explanations. */
  tuplesBetween(subject: string, resource: string): Promise<Tuple[]>;
  /** Valid direct tuples or grants of `subject` on `resource` (admin scope rule, evaluate). */
  direct(subject: string, resource: string): Promise<{ tuples: Tuple[]; grants: Tuple[] }>;
}
