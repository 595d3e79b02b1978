// The tier lists (test/support/tiers.js): each names a file that exists, and a file that sizes or defines its tests by
// the stores it runs on runs on both kinds, so no part of it runs nowhere.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../src/root.js';
import { MEMORY_FILES, SLOW_FILES, STACK_TOO, TWIN_FILES } from '../support/tiers.js';

const DIR = join(ROOT, 'test', 'integration');
const names = readdirSync(DIR).filter((f) => f.endsWith('.test.ts')).map((f) => f.slice(0, -'.test.ts'.length));

describe('test tiers', () => {
  it('name files that exist, each list once', () => {
    for (const [list, files] of Object.entries({ MEMORY_FILES, SLOW_FILES, STACK_TOO, TWIN_FILES })) {
      expect({ list, missing: files.filter((f) => !existsSync(join(DIR, `${f}.test.ts`))) }).toEqual({ list, missing: [] });
      expect({ list, twice: files.filter((f, i) => files.indexOf(f) !== i) }).toEqual({ list, twice: [] });
    }
    // The fast tier's files run there only; STACK_TOO names twins files the stack tier runs too.
    expect(MEMORY_FILES.filter((f) => TWIN_FILES.includes(f) || SLOW_FILES.includes(f))).toEqual([]);
    expect(STACK_TOO.filter((f) => !TWIN_FILES.includes(f))).toEqual([]);
  });

  it('run a file whose corpus or tests depend on the stores it is on, on both kinds', () => {
    const onBoth = (f: string) => TWIN_FILES.includes(f) && (STACK_TOO.includes(f) || SLOW_FILES.includes(f));
    // A corpus sized by the stores (`TEST_STORES === 'memory' ? 60 : 12`), or tests defined by them (`onTwins`).
    const splitting = names.filter((f) => /TEST_STORES === 'memory' \? \d|\bonTwins\b/.test(readFileSync(join(DIR, `${f}.test.ts`), 'utf8')));
    expect(splitting.length).toBeGreaterThan(2);
    expect(splitting.filter((f) => !onBoth(f))).toEqual([]);
  });
});
