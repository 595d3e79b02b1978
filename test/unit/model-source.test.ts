// The model source over the twins, with the definition store made slow or down: callers share one load, and a change
// told by another process is never answered from a load begun before it.
import { ModelSource } from '../../src/services/authorization/model-source.js';
import { memoryAuthzStore } from '../../src/stores/memory/authz.js';
import { memoryEpoch } from '../../src/stores/memory/epoch.js';
import { MemoryHub } from '../../src/stores/memory/hub.js';
import type { DefinitionStore } from '../../src/stores/ports/definitions.js';

const DOC = { name: 'Doc', relations: { reader: ['User'] }, permissions: { read: ['reader'] } };
const FOLDER = { name: 'Folder', relations: { viewer: ['User'] }, permissions: { view: ['viewer'] } };

/** The twin definition store, each read answering what was stored when it began, `delayMs` later, or failing while `down`. */
function slowStore() {
  const twin = memoryAuthzStore();
  const state = { delayMs: 0, down: false, reads: 0 };
  const store: DefinitionStore = {
    ...twin,
    definitions: async () => {
      state.reads++;
      const down = state.down;
      const read = await twin.definitions();
      await new Promise((r) => setTimeout(r, state.delayMs));
      if (down) throw new Error('server selection timed out');
      return read;
    },
  };
  return { store, twin, state };
}

const refreshed = () => new Promise((r) => setTimeout(r, 2100));

it('callers finding the model old share one load instead of queueing one each', async () => {
  const { store, twin, state } = slowStore();
  await twin.saveDefinition(DOC, 1);
  const models = new ModelSource(store, memoryEpoch(new MemoryHub(), 'ep'));
  await models.get();
  await refreshed();
  state.delayMs = 200;
  state.reads = 0;
  const got = await Promise.all(Array.from({ length: 8 }, () => models.get()));
  // Queued one behind another: eight loads, each waiting for the one before.
  expect(state.reads).toBe(1);
  expect(got.every((m) => m.get('Doc') !== undefined)).toBe(true);
}, 10_000);

it('a shared load that fails fails every caller that joined it, and the next one loads again', async () => {
  const { store, twin, state } = slowStore();
  await twin.saveDefinition(DOC, 1);
  const models = new ModelSource(store, memoryEpoch(new MemoryHub(), 'ep'));
  await models.get();
  await refreshed();
  state.down = true;
  state.delayMs = 100;
  state.reads = 0;
  const got = await Promise.allSettled(Array.from({ length: 4 }, () => models.get()));
  expect(got.map((g) => g.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected']);
  expect(state.reads).toBe(1);
  state.down = false;
  await twin.saveDefinition(FOLDER, 1);
  expect((await models.get()).get('Folder')).toBeDefined();
  expect(state.reads).toBe(2);
}, 10_000);

it('a load begun before another process told of a change answers its callers but is not kept', async () => {
  const { store, twin, state } = slowStore();
  await twin.saveDefinition(DOC, 1);
  const models = new ModelSource(store, memoryEpoch(new MemoryHub(), 'ep'));
  state.delayMs = 200;
  const before = models.get();
  await new Promise((r) => setTimeout(r, 50));
  await twin.saveDefinition(FOLDER, 1);
  models.invalidate();
  expect((await before).get('Folder')).toBeUndefined();
  state.delayMs = 0;
  // Kept, it would answer without Folder for another two seconds.
  expect((await models.get()).get('Folder')).toBeDefined();
}, 10_000);

it('after another process told of a change, no load begun before it answers, and a failed one is an error', async () => {
  const { store, twin, state } = slowStore();
  await twin.saveDefinition(DOC, 1);
  const models = new ModelSource(store, memoryEpoch(new MemoryHub(), 'ep'));
  await models.get();
  state.delayMs = 300;
  const before = models.reload();
  // The other process's change lands after that load read, and the bus tells of it.
  await twin.saveDefinition(FOLDER, 1);
  models.invalidate();
  expect((await models.get()).get('Folder') !== undefined).toBe(true);
  expect((await before).get('Doc') !== undefined).toBe(true);
  models.invalidate();
  state.down = true;
  await expect(models.get()).rejects.toThrow('server selection timed out');
}, 10_000);

it('reloads asked while one is in flight share the one queued behind it, which reads after every one of them', async () => {
  const { store, twin, state } = slowStore();
  await twin.saveDefinition(DOC, 1);
  const models = new ModelSource(store, memoryEpoch(new MemoryHub(), 'ep'));
  state.delayMs = 200;
  const first = models.reload();
  await new Promise((r) => setTimeout(r, 50));
  await twin.saveDefinition(FOLDER, 1);
  const later = await Promise.all(Array.from({ length: 6 }, () => models.reload()));
  // One behind another: the first and six more.
  expect(state.reads).toBe(2);
  expect(later.every((m) => m.get('Folder') !== undefined)).toBe(true);
  expect((await first).get('Folder')).toBeUndefined();
  // Asked after the shared one began to read: a load of its own.
  await models.reload();
  expect(state.reads).toBe(3);
}, 10_000);
