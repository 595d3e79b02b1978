// Bundling the playground leaves no esbuild child process behind (the service bundles once and runs for weeks).
import { readdirSync, readFileSync } from 'node:fs';
import { ASSET_NAMES, bundlePlayground } from '../../src/surfaces/playground/assets.js';

/** The names of this process's running child processes (Linux /proc; one that exited and is not yet reaped is not). */
const children = () => readdirSync('/proc').filter((d) => /^\d+$/.test(d)).flatMap((pid) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // pid (comm) state ppid ...: comm may hold spaces, so read after its closing parenthesis.
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(ppid) === process.pid && state !== 'Z' ? [stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))] : [];
  } catch {
    return [];
  }
});

const esbuilds = () => children().filter((c) => c === 'esbuild').length;

it('bundles every asset, two at once, then stops esbuild', async () => {
  // Jest's own set-up may have started one: the bundling must leave no more than there were.
  const before = esbuilds();
  const [a, b] = await Promise.all([bundlePlayground(), bundlePlayground()]);
  expect(Object.keys(a).sort()).toEqual([...ASSET_NAMES].sort());
  expect(b).toEqual(a);
  // At most as many: one that another test file in this worker started may have stopped meanwhile.
  expect(esbuilds()).toBeLessThanOrEqual(before);
}, 60_000);
