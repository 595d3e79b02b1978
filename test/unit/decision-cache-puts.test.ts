// A fresh decision goes to the shared store without the check waiting for it, and a store that stops answering cannot
// pile up more than MAX_PUTS_IN_FLIGHT of those writes in the process.
import { DecisionCache, MAX_PUTS_IN_FLIGHT } from '../../src/services/authorization/decision-cache.js';
import { memoryDecisionStore } from '../../src/stores/memory/decision-cache.js';
import { MemoryHub } from '../../src/stores/memory/hub.js';
import type { DecisionStore } from '../../src/stores/ports/decision-cache.js';

/** The in-memory store, whose writes hang until `answer()` (a Redis that stopped answering, then came back). */
function hangingPuts() {
  const store = memoryDecisionStore(new MemoryHub(), 'test');
  const held: Array<() => void> = [];
  let puts = 0;
  const hanging: DecisionStore = {
    ...store,
    put: (...args) => {
      puts++;
      return new Promise((resolve) => held.push(() => void store.put(...args).then(resolve)));
    },
  };
  return { hanging, store, puts: () => puts, answer: () => held.splice(0).forEach((go) => go()) };
}

it('stores a decision without waiting for the shared store, and finds it there once written', async () => {
  const { hanging, store, answer } = hangingPuts();
  const cache = new DecisionCache(hanging);
  const looked = (await cache.lookup('User:a', 'read', 'Doc:d'))!;
  expect(looked.hit).toBeNull();
  // Returns at once although the write has not been answered.
  expect(cache.store('User:a', 'read', 'Doc:d', true, looked.stamp)).toBeUndefined();
  expect(cache.pendingPuts).toBe(1);
  expect((await store.lookup('User:a', 'read', 'Doc:d')).hit).toBeNull();
  answer();
  for (let i = 0; i < 50 && cache.pendingPuts > 0; i++) await new Promise((r) => setTimeout(r, 5));
  expect(cache.pendingPuts).toBe(0);
  expect((await cache.lookup('User:a', 'read', 'Doc:d'))!.hit).toBe(true);
});

it('leaves at most MAX_PUTS_IN_FLIGHT writes unanswered, and writes again once they are answered', async () => {
  const { hanging, puts, answer } = hangingPuts();
  const cache = new DecisionCache(hanging);
  const { stamp } = (await cache.lookup('User:a', 'read', 'Doc:0'))!;
  for (let i = 0; i < MAX_PUTS_IN_FLIGHT + 100; i++) cache.store('User:a', 'read', `Doc:${i}`, true, stamp);
  await new Promise((r) => setImmediate(r)); // the writes are sent from a microtask
  expect([puts(), cache.pendingPuts]).toEqual([MAX_PUTS_IN_FLIGHT, MAX_PUTS_IN_FLIGHT]);
  answer();
  for (let i = 0; i < 50 && cache.pendingPuts > 0; i++) await new Promise((r) => setTimeout(r, 5));
  expect(cache.pendingPuts).toBe(0);
  cache.store('User:a', 'read', 'Doc:again', true, stamp);
  await new Promise((r) => setImmediate(r));
  expect(puts()).toBe(MAX_PUTS_IN_FLIGHT + 1);
  answer();
});

it('a write the shared store refuses, or throws at once, is dropped quietly', async () => {
  const unhandled: unknown[] = [];
  const listen = (e: unknown) => unhandled.push(e);
  process.on('unhandledRejection', listen);
  try {
    const store = memoryDecisionStore(new MemoryHub(), 'test');
    for (const put of [() => Promise.reject(new Error('Connection is closed.')), () => {
      throw new Error('thrown at once');
    }]) {
      const cache = new DecisionCache({ ...store, put });
      expect(() => cache.store('User:a', 'read', 'Doc:d', false, { shared: 'stamp', local: null })).not.toThrow();
      for (let i = 0; i < 50 && cache.pendingPuts > 0; i++) await new Promise((r) => setTimeout(r, 5));
      expect(cache.pendingPuts).toBe(0);
    }
    await new Promise((r) => setTimeout(r, 20));
    expect(unhandled).toEqual([]);
  } finally {
    process.off('unhandledRejection', listen);
  }
});
