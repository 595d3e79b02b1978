// Scenario files opened in the playground: JSON, or YAML by name, read as `authz test` reads them, bad ones named.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSource } from '../../src/cli/source-file.js';
import { readScenarioFile } from '../../src/surfaces/playground/browser/scenario-file.js';
import { ROOT } from '../../src/root.js';

it("reads the README's YAML example as the CLI reads it, and JSON as before", () => {
  const path = join(ROOT, 'examples', 'docs.yaml');
  const text = readFileSync(path, 'utf8');
  expect(readScenarioFile('docs.yaml', text)).toEqual({ scenario: parseSource(path, text).value });
  expect(readScenarioFile('x.json', '{"tuples": ["User:a#v@Doc:1"]}')).toEqual({ scenario: { tuples: ['User:a#v@Doc:1'] } });
  // A .json file is JSON: YAML in it is not read.
  expect(readScenarioFile('x.json', 'tuples: []')).toEqual({ error: expect.stringMatching(/^x\.json: not JSON: /) });
});

it('names the file and the problem: bad YAML, an alias bomb, a wrong shape', () => {
  expect(readScenarioFile('a.yml', 'checks: [1, 2')).toEqual({ error: expect.stringMatching(/^a\.yml: not YAML: /) });
  const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]', ...Array.from({ length: 8 }, (_, i) => {
    const [me, prev] = [String.fromCharCode(98 + i), String.fromCharCode(97 + i)];
    return `${me}: &${me} [*${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}]`;
  })].join('\n');
  expect(readScenarioFile('bomb.yaml', bomb)).toEqual({ error: expect.stringMatching(/^bomb\.yaml: not YAML: .*alias/i) });
  expect(readScenarioFile('s.yaml', 'checks: 3')).toEqual({ error: 's.yaml: $.checks: must be an array' });
});
