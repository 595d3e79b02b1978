// What the harness asks of each shape of the index: load units, and the can and list statements with their parameters.
import type { Driver, Record as Neo4jRecord } from 'neo4j-driver';
import type { Tuple } from '../../src/engine/ids.js';

/** One read statement as it runs (labels spliced in), its parameters and how its records answer. */
export interface Query<A> {
  text: string;
  params: Record<string, unknown>;
  answer(records: Neo4jRecord[]): A;
}

export interface Variant {
  name: string;
  driver: Driver;
  /** name -> text of every statement the variant may run (names the statements it ran). */
  statements: Map<string, string>;
  /** Projects and indexes one unit of tuples, in one call per statement kind. */
  loadUnit(tuples: Tuple[]): Promise<void>;
  can(subject: string, action: string, object: string): Query<boolean>;
  /** The first 100 objects of `type`, in key order, on which `subject` has `action`. */
  list(subject: string, action: string, type: string): Query<string[]>;
}
