// File arguments of `authz test` and `authz validate`: files as given, directories as the scenario files in them and
// their subdirectories (as the shared conformance runner walks them), sorted.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError, EXIT } from '../exit.js';
import { at } from '../io.js';

const SCENARIO = /\.(json|ya?ml)$/i;
/** A directory argument yields at most this many files: a bound, not a crawl. */
const MAX_FILES = 10_000;
/** Subdirectories not walked: dependencies and hidden ones (.git) hold JSON that is no scenario. */
const SKIPPED = (name: string) => name.startsWith('.') || name === 'node_modules';

/** The scenario files under `dir`, depth first, each directory's entries sorted by name; symbolic links to directories are not followed. */
async function walk(dir: string, files: string[], cwd: string): Promise<void> {
  const entries = (await readdir(at(cwd, dir), { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    if (e.isDirectory()) {
      if (!SKIPPED(e.name)) await walk(join(dir, e.name), files, cwd);
    } else if (SCENARIO.test(e.name)) files.push(join(dir, e.name));
    if (files.length > MAX_FILES) throw new CliError(EXIT.input, `more than ${MAX_FILES} files`);
  }
}

/** Paths are as given (a directory's files joined to it), read relative to `cwd`. */
export async function expandInputs(args: string[], cwd = '.'): Promise<string[]> {
  const files: string[] = [];
  for (const arg of args) {
    let isDir = false;
    try {
      isDir = (await stat(at(cwd, arg))).isDirectory();
    } catch { /* readSource reports a missing file with its path */ }
    if (!isDir) {
      files.push(arg);
      continue;
    }
    const before = files.length;
    await walk(arg, files, cwd);
    if (files.length === before) throw new CliError(EXIT.input, `${arg}: no *.json, *.yaml or *.yml files in this directory or below it`);
  }
  return files;
}
