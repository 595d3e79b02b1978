// npm test's jest step: the fast and twins tiers (no servers) in a process of its own beside the stack and slow tiers (one store
// stack per worker). The servers' tiers leave a core partly idle while they wait on Neo4j, FerretDB and Redis; the fast
// tiers run in that time instead of taking turns with them on the same two workers. Each line is prefixed with its
// tier; the exit code is the first failure's.
import { spawn } from 'node:child_process';

// Arguments given (a file pattern, `-t name`) go to both runs; a run they leave without tests passes.
const extra = process.argv.length > 2 ? [...process.argv.slice(2), '--passWithNoTests'] : [];
const RUNS = [
  // One worker, in band: the fast tier is CPU-light next to the stacks, and a second worker would take a core from them.
  // (The given arguments go first: --selectProjects takes every word after it.)
  { tier: 'fast', args: [...extra, '--maxWorkers=1', '--selectProjects', 'fast', 'twins'] },
  { tier: 'stack', args: [...extra, '--selectProjects', 'stack', 'slow'] },
];
const env = { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --experimental-vm-modules --no-warnings`.trim() };

/** Writes each whole line of `stream` to `out` behind the tier's name, so the two runs stay readable interleaved. */
function prefixed(stream, out, tier) {
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop();
    for (const line of lines) out.write(`[${tier}] ${line}\n`);
  });
  stream.on('end', () => { if (rest) out.write(`[${tier}] ${rest}\n`); });
}

const started = Date.now();
const codes = await Promise.all(RUNS.map(({ tier, args }) => new Promise((resolve) => {
  const child = spawn(process.execPath, ['node_modules/jest/bin/jest.js', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  prefixed(child.stdout, process.stdout, tier);
  prefixed(child.stderr, process.stderr, tier);
  // Ctrl-C reaches the children through the process group; a stop of this process alone is passed on.
  for (const signal of ['SIGTERM', 'SIGHUP']) process.once(signal, () => child.kill(signal));
  child.on('close', (code, signal) => {
    process.stderr.write(`[${tier}] jest exited ${signal ?? code} after ${Math.round((Date.now() - started) / 1000)} s\n`);
    resolve(code ?? 1);
  });
})));
process.exit(codes.find((c) => c !== 0) ?? 0);
