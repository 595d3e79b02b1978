// Directory arguments of authz test and validate: their scenario files and those of their subdirectories, as the
// shared conformance runner walks them, sorted, without hidden directories or node_modules.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expandInputs } from '../../src/cli/commands/inputs.js';
import { ROOT } from '../../src/root.js';
import { loadCases } from '../support/scenarios.js';

it('reads the conformance directory, whose scenarios are one level down, as its cases directory', async () => {
  const conformance = join(ROOT, 'test', 'fixtures', 'conformance');
  const files = await expandInputs([conformance]);
  expect(files).toEqual(await expandInputs([join(conformance, 'cases')]));
  expect(files).toHaveLength(loadCases().length);
});

it('walks subdirectories depth first in name order, skipping hidden ones, node_modules and links to directories', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'authz-inputs-'));
  for (const d of ['b', 'b/c', '.git', 'node_modules', 'empty']) mkdirSync(join(dir, d));
  for (const f of ['z.json', 'a.yaml', 'b/x.yml', 'b/c/y.JSON', 'b/notes.txt', '.git/h.json', 'node_modules/p.json']) writeFileSync(join(dir, f), '{}');
  symlinkSync(join(dir, 'b'), join(dir, 'link'));
  try {
    expect(await expandInputs([dir])).toEqual(['a.yaml', 'b/c/y.JSON', 'b/x.yml', 'z.json'].map((f) => join(dir, f)));
    await expect(expandInputs([join(dir, 'empty')])).rejects.toThrow(/no \*\.json, \*\.yaml or \*\.yml files in this directory or below it/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
