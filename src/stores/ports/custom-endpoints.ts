// Custom endpoint definitions of the database module (declarative, written by operators), one record per name.
import type { EndpointDefinition } from '../../engine/custom-endpoints.js';
import type { Page } from './paging.js';

/** A stored definition: `_id` is its name, so a name is unique without an index of its own. */
export type EndpointRecord = EndpointDefinition & { _id: string; createdAt: string; updatedAt: string };

export interface EndpointStore {
  list(skip: number, limit: number): Promise<Page<EndpointRecord>>;
  count(): Promise<number>;
  get(name: string): Promise<EndpointRecord | null>;
  /** False when the name is taken. */
  insert(r: EndpointRecord): Promise<boolean>;
  /** False when it is gone. */
  replace(r: EndpointRecord): Promise<boolean>;
  /** The record as it was, or null when there was none. */
  delete(name: string): Promise<EndpointRecord | null>;
}
