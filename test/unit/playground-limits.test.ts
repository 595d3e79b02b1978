// What the playground draws of a large scenario: every failure before any pass, up to the bound, in file order.
import { failuresFirst } from '../../src/surfaces/playground/browser/limits.js';

const items = (oks: string) => [...oks].map((c, i) => ({ i, ok: c === '+' }));

it('keeps a short list whole and in order', () => {
  expect(failuresFirst(items('+-+'), 3)).toEqual({ shown: items('+-+'), hidden: 0 });
});

it('shows the failures of a long list first, then passes up to the bound, in their order', () => {
  const { shown, hidden } = failuresFirst(items('++++-++-++'), 4);
  expect([shown.map((x) => x.i), hidden]).toEqual([[0, 1, 4, 7], 6]);
  // More failures than the bound: only failures.
  expect(failuresFirst(items('-+-+-+-'), 2).shown.map((x) => x.i)).toEqual([0, 2]);
});
