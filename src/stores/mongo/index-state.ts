// The rebuild state in MongoDB: at most one pending request and the running rebuild, so a restart can resume it.
import type { Db } from 'mongodb';
import type { RebuildState, RebuildStateStore } from '../ports/rebuild-state.js';
import { COLLECTIONS } from './connection.js';
import { upsertRaced } from './duplicate-key.js';

const ID = 'rebuild';

export function mongoRebuildState(db: Db): RebuildStateStore {
  const col = db.collection<RebuildState & { _id: string }>(COLLECTIONS.indexState);
  const empty: RebuildState = { requested: null, running: null };
  return {
    async get() {
      const doc = await col.findOne({ _id: ID });
      return doc ? { requested: doc.requested ?? null, running: doc.running ?? null } : empty;
    },
    async put(state) {
      // Whole-document replace (FerretDB v1 keeps old embedded documents under $set).
      await upsertRaced(() => col.replaceOne({ _id: ID }, { requested: state.requested, running: state.running }, { upsert: true }));
    },
  };
}
