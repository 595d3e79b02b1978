#!/usr/bin/env node
// The `authz` command: the CLI from its TypeScript source through tsx (a clone after npm ci), else from dist/ (a build).
import { existsSync } from 'node:fs';
import { URL } from 'node:url';

const source = new URL('../src/cli/main.ts', import.meta.url);
const built = new URL('../dist/src/cli/main.js', import.meta.url);

/** tsx's loader, or null where it is not installed (an installed package without its dev dependencies). */
async function tsx() {
  try {
    return await import('tsx/esm/api');
  } catch (e) {
    if (e && e.code === 'ERR_MODULE_NOT_FOUND') return null;
    throw e;
  }
}

async function load() {
  // The source wins when it can run: a clone's dist/ may be older than its source.
  const loader = existsSync(source) ? await tsx() : null;
  if (loader) {
    loader.register();
    return import(source.href);
  }
  if (existsSync(built)) return import(built.href);
  process.stderr.write('authz: neither tsx (npm ci) nor a build (npm run build) is available to run the CLI\n');
  process.exit(70);
}

const { main, processIo } = await load();
process.exitCode = await main(processIo());
