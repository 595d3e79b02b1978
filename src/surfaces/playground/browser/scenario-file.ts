// A scenario file the page is given: JSON, or YAML by its name (.yaml, .yml), as `authz test` reads them; read into a
// scenario or a message naming the file and what is wrong.
import { parse } from 'yaml';
import { parseScenario, type Scenario } from '../../../engine/scenario.js';

/** Alias expansions a YAML file may make: anchors save typing; they do not multiply a file into gigabytes. */
const MAX_ALIASES = 100;

export function readScenarioFile(name: string, text: string): { scenario: Scenario } | { error: string } {
  const yaml = /\.ya?ml$/i.test(name);
  let value: unknown;
  try {
    value = yaml ? parse(text, { maxAliasCount: MAX_ALIASES }) : JSON.parse(text);
  } catch (e) {
    return { error: `${name}: not ${yaml ? 'YAML' : 'JSON'}: ${(e as Error).message.split('\n')[0]}` };
  }
  const read = parseScenario(value);
  if (!read.scenario) return { error: `${name}: ${read.problems.map((p) => `${p.at}: ${p.message}`).join('; ')}` };
  return { scenario: read.scenario };
}
