// Jest global setup: testcontainers when a Docker engine with the images answers, else the local launchers.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { removeCluster } from '../../infra/postgres.js';
import { ROOT, startStack, type StartedStack } from '../../infra/stack.js';
import { startContainers } from './containers.js';

declare global {
  var __AUTHZ_STACK__: StartedStack | undefined;
}

export const TEST_PORTS = { redis: 16379, mongo: 27117, postgres: 27132, bolt: 17687, http: 17474 };

export default async function setup() {
  const log = (l: string) => process.stderr.write(`[test stack] ${l}\n`);
  const t0 = Date.now();
  const stack = (await startContainers(log)) ?? await (async () => {
    const dataDir = join(ROOT, '.data', 'test');
    rmSync(dataDir, { recursive: true, force: true });
    removeCluster(join(dataDir, 'postgres'));
    return startStack({ dataDir, ports: TEST_PORTS, env: process.env, log });
  })();
  Object.assign(process.env, stack.urls);
  if (stack.browserUrl) process.env.NEO4J_BROWSER_URL = stack.browserUrl;
  globalThis.__AUTHZ_STACK__ = stack;
  log(`ready in ${((Date.now() - t0) / 1000).toFixed(1)} s (started: ${stack.started.join(', ') || 'none'})`);
}
