// Jest global teardown: stop exactly what the setup started, and drop the PostgreSQL clusters kept outside the checkout.
import { join } from 'node:path';
import { removeCluster } from '../../infra/postgres.js';

/** How long the run may take to exit by itself once everything is stopped: past it, something was left open. */
const EXIT_GRACE_MS = 30_000;

export default async function teardown() {
  const stacks = globalThis.__AUTHZ_STACKS__ ?? [];
  await Promise.all(stacks.map(({ stack }) => stack.stop()));
  for (const { stack, dataDir } of stacks) if (dataDir && stack.started.includes('postgres')) removeCluster(join(dataDir, 'postgres'));
  // In band, tests run in this process, so a socket, timer or child a test left open keeps it alive and jest waits
  // forever. Instead of forceExit, which hid such leaks, name what is still open and fail the run. The timer is
  // unref'd: a run that leaves nothing open exits before it fires. (With workers, jest itself reports a worker that
  // did not exit.)
  setTimeout(() => {
    process.stderr.write(`\nThe test run did not exit ${EXIT_GRACE_MS / 1000} s after its last test: still open: ${process.getActiveResourcesInfo().join(', ')}\n`);
    process.exit(1);
  }, EXIT_GRACE_MS).unref();
}
