// Contract of FileRecordStore: a record per file id, updated field by field, deleted answering what was there.
import { DuplicateKey } from '../../src/stores/ports/errors.js';
import type { FileRecord, FileRecordStore } from '../../src/stores/ports/file-records.js';
import { withStore, type Make } from './harness.js';

const file = (id: string): FileRecord => ({
  _id: id,
  name: `${id}.txt`,
  size: 3,
  mimeType: 'text/plain',
  folder: null,
  isPublic: false,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  provider: 'local',
  key: `k-${id}`,
});

export function fileRecordsContract(make: Make<FileRecordStore>) {
  const t = withStore(make);
  describe('FileRecordStore', () => {
    it('inserts, gets one and many; a taken id is DuplicateKey', t(async ({ store }) => {
      await store.insert(file('f1'));
      await store.insert(file('f2'));
      await expect(store.insert({ ...file('f1'), name: 'other' })).rejects.toBeInstanceOf(DuplicateKey);
      expect(await store.get('f1')).toEqual(file('f1'));
      expect(await store.get('nope')).toBeNull();
      expect((await store.getMany(['f2', 'x', 'f1', 'f2'])).map((f) => f._id).sort()).toEqual(['f1', 'f2']);
    }));

    it('updates fields and answers the record after, or null when it is gone', t(async ({ store }) => {
      await store.insert(file('f1'));
      const after = { ...file('f1'), size: 9, folder: 'docs', key: 'k2' };
      expect(await store.update('f1', { size: 9, folder: 'docs', key: 'k2' })).toEqual(after);
      expect(await store.get('f1')).toEqual(after);
      expect(await store.update('nope', { size: 1 })).toBeNull();
      expect(await store.get('nope')).toBeNull();
    }));

    it('deletes, answering the record, then null', t(async ({ store }) => {
      await store.insert(file('f1'));
      expect(await store.delete('f1')).toEqual(file('f1'));
      expect(await store.delete('f1')).toBeNull();
      expect(await store.get('f1')).toBeNull();
    }));
  });
}
