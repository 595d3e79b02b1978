// Adversarial shapes for the index (issue 29): an object with 10,000 readers, a user in 500 teams, a team tree ten
// levels deep, an action anyone has on a wide type. The index store's answers must equal the engine evaluator's.
import { Evaluator } from '../../src/engine/evaluator.js';
import { type Tuple } from '../../src/engine/ids.js';
import { Model } from '../../src/engine/model.js';
import type { GraphStore } from '../../src/stores/ports/graph.js';
import type { IndexStore } from '../../src/stores/ports/index-store.js';
import { applyRecords, indexCan, indexListObjects, indexListSubjects, snapshotRecords } from './index-records.js';

const MODEL = new Model([
  { name: 'Document', relations: { owner: ['User', 'Team'], reader: ['User', 'Team'] },
    permissions: { read: ['reader', 'owner', 'owner->read'], edit: ['owner', 'owner->member'] } },
  { name: 'Page', relations: { author: ['User'] }, permissions: { view: ['*'], write: ['author'] } },
]);
const t = (subject: string, relation: string, resource: string): Tuple => ({ subject, relation, resource });

/** The four shapes in one graph, and the probes that cross them. */
export function adversarialTuples(): Tuple[] {
  const out: Tuple[] = [];
  for (let i = 0; i < 10_000; i++) out.push(t(`User:r${i}`, 'reader', 'Document:wide'));
  // Owners of the wide document through teams: its checks find arrows from the subject's side (a dense object).
  out.push(t('Team:j0', 'owner', 'Document:wide'), t('Team:l5', 'owner', 'Document:wide'));
  for (let i = 0; i < 500; i++) {
    out.push(t('User:joiner', 'member', `Team:j${i}`));
    out.push(t(`Team:j${i}`, 'owner', `Document:j${i}`));
  }
  for (let level = 0; level < 9; level++) out.push(t(`Team:l${level}`, 'owner', `Team:l${level + 1}`));
  out.push(t('User:root', 'member', 'Team:l0'), t('User:mid', 'member', 'Team:l5'), t('Team:l9', 'owner', 'Document:deep'));
  for (let i = 0; i < 2000; i++) out.push(t(`User:a${i % 50}`, 'author', `Page:p${i}`));
  return out;
}

export function indexShapesContract(h: () => { index: IndexStore; graph: GraphStore; wipe(): Promise<void> }, liveGen: () => Promise<number>) {
  describe('index store: adversarial shapes against the evaluator', () => {
    it('10,000 readers, a user in 500 teams, a ten-level team tree, a public action on 2,000 pages', async () => {
      await h().wipe();
      const tuples = adversarialTuples();
      const gen = await liveGen();
      await applyRecords(h().index, h().graph, gen, snapshotRecords(MODEL, tuples, []));
      const ev = new Evaluator(MODEL, tuples, []);
      const index = h().index;
      const checks: Array<[string, string, string]> = [
        ['User:r0', 'read', 'Document:wide'],
        ['User:r9999', 'read', 'Document:wide'],
        ['User:joiner', 'read', 'Document:wide'],
        ['User:joiner', 'read', 'Document:j0'],
        ['User:joiner', 'read', 'Document:j499'],
        ['User:joiner', 'edit', 'Document:j7'],
        ['User:r5', 'read', 'Document:j5'],
        ['User:root', 'read', 'Document:deep'],
        ['User:mid', 'read', 'Document:deep'],
        ['User:root', 'edit', 'Document:deep'],
        ['User:mid', 'read', 'Team:l3'],
        ['User:root', 'read', 'Team:l9'],
        ['User:nobody', 'view', 'Page:p1999'],
        ['User:nobody', 'write', 'Page:p3'],
        ['User:a3', 'write', 'Page:p3'],
        ['User:root', 'read', 'Document:wide'],
        ['User:mid', 'read', 'Document:wide'],
        ['User:a3', 'read', 'Document:wide'],
        ['User:joiner', 'edit', 'Document:wide'],
        ['User:mid', 'edit', 'Document:wide'],
        ['User:root', 'edit', 'Document:wide'],
        ['User:r3', 'edit', 'Document:wide'],
        ['User:joiner', 'edit', 'Document:j7'],
      ];
      const got = await Promise.all(checks.map(([s, a, o]) => indexCan(index, MODEL, s, a, o)));
      expect(checks.map((c, i) => [...c, got[i]])).toEqual(checks.map(([s, a, o]) => [s, a, o, ev.can(s, a, o)]));
      expect(got.filter(Boolean).length).toBeGreaterThan(5);
      // The dense object's answers through flats and through a relation arrow, both ways.
      expect(got.slice(15)).toEqual([true, true, false, true, true, false, false, true]);
      for (const [s, a, type] of [['User:joiner', 'read', 'Document'], ['User:root', 'read', 'Document'], ['User:nobody', 'view', 'Page'], ['User:a7', 'write', 'Page'], [
        'User:r17',
        'read',
        'Document',
      ]] as const) {
        expect([s, a, type, await indexListObjects(index, MODEL, s, a, type)]).toEqual([s, a, type, ev.listObjects(s, a, type)]);
      }
      const readers = await indexListSubjects(index, MODEL, 'read', 'Document:wide', 'User');
      expect(readers).toEqual(ev.listSubjects('read', 'Document:wide', 'User'));
      expect(readers.subjects).toHaveLength(10_003); // the readers, and joiner, mid and root through the owner teams
      expect(await indexListSubjects(index, MODEL, 'read', 'Document:deep', 'User')).toEqual(ev.listSubjects('read', 'Document:deep', 'User'));
      await index.dropGeneration(gen);
    }, 240_000);
  });
}
