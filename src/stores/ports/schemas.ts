// Database schemas (the database module) and the collections introspection finds.
import type { Fields } from '../../engine/schema-fields.js';
import type { Page } from './paging.js';

/** A database schema: its documents live in `collectionName`; `authorization.enabled` registers a definition. */
export interface SchemaRecord {
  _id: string;
  name: string;
  collectionName: string;
  fields: Fields;
  serviceOptions: { authorization: { enabled: boolean } };
  createdAt: Date;
  updatedAt: Date;
}
/** A collection found by introspection, waiting to be adopted as a schema. */
export interface IntrospectedRecord {
  _id: string;
  collectionName: string;
  fields: Fields;
  documents: number;
  foundAt: Date;
}
export interface SchemaStore {
  list(skip: number, limit: number): Promise<Page<SchemaRecord>>;
  all(): Promise<SchemaRecord[]>;
  findByName(name: string): Promise<SchemaRecord | null>;
  /** The schema whose documents live in this collection (one at most: a collection has one owner). */
  findByCollection(collectionName: string): Promise<SchemaRecord | null>;
  /** Null when the name is taken. */
  insert(s: SchemaRecord): Promise<SchemaRecord | null>;
  replace(s: SchemaRecord): Promise<void>;
  /** Every collection in the database (introspection). */
  collections(): Promise<string[]>;
  putIntrospected(list: IntrospectedRecord[]): Promise<void>;
  introspected(): Promise<IntrospectedRecord[]>;
  dropIntrospected(ids: string[]): Promise<void>;
}
