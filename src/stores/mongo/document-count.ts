// A collection's document count from its statistics: what a progress total needs, without reading the collection.
import type { Collection, Document } from 'mongodb';

/**
 * `collStats` answers from the collection's metadata on MongoDB and from PostgreSQL's on FerretDB v1, where
 * `estimatedDocumentCount` counts every document (137 s at 1M tuples, against 1.5 s). A server without the command
 * falls back to the estimate. The figure may be slightly off while writes go on: it is for progress, never for logic.
 */
export async function documentCount<T extends Document>(c: Collection<T>): Promise<number> {
  try {
    const stats = await c.db.command({ collStats: c.collectionName });
    if (typeof stats.count === 'number') return stats.count;
  } catch { /* no collStats: the estimate below */ }
  return c.estimatedDocumentCount();
}
