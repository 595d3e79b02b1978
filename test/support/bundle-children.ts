// Run as its own process by playground-bundle.test.ts: bundles the playground twice at once, then prints the asset
// names and how many esbuild children this process still has. A jest worker cannot count that itself: other test
// files in the same worker start and stop esbuild on their own schedule.
import { readdirSync, readFileSync } from 'node:fs';
import { bundlePlayground } from '../../src/surfaces/playground/assets.js';

/** The names of this process's running child processes (Linux /proc; one that exited and is not yet reaped is not). */
const children = () =>
  readdirSync('/proc').filter((d) => /^\d+$/.test(d)).flatMap((pid) => {
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
// tsx, which runs this file, keeps an esbuild child of its own once it has transformed a file it had not cached: that
// one is there before the bundling starts and is not the playground's.
const before = esbuilds();
const [a, b] = await Promise.all([bundlePlayground(), bundlePlayground()]);
// Once more alone: whatever the two at once started, the last bundling to finish leaves esbuild stopped.
await bundlePlayground();
// The stopped child takes a moment to exit (seen: still listed right after stop() resolved, and 2 s later on a loaded
// machine): wait for it, bounded at 10 s, so only a child left running is reported.
for (let i = 0; i < 500 && esbuilds() > before; i++) await new Promise((r) => setTimeout(r, 20));
process.stdout.write(JSON.stringify({ names: Object.keys(a).sort(), same: JSON.stringify(a) === JSON.stringify(b), esbuilds: esbuilds() - before }));
