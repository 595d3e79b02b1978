// Bundling the playground leaves no esbuild child process behind (the service bundles once and runs for weeks).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { ASSET_NAMES } from '../../src/surfaces/playground/assets.js';
import { ROOT } from '../support/cli.js';

it('bundles every asset, two at once, then stops esbuild', async () => {
  // In a process of its own: in a jest worker, another file's esbuild may start or stop while this one counts.
  const out = await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', join(ROOT, 'test/support/bundle-children.ts')], { cwd: ROOT, timeout: 60_000 },
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)));
  });
  expect(JSON.parse(out)).toEqual({ names: [...ASSET_NAMES].sort(), same: true, esbuilds: 0 });
}, 90_000);
