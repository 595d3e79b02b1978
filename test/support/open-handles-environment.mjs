// Jest environment for every tier: after a test file, names what the file left keeping its worker alive.
import { createHook } from 'node:async_hooks';
import { TestEnvironment } from 'jest-environment-node';

// What outlives a file's own teardown by this long is a leak, not a socket still closing.
const GRACE_MS = 5000;
/** What keeps this process alive, by kind: timers, and handles (sockets, servers, children) but the worker's own stdio. */
const count = () => {
  const counts = new Map();
  const add = (kind) => counts.set(kind, (counts.get(kind) ?? 0) + 1);
  for (const type of process.getActiveResourcesInfo()) if (type === 'Timeout' || type === 'Immediate') add(type);
  // fd 0-2 are the pipes to jest, opened when first used (a library enumerating `process` opens stdin): not a leak.
  for (const handle of process._getActiveHandles()) if (!(handle.fd >= 0 && handle.fd <= 2)) add(handle.constructor?.name ?? 'handle');
  return counts;
};

// LEAK_TRACE=1: also print where each timer or handle still open was created (costly: for running one file).
const timers = new Map();
const TRACED = /^(Timeout|PIPEWRAP|TCPWRAP|PROCESSWRAP|TCPSERVERWRAP)$/;
if (process.env.LEAK_TRACE) {
  createHook({
    init(id, type, _trigger, resource) {
      if (TRACED.test(type)) timers.set(id, { type, resource, stack: new Error().stack });
    },
    destroy(id) {
      timers.delete(id);
    },
  }).enable();
}
const pendingTimers = () =>
  [...timers.values()].filter((t) => (t.type !== 'Timeout' || t.resource.hasRef?.()) && !t.resource._destroyed).map((t) =>
    `${t.type}: ${t.stack.split('\n').slice(2, 12).join('\n')}`
  );

export default class OpenHandlesEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.testPath = context.testPath;
  }

  async setup() {
    await super.setup();
    this.before = count();
  }

  async teardown() {
    await super.teardown();
    let extra = [];
    let first = null;
    const started = Date.now();
    for (const deadline = started + GRACE_MS; Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 100).unref());
      extra = [...count()].filter(([type, n]) => n > (this.before.get(type) ?? 0)).map(([type, n]) => `${n - (this.before.get(type) ?? 0)} × ${type}`);
      first ??= extra;
      if (extra.length === 0) {
        // Not a leak, but what makes jest kill a worker whose last file this was (it waits half a second): said, not failed.
        const ms = Date.now() - started;
        if (ms > 500) process.stderr.write(`slow to close after ${this.testPath}: ${first.join(', ')} (closed within ${ms} ms)\n`);
        return;
      }
    }
    // CI fails on this line (.ci/run), naming the file; jest would only say that some worker had to be killed.
    process.stderr.write(`left open after ${this.testPath}: ${extra.join(', ')}\n`);
    for (const stack of pendingTimers()) process.stderr.write(`  created at\n${stack}\n`);
  }
}
