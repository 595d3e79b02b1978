// The durable high-water mark of revisions taken: the exact seed for a counter Redis lost, whatever writes failed.
import type { Db } from 'mongodb';
import { COLLECTIONS } from './connection.js';
import { isDuplicateKey } from './duplicate-key.js';

const ID = 'taken';

/**
 * A write refused during a MongoDB outage burns its revision, so the log can hold a run of any length missing: a
 * probe of the log alone cannot tell where it ends. Each commit raises this one document (`$max`, so concurrent
 * writers never lower it) before its log insert; it may stand above the highest logged revision (a failed write),
 * never below it.
 */
export function revisionMark(db: Db) {
  const marks = db.collection<{ _id: string; revision: number }>(COLLECTIONS.revisionMark);
  async function raise(revision: number): Promise<void> {
    try {
      await marks.updateOne({ _id: ID }, { $max: { revision } }, { upsert: true });
    } catch (e) {
      // Two first upserts at once: one inserted, the other raises what it inserted.
      if (!isDuplicateKey(e)) throw e;
      await marks.updateOne({ _id: ID }, { $max: { revision } });
    }
  }
  return {
    raise,
    /** The mark, 0 before any write raised it. */
    async read(): Promise<number> {
      return (await marks.findOne({ _id: ID }))?.revision ?? 0;
    },
  };
}
