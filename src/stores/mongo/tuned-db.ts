// A Db whose collections always use the current read preference, read concern and write concern (the `database`
// module's config), so a PATCH reaches the document store without a restart or a new connection.
import { ReadConcern, WriteConcern, type Collection, type Db, type MongoClient } from 'mongodb';

import type { DatabaseOptions } from '../ports/documents.js';

export type { DatabaseOptions };

/**
 * Stores take a collection once and keep it; each call on it is forwarded to the collection of the Db made for the
 * current options (one Db and one collection object per options version, so a call costs a map lookup).
 */
export function tunedDb(client: MongoClient): { db: Db; set(options: DatabaseOptions): void } {
  let version = 0;
  let current = client.db();
  const collections = new Map<string, { version: number; collection: Collection }>();
  const collectionNow = (name: string): Collection => {
    const hit = collections.get(name);
    if (hit && hit.version === version) return hit.collection;
    const collection = current.collection(name);
    collections.set(name, { version, collection });
    return collection;
  };
  const forward = <T extends object>(target: () => T) =>
    new Proxy({} as T, {
      get(_t, prop) {
        const obj = target();
        const v = Reflect.get(obj, prop, obj) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(obj) : v;
      },
    });
  const db = new Proxy(current, {
    get(_t, prop) {
      if (prop === 'collection') return (name: string) => forward(() => collectionNow(name));
      const v = Reflect.get(current, prop, current) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(current) : v;
    },
  });
  return {
    db,
    set(o) {
      const { j, wtimeoutMS } = o.writeConcern;
      // Unacknowledged writes are raised to w: 1: unique fields of schemas rest on the duplicate-key error, which
      // w: 0 never reports (the config takes 0, as MongoDB does; it is documented as meaning 1 here).
      const w = o.writeConcern.w === 0 ? 1 : o.writeConcern.w;
      current = client.db(undefined, {
        readPreference: o.readPreference,
        ...(o.readConcern ? { readConcern: new ReadConcern(o.readConcern.level) } : {}),
        ...(w !== undefined || j !== undefined || wtimeoutMS !== undefined ? { writeConcern: new WriteConcern(w, wtimeoutMS, j) } : {}),
      });
      version++;
    },
  };
}
