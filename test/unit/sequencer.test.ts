// The test order's stand-in times: each names a file of its tier, and a fresh clone runs the longest first.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../infra/stack.js';
// @ts-expect-error: plain JavaScript, as jest loads it
import LongestFirst, { MEASURED } from '../support/sequencer.mjs';
import { MEMORY_FILES, SLOW_FILES, STACK_TOO, TWIN_FILES } from '../support/tiers.js';

const inTier: Record<string, (f: string) => boolean> = {
  slow: (f) => SLOW_FILES.includes(f),
  twins: (f) => TWIN_FILES.includes(f),
  stack: (f) => !SLOW_FILES.includes(f) && !MEMORY_FILES.includes(f) && (!TWIN_FILES.includes(f) || STACK_TOO.includes(f)),
};

it('every measured time names an integration file of its tier', () => {
  const wrong = Object.keys(MEASURED as Record<string, number>).filter((key) => {
    const [tier, file] = key.split(':') as [string, string];
    return !existsSync(join(ROOT, 'test', 'integration', `${file}.test.ts`)) || !inTier[tier]?.(file);
  });
  expect(wrong).toEqual([]);
});

it('with no times from an earlier run, the longest measured files go first and the others after', () => {
  const sequencer = new LongestFirst({ contexts: [], globalConfig: {} });
  const context = (name: string) => ({ config: { displayName: { name }, cacheDirectory: join(ROOT, '.cache', 'no-such-jest-cache'), name }, hasteFS: { getSize: () => 100_000 } });
  const test = (tier: string, file: string) => ({ path: join(ROOT, 'test', file), context: context(tier) });
  const order = sequencer.sort([test('fast', 'unit/big.test.ts'), test('slow', 'integration/crash-recovery.test.ts'), test('twins', 'integration/hostile-input.test.ts'),
    test('slow', 'integration/store-faults.test.ts')]) as Array<{ path: string; context: { config: { displayName: { name: string } } } }>;
  expect(order.map((t) => `${t.context.config.displayName.name}:${t.path.split('/').pop()}`))
    .toEqual(['slow:store-faults.test.ts', 'twins:hostile-input.test.ts', 'slow:crash-recovery.test.ts', 'fast:big.test.ts']);
});
