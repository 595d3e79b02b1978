// Whether the compiled service entry (dist/src/main.js, written by npm test's `typecheck:emit`) is as new as src/.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../infra/stack.js';

export const COMPILED_MAIN = join(ROOT, 'dist', 'src', 'main.js');

/** The newest modification time of any file under `dir`. */
export const newest = (dir: string): number =>
  Math.max(0, ...readdirSync(dir, { withFileTypes: true })
    .map((e) => (e.isDirectory() ? newest(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs)));

/** The build's record (`typecheck:emit` builds incrementally): rewritten by each build that changed anything. */
const BUILD_INFO = join(ROOT, 'dist', '.tsbuildinfo');

/**
 * True when dist/src/main.js exists and no file under src/ changed after the last build: main.js's own time, or the
 * build record's, since an incremental build rewrites only the files whose output changed.
 */
export function compiledIsCurrent(): boolean {
  if (!existsSync(COMPILED_MAIN)) return false;
  const built = Math.max(statSync(COMPILED_MAIN).mtimeMs, existsSync(BUILD_INFO) ? statSync(BUILD_INFO).mtimeMs : 0);
  return built >= newest(join(ROOT, 'src'));
}
