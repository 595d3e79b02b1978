// Documents of the database module's schemas, one collection per schema.
export type Doc = Record<string, unknown> & { _id: string };
/** Writes that would give a unique field a value another document holds throw DuplicateKey (ports/errors.ts). */
export interface DocumentStore {
  insert(collection: string, doc: Doc): Promise<void>;
  findById(collection: string, id: string): Promise<Doc | null>;
  findByIds(collection: string, ids: string[]): Promise<Doc[]>;
  /** Sets fields; the updated document, or null when it is gone. */
  update(collection: string, id: string, set: Record<string, unknown>): Promise<Doc | null>;
  delete(collection: string, id: string): Promise<Doc | null>;
  find(collection: string, filter: Record<string, unknown>, sort: Record<string, 1 | -1>, skip: number, limit: number): Promise<Doc[]>;
  count(collection: string, filter: Record<string, unknown>): Promise<number>;
  /** Samples documents (introspection). */
  sample(collection: string, n: number): Promise<Doc[]>;
  /** DuplicateKey when stored documents share a value of the field already. */
  uniqueIndex(collection: string, field: string): Promise<void>;
}

/** How the documents of database schemas are read and written (the `database` module's config), as MongoDB names them. */
export interface DatabaseOptions {
  readPreference: 'primary' | 'primaryPreferred' | 'secondary' | 'secondaryPreferred' | 'nearest';
  readConcern?: { level: 'local' | 'majority' | 'linearizable' | 'available' | 'snapshot' };
  writeConcern: { w?: number | 'majority'; j?: boolean; wtimeoutMS?: number };
}
