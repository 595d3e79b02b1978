// Whether the compiled service entry (dist/src/main.js, written by npm test's `typecheck:emit`) is as new as src/.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../infra/stack.js';

export const COMPILED_MAIN = join(ROOT, 'dist', 'src', 'main.js');

/** The newest modification time of any file under `dir`. */
export const newest = (dir: string): number =>
  Math.max(0, ...readdirSync(dir, { withFileTypes: true })
    .map((e) => (e.isDirectory() ? newest(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs)));

/** True when dist/src/main.js exists and no file under src/ changed after it was written. */
export function compiledIsCurrent(): boolean {
  return existsSync(COMPILED_MAIN) && statSync(COMPILED_MAIN).mtimeMs >= newest(join(ROOT, 'src'));
}
