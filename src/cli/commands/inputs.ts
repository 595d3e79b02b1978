// File arguments of `authz test` and `authz validate`: files as given, directories as their scenario files, sorted.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError, EXIT } from '../exit.js';

const SCENARIO = /\.(json|ya?ml)$/i;
/** A directory argument is read one level deep and at most this many files: a bound, not a crawl. */
const MAX_FILES = 10_000;

export async function expandInputs(args: string[]): Promise<string[]> {
  const files: string[] = [];
  for (const arg of args) {
    let isDir = false;
    try { isDir = (await stat(arg)).isDirectory(); } catch { /* readSource reports a missing file with its path */ }
    if (!isDir) { files.push(arg); continue; }
    const names = (await readdir(arg)).filter((n) => SCENARIO.test(n)).sort();
    if (names.length === 0) throw new CliError(EXIT.input, `${arg}: no *.json, *.yaml or *.yml files in this directory`);
    files.push(...names.map((n) => join(arg, n)));
    if (files.length > MAX_FILES) throw new CliError(EXIT.input, `more than ${MAX_FILES} files`);
  }
  return files;
}
