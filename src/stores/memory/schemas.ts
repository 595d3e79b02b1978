// In-memory twin of the MongoDB schema store: schemas unique by id, name and collection, and introspection results.
import { DuplicateKey } from '../ports/errors.js';
import type { IntrospectedRecord, SchemaRecord, SchemaStore } from '../ports/schemas.js';
import { copy } from './copy.js';

const byName = (a: SchemaRecord, b: SchemaRecord) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** `collections` lists the database's collections (those of a memory document store, say); none by default. */
export function memorySchemaStore(collections: () => Promise<string[]> = async () => []): SchemaStore {
  const schemas = new Map<string, SchemaRecord>();
  const found = new Map<string, IntrospectedRecord>();
  const clash = (s: SchemaRecord, except?: string) =>
    [...schemas.values()]
      .some((o) => o._id !== except && (o.name === s.name || o.collectionName === s.collectionName));
  const sorted = () => [...schemas.values()].sort(byName);
  return {
    async list(skip, limit) {
      const all = sorted();
      return { items: copy(all.slice(skip, skip + limit)), count: all.length };
    },
    async all() {
      return copy(sorted());
    },
    async findByName(name) {
      return copy(sorted().find((s) => s.name === name) ?? null);
    },
    async findByCollection(collectionName) {
      return copy(sorted().find((s) => s.collectionName === collectionName) ?? null);
    },
    async insert(s) {
      if (schemas.has(s._id) || clash(s)) return null;
      schemas.set(s._id, copy(s));
      return s;
    },
    async replace(s) {
      if (!schemas.has(s._id)) return;
      if (clash(s, s._id)) throw new DuplicateKey();
      schemas.set(s._id, copy(s));
    },
    collections,
    async putIntrospected(list) {
      for (const r of list) found.set(r._id, copy(r));
    },
    async introspected() {
      return copy([...found.values()].sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0)));
    },
    async dropIntrospected(ids) {
      for (const id of ids) found.delete(id);
    },
  };
}
