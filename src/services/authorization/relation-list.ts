// The admin list of relations: a page of tuple texts from the projection's indexes, then their records from MongoDB.
import { AppError } from '../../errors.js';
import type { TupleListing } from '../../stores/ports/tuple-listing.js';
import type { TupleReads } from '../../stores/ports/tuples.js';
import { relationView } from './relations.js';

/** The orders an index serves: the tuple text, ascending or descending. */
export const RELATION_SORTS = ['computedTuple', '-computedTuple'] as const;
export type RelationSort = typeof RELATION_SORTS[number];

export interface RelationListQuery {
  skip: number;
  limit: number;
  sort?: RelationSort;
  search?: string;
  subjectType?: string;
  resourceType?: string;
}

/**
 * Pages come from the TUPLE edges of the projection (kept in key order by Neo4j's indexes), so a page costs a few index
 * entries and one `_id` lookup per record, whatever the number of tuples. The projection holds what the index has
 * applied: a tuple from a bulk write is listed once its batch is indexed, and a tuple deleted in MongoDB but not yet
 * in the projection is left out of its page (which is then one shorter).
 */
export class RelationList {
  constructor(private readonly listing: TupleListing, private readonly store: TupleReads) {}

  async list(q: RelationListQuery) {
    const page = await this.listing.list({
      subjectType: q.subjectType,
      resourceType: q.resourceType,
      search: q.search || undefined,
      descending: q.sort === '-computedTuple',
      skip: q.skip,
      limit: q.limit,
    });
    if ('tooBroad' in page) {
      const { cap, budget } = this.listing.limits;
      throw new AppError('LIST_TOO_LARGE', `search ${JSON.stringify(q.search)} matches more than ${cap} tuples, too few of them `
        + `among the first ${budget} in this order to find the page: narrow it (a longer search, subjectType or resourceType)`);
    }
    const records = await this.store.findTuples(page.keys);
    return { relations: records.map(relationView), count: page.count, countCapped: !page.exact };
  }
}
