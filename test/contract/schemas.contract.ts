// Contract of SchemaStore: schemas unique by name and by collection, listed by name, replaced whole; introspection results.
import type { SchemaRecord, SchemaStore } from '../../src/stores/ports/schemas.js';
import { instants, unique, withStore, type Make } from './harness.js';

/** `createCollection` makes a collection exist in the database the store introspects. */
export type SchemasMade = { createCollection(name: string): Promise<void> };

const [t0, t1] = instants(2);
const schema = (id: string, name: string, collectionName = `c_${name}`): SchemaRecord => ({
  _id: id,
  name,
  collectionName,
  fields: { title: { type: 'String', required: true, unique: false } },
  serviceOptions: { authorization: { enabled: true } },
  createdAt: t0!,
  updatedAt: t0!,
});

export function schemasContract(make: Make<SchemaStore, SchemasMade>) {
  const t = withStore(make);
  describe('SchemaStore', () => {
    it('inserts a schema and finds it by name and by collection', t(async ({ store }) => {
      const s = schema('s1', 'Post');
      expect(await store.insert(s)).toEqual(s);
      expect(await store.findByName('Post')).toEqual(s);
      expect(await store.findByCollection('c_Post')).toEqual(s);
      expect(await store.findByName('post')).toBeNull();
      expect(await store.findByCollection('c_Nope')).toBeNull();
    }));

    it('refuses a name or a collection taken (null), keeping the first', t(async ({ store }) => {
      await store.insert(schema('s1', 'Post'));
      expect(await store.insert(schema('s2', 'Post', 'c_other'))).toBeNull();
      expect(await store.insert(schema('s3', 'Article', 'c_Post'))).toBeNull();
      expect(await store.insert(schema('s1', 'Third'))).toBeNull();
      expect((await store.all()).map((s) => s._id)).toEqual(['s1']);
    }));

    it('lists by name, paged with the full count', t(async ({ store }) => {
      for (const [i, name] of ['Zed', 'Alpha', 'Mid'].entries()) await store.insert(schema(`s${i}`, name));
      expect((await store.all()).map((s) => s.name)).toEqual(['Alpha', 'Mid', 'Zed']);
      const page = await store.list(1, 1);
      expect(page).toEqual({ items: [expect.objectContaining({ name: 'Mid' })], count: 3 });
      expect(await store.list(5, 10)).toEqual({ items: [], count: 3 });
    }));

    it('replaces a schema whole by id; a replace of a missing one stores nothing', t(async ({ store }) => {
      await store.insert(schema('s1', 'Post'));
      const changed: SchemaRecord = { ...schema('s1', 'Post'), fields: { body: { type: 'String', required: false, unique: true } },
        serviceOptions: { authorization: { enabled: false } }, updatedAt: t1! };
      await store.replace(changed);
      expect(await store.findByName('Post')).toEqual(changed);
      await store.replace(schema('s9', 'Ghost'));
      expect(await store.findByName('Ghost')).toBeNull();
    }));

    it('keeps introspection results by id: put replaces, listed by id, dropped by id', t(async ({ store }) => {
      const r = (id: string, documents: number) => ({ _id: id, collectionName: id, fields: {}, documents, foundAt: t0! });
      await store.putIntrospected([r('b', 1), r('a', 2)]);
      await store.putIntrospected([r('b', 5)]);
      expect(await store.introspected()).toEqual([r('a', 2), r('b', 5)]);
      await store.dropIntrospected(['a', 'zz']);
      expect(await store.introspected()).toEqual([r('b', 5)]);
    }));

    it('lists the collections of the database', t(async ({ store, createCollection }) => {
      const name = unique('found_');
      expect(await store.collections()).not.toContain(name);
      await createCollection(name);
      expect(await store.collections()).toContain(name);
    }));

    it('gives out copies: changing a returned schema changes nothing stored', t(async ({ store }) => {
      await store.insert(schema('s1', 'Post'));
      const got = (await store.findByName('Post'))!;
      got.fields.title!.unique = true;
      got.serviceOptions.authorization.enabled = false;
      expect(await store.findByName('Post')).toEqual(schema('s1', 'Post'));
    }));
  });
}
