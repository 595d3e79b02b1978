// Jest environment for every tier: after a test file, names what the file left keeping its worker alive.
import { createHook } from 'node:async_hooks';
import { TestEnvironment } from 'jest-environment-node';

// What outlives a file's own teardown by this long is a leak, not a socket still closing.
const GRACE_MS = 3000;
// Resource types that keep a worker alive; transient file-system requests are not leaks.
const LASTING = /^(TCPSocketWrap|TCPServerWrap|TCPWRAP|PipeWrap|ProcessWrap|Timeout|Immediate|UDPWrap|TTYWrap|SignalWrap|FSEventWrap|StatWatcher|Worker|MessagePort)$/;

const count = () => {
  const counts = new Map();
  for (const type of process.getActiveResourcesInfo()) {
    if (LASTING.test(type)) counts.set(type, (counts.get(type) ?? 0) + 1);
  }
  return counts;
};

// LEAK_TRACE=1: also print where each timer still pending was created (costly: for running one file).
const timers = new Map();
if (process.env.LEAK_TRACE) {
  createHook({
    init(id, type, _trigger, resource) { if (type === 'Timeout') timers.set(id, { resource, stack: new Error().stack }); },
    destroy(id) { timers.delete(id); },
  }).enable();
}
const pendingTimers = () => [...timers.values()].filter((t) => t.resource.hasRef?.() && !t.resource._destroyed).map((t) => t.stack.split('\n').slice(2, 9).join('\n'));

export default class OpenHandlesEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.testPath = context.testPath;
  }

  async setup() {
    await super.setup();
    // The worker's stdout and stderr are pipes opened on first use: open them now, or the first file to log owns them.
    void process.stdout;
    void process.stderr;
    this.before = count();
  }

  async teardown() {
    await super.teardown();
    let extra = [];
    for (const deadline = Date.now() + GRACE_MS; Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 100).unref());
      extra = [...count()].filter(([type, n]) => n > (this.before.get(type) ?? 0)).map(([type, n]) => `${n - (this.before.get(type) ?? 0)} × ${type}`);
      if (extra.length === 0) return;
    }
    // CI fails on this line (.ci/run), naming the file; jest would only say that some worker had to be killed.
    process.stderr.write(`left open after ${this.testPath}: ${extra.join(', ')}\n`);
    for (const stack of pendingTimers()) process.stderr.write(`  timer created at\n${stack}\n`);
  }
}
