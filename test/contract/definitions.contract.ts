// Contract of DefinitionStore: versioned saves that never go back, lookups by name or id, paged and searched lists.
import type { DefinitionStore } from '../../src/stores/ports/definitions.js';
import { withStore, type Make } from './harness.js';

const def = (name: string, rel = 'owner') => ({ name, relations: { [rel]: ['User'] }, permissions: { read: [rel] } });

export function definitionsContract(make: Make<DefinitionStore>) {
  const t = withStore(make);
  describe('DefinitionStore', () => {
    it('saves a new definition and finds it by name and by id', t(async ({ store }) => {
      const { record, written } = await store.saveDefinition(def('Doc'), 1);
      expect(written).toBe(true);
      expect(record).toMatchObject({ name: 'Doc', version: 1, relations: { owner: ['User'] }, permissions: { read: ['owner'] } });
      expect(record.createdAt).toBeInstanceOf(Date);
      expect(await store.findDefinition('Doc')).toEqual(record);
      expect(await store.findDefinition(record._id)).toEqual(record);
      expect(await store.findDefinition('Nope')).toBeNull();
    }));

    it('writes a higher version over the stored one, keeping its id and creation time', t(async ({ store }) => {
      const first = (await store.saveDefinition(def('Doc'), 1)).record;
      const { record, written } = await store.saveDefinition(def('Doc', 'editor'), 2);
      expect(written).toBe(true);
      expect(record).toMatchObject({ _id: first._id, version: 2, relations: { editor: ['User'] } });
      expect(record.createdAt).toEqual(first.createdAt);
      expect(await store.definitions()).toHaveLength(1);
    }));

    it('refuses an equal or lower version and answers the stored record', t(async ({ store }) => {
      await store.saveDefinition(def('Doc', 'editor'), 3);
      for (const v of [3, 2]) {
        const { record, written } = await store.saveDefinition(def('Doc', 'viewer'), v);
        expect(written).toBe(false);
        expect(record).toMatchObject({ version: 3, relations: { editor: ['User'] } });
      }
      expect((await store.findDefinition('Doc'))?.relations).toEqual({ editor: ['User'] });
    }));

    it('lists by name, searched case-insensitively, sorted either way, paged with the full count', t(async ({ store }) => {
      for (const [i, name] of ['Beta', 'alpha', 'Gamma', 'AlphaTwo'].entries()) await store.saveDefinition(def(name), i + 1);
      const all = await store.listDefinitions({ skip: 0, limit: 10 });
      expect(all.items.map((d) => d.name)).toEqual(['AlphaTwo', 'Beta', 'Gamma', 'alpha']);
      expect(all.count).toBe(4);
      const found = await store.listDefinitions({ skip: 0, limit: 10, search: 'ALPHA' });
      expect(found.items.map((d) => d.name)).toEqual(['AlphaTwo', 'alpha']);
      expect(found.count).toBe(2);
      const page = await store.listDefinitions({ skip: 1, limit: 2, sort: '-name' });
      expect(page.items.map((d) => d.name)).toEqual(['Gamma', 'Beta']);
      expect(page.count).toBe(4);
      const byVersion = await store.listDefinitions({ skip: 0, limit: 2, sort: '-version' });
      expect(byVersion.items.map((d) => d.name)).toEqual(['AlphaTwo', 'Gamma']);
      expect((await store.listDefinitions({ skip: 0, limit: 10, search: 'a.' })).count).toBe(0);
    }));

    it('deletes by name, answering what was there, then null', t(async ({ store }) => {
      const { record } = await store.saveDefinition(def('Doc'), 1);
      await store.saveDefinition(def('Other'), 1);
      expect(await store.deleteDefinition('Doc')).toEqual(record);
      expect(await store.deleteDefinition('Doc')).toBeNull();
      expect(await store.findDefinition('Doc')).toBeNull();
      expect((await store.definitions()).map((d) => d.name)).toEqual(['Other']);
      // Deleted, the name starts again at any version.
      expect((await store.saveDefinition(def('Doc'), 1)).written).toBe(true);
    }));

    it('gives out copies: changing a returned record changes nothing stored', t(async ({ store }) => {
      const { record } = await store.saveDefinition(def('Doc'), 1);
      record.relations.owner!.push('Team');
      (await store.definitions())[0]!.permissions.read = [];
      expect(await store.findDefinition('Doc')).toMatchObject({ relations: { owner: ['User'] }, permissions: { read: ['owner'] } });
    }));
  });
}
