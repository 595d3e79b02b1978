// lazyImport: the module loads once, on first use; a failed load is tried again by the next call instead of kept.
import { lazyImport } from '../../src/lazy-import.js';

it('loads once on first use, and tries a failed load again', async () => {
  let calls = 0;
  let fail = true;
  const load = lazyImport(async () => {
    calls++;
    if (fail) throw new Error('not there');
    return { ok: calls };
  });
  expect(calls).toBe(0);
  await expect(load()).rejects.toThrow('not there');
  fail = false;
  const [a, b] = await Promise.all([load(), load()]);
  expect(a).toBe(b);
  expect(await load()).toEqual({ ok: 2 });
  expect(calls).toBe(2);
});
