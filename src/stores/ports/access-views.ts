// Access-list views: named lists of the objects of a type a subject may act on, as computed at a revision.
import type { Page } from './paging.js';

export interface AccessViewRecord {
  _id: string;
  subject: string;
  permission: string;
  resourceType: string;
  count: number;
  revision: number;
  createdAt: Date;
  refreshedAt: Date;
}

/** A view being computed: its objects are written a chunk at a time, and readers see them only once it is published. */
export interface AccessViewDraft {
  append(objects: string[]): Promise<void>;
  /** Makes the draft the view's list (replacing the one before, which is then dropped). */
  publish(view: Omit<AccessViewRecord, 'count'>): Promise<AccessViewRecord>;
  /** Drops what was written (the computation failed). */
  discard(): Promise<void>;
}

export interface AccessViewStore {
  draft(name: string): AccessViewDraft;
  get(name: string): Promise<AccessViewRecord | null>;
  /** The view and one page of its objects, reading only the chunks the page falls in. */
  page(name: string, skip: number, limit: number): Promise<{ view: AccessViewRecord; objects: string[] } | null>;
  /** Every view's definition, without its objects. */
  list(skip: number, limit: number): Promise<Page<AccessViewRecord>>;
  delete(name: string): Promise<boolean>;
}
