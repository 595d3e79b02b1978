// A stopped decision watch starts no more rounds: with its stores closed, a round would fail and retry every half
// second for ever, keeping a stopped service's process alive (the transports bench never exited).
import { DecisionWatch } from '../../src/services/authorization/decision-watch.js';
import type { Checks } from '../../src/services/authorization/checks.js';
import type { Revisions } from '../../src/services/authorization/revisions.js';
import { createLogger } from '../../src/log.js';

it('retries a failed round until stopped, then never again', async () => {
  let reads = 0;
  // The stores are closed: reading the settled revision fails, as Redis's "Connection is closed" does.
  const revisions = { settled: async () => {
    reads++;
    throw new Error('Connection is closed.');
  } } as unknown as Revisions;
  const checks = { can: async () => true } as unknown as Checks;
  const watch = new DecisionWatch(checks, revisions, createLogger('silent'));
  watch.add({ subject: 'User:a', action: 'read', resource: 'Doc:d', allowed: false, notify: () => undefined });
  for (const deadline = Date.now() + 10_000; reads < 2 && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 50));
  expect(reads).toBeGreaterThanOrEqual(2);
  await watch.stop();
  const atStop = reads;
  await new Promise((r) => setTimeout(r, 1500));
  expect(reads).toBe(atStop);
});
