// Jest global teardown: stop exactly what the setup started, and drop a PostgreSQL cluster kept outside the checkout.
import { join } from 'node:path';
import { removeCluster } from '../../infra/postgres.js';
import { ROOT } from '../../infra/stack.js';

export default async function teardown() {
  const stack = globalThis.__AUTHZ_STACK__;
  await stack?.stop();
  if (stack?.started.includes('postgres')) removeCluster(join(ROOT, '.data', 'test', 'postgres'));
}
