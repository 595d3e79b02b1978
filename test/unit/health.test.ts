// Readiness: a failed store is named, never described (the reason goes to the log, once per change), and probes are
// shared by callers that ask at once and reused for a second.
import { jest } from '@jest/globals';
import type { Logger } from '../../src/log.js';
import { Health } from '../../src/services/health.js';

// Jest's fake clock: the waits past the one-second reuse and the probe timeout pass at once.
beforeEach(() => {
  jest.useFakeTimers();
});
afterEach(() => {
  jest.useRealTimers();
});
/** Lets `ms` of the fake clock pass, running the timers due and the promises they settle. */
const pass = (ms: number) => jest.advanceTimersByTimeAsync(ms);

const logger = () => {
  const lines: Array<[string, unknown, string]> = [];
  const log = { warn: (o: unknown, m: string) => lines.push(['warn', o, m]), info: (o: unknown, m: string) => lines.push(['info', o, m]) };
  return { lines, log: log as unknown as Logger };
};

it('names a failed store without its error text, and logs why when it starts failing, changes or recovers', async () => {
  let redisError: Error | null = new Error('connect ECONNREFUSED 10.1.2.3:6379 (user svc, password hunter2)');
  const { lines, log } = logger();
  const health = new Health({ mongo: async () => undefined, redis: async () => {
    if (redisError) throw redisError;
  } }, ['core'], () => ['core'], log);
  const wait = () => pass(1050);

  const down = await health.ready();
  expect(down).toEqual({
    status: 'not-ready',
    checks: { mongo: { status: 'pass', durationMs: expect.any(Number) }, redis: { status: 'fail', durationMs: expect.any(Number), message: 'down' },
      'module:core': { status: 'pass', durationMs: 0 } },
  });
  expect(JSON.stringify(down)).not.toMatch(/ECONNREFUSED|10\.1\.2\.3|hunter2/);
  expect(lines).toEqual([['warn', { check: 'redis', reason: redisError.message }, 'readiness check fails']]);

  await wait();
  await health.ready(); // the same reason: not logged again
  expect(lines).toHaveLength(1);
  redisError = new Error('NOAUTH Authentication required');
  await wait();
  await health.ready();
  expect(lines[1]).toEqual(['warn', { check: 'redis', reason: 'NOAUTH Authentication required' }, 'readiness check fails']);
  redisError = null;
  await wait();
  expect((await health.ready()).status).toBe('ready');
  expect(lines[2]).toEqual(['info', { check: 'redis' }, 'readiness check passes again']);
});

it('probes once for callers that ask together, and reuses the report for a second', async () => {
  const probe = jest.fn(async () => {
    await new Promise((r) => setTimeout(r, 50));
  });
  const health = new Health({ mongo: probe }, [], () => []);
  const asked = Promise.all(Array.from({ length: 20 }, () => health.ready()));
  await pass(50);
  const reports = await asked;
  expect(probe).toHaveBeenCalledTimes(1);
  expect(new Set(reports).size).toBe(1);
  await health.ready();
  expect(probe).toHaveBeenCalledTimes(1);
  await pass(1050);
  const again = health.ready();
  await pass(50);
  await again;
  expect(probe).toHaveBeenCalledTimes(2);
});

it("asks a required module's own probe (its storage provider, its queue) under module:<name>, and no other module's", async () => {
  let s3: Error | null = new Error('connect ECONNREFUSED 127.0.0.1:9000');
  const storage = jest.fn(async () => {
    if (s3) throw s3;
  });
  const chat = jest.fn(async () => undefined);
  const { lines, log } = logger();
  const health = new Health({ mongo: async () => undefined }, ['storage', 'chat'], () => ['storage', 'chat', 'communications'], log);
  const queue = jest.fn(async () => {
    throw new Error('not asked: communications is not required');
  });
  health.probeModule('storage', storage);
  health.probeModule('communications', queue);
  const down = await health.ready();
  expect(down).toEqual({
    status: 'not-ready',
    checks: {
      mongo: { status: 'pass', durationMs: expect.any(Number) },
      'module:storage': { status: 'fail', durationMs: expect.any(Number), message: 'down' },
      'module:chat': { status: 'pass', durationMs: 0 },
    },
  });
  expect(JSON.stringify(down)).not.toMatch(/ECONNREFUSED/);
  expect(lines).toEqual([['warn', { check: 'module:storage', reason: s3.message }, 'readiness check fails']]);
  expect(queue).not.toHaveBeenCalled();
  s3 = null;
  await pass(1050);
  expect(await health.ready()).toMatchObject({ status: 'ready', checks: { 'module:storage': { status: 'pass' } } });
  expect(storage).toHaveBeenCalledTimes(2);
  expect(chat).not.toHaveBeenCalled();
});

it('a probe that hangs fails as down after the timeout', async () => {
  const health = new Health({ neo4j: () => new Promise(() => undefined) }, [], () => []);
  const asked = health.ready();
  let settled = false;
  void asked.then(() => {
    settled = true;
  });
  await pass(1000);
  expect(settled).toBe(false);
  await pass(5000);
  const report = await asked;
  expect(report.checks.neo4j).toEqual({ status: 'fail', durationMs: expect.any(Number), message: 'down' });
}, 10_000);
