// The in-process list cache: served only under the stamp it was stored with, bounded by the ids it holds.
import { ListCache } from '../../src/services/authorization/list-cache.js';

const ids = (n: number, p = 'D') => Array.from({ length: n }, (_, i) => `${p}:${i}`);

it('serves a list only while its stamp is unchanged', () => {
  const c = new ListCache(100);
  c.put('u|read|D', '1:0:0', ids(3));
  expect(c.get('u|read|D', '1:0:0')).toEqual(ids(3));
  expect(c.get('u|read|D', '2:0:0')).toBeUndefined();
  // A stale entry is dropped, not kept for the old stamp.
  expect(c.get('u|read|D', '1:0:0')).toBeUndefined();
});

it('evicts the least recently used lists past its bound, and never holds one list too big to share', () => {
  const c = new ListCache(100);
  c.put('a', 's', ids(20));
  c.put('b', 's', ids(20));
  c.put('c', 's', ids(20));
  c.put('d', 's', ids(20));
  expect(c.get('a', 's')).toBeDefined(); // a is now the most recent
  c.put('e', 's', ids(25)); // 105 ids: the least recent (b) goes
  expect(c.get('b', 's')).toBeUndefined();
  expect(['a', 'c', 'd', 'e'].every((k) => c.get(k, 's'))).toBe(true);
  c.put('huge', 's', ids(26));
  expect(c.get('huge', 's')).toBeUndefined();
  expect(c.size).toBe(4);
});

it('does not trust a list past its age, even under the same stamp', () => {
  const c = new ListCache(100, 0);
  c.put('k', 's', ids(2));
  const later = Date.now() + 5;
  while (Date.now() < later) { /* let the clock move */ }
  expect(c.get('k', 's')).toBeUndefined();
});

it('bounds empty lists too: each entry costs one besides its ids', () => {
  const c = new ListCache(100);
  for (let i = 0; i < 1000; i++) c.put(`subject${i}`, 's', []);
  expect(c.size).toBe(100);
  expect(c.get('subject999', 's')).toEqual([]);
  expect(c.get('subject0', 's')).toBeUndefined();
});
