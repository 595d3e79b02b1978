// Access-list views: named lists of the objects of a type a subject may act on, as computed at a revision.
import type { Page } from './paging.js';

export interface AccessViewRecord {
  _id: string; subject: string; permission: string; resourceType: string; objects: string[]; revision: number;
  createdAt: Date; refreshedAt: Date;
}
export interface AccessViewStore {
  /** Creates or replaces the view named `_id`. */
  put(view: AccessViewRecord): Promise<void>;
  get(name: string): Promise<AccessViewRecord | null>;
  /** Every view's definition, without its objects. */
  list(skip: number, limit: number): Promise<Page<Omit<AccessViewRecord, 'objects'> & { count: number }>>;
  delete(name: string): Promise<boolean>;
}
