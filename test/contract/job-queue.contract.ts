// The job queue port's contract: what every queue (BullMQ on Redis, the in-memory twin) must do, as describe/it blocks.
import { randomUUID } from 'node:crypto';
import type { Job, JobOptions, JobQueue, OpenJobQueue, WorkerEvents } from '../../src/stores/ports/job-queue.js';
import { gate, until } from './job-queue-waits.js';

export interface JobQueueUnderTest {
  open: OpenJobQueue;
  cleanup(): Promise<void>;
}

type Data = Record<string, unknown>;
const OPTS: JobOptions = { attempts: 1, backoffMs: 10, keepCompleted: 100, keepFailed: 100 };

/** The events a worker saw, in order, as `<event> <job id> <attemptsMade>`. */
function recorder(): { seen: string[]; events: WorkerEvents<Data> } {
  const seen: string[] = [];
  return {
    seen,
    events: {
      completed: (j) => seen.push(`completed ${j.id} ${j.attemptsMade}`),
      failed: (j, e) => seen.push(`failed ${j.id} ${j.attemptsMade} ${e.message}`),
      error: () => undefined,
      ready: () => undefined,
    },
  };
}

/** Starts a worker whose jobs each wait until `n` run at once: at a lower concurrency they never end (until released). */
const together = (q: JobQueue<Data>, n: number, concurrency: number) => {
  const started = new Set<string>();
  const all = gate();
  q.work(async (j) => {
    started.add(j.id);
    if (started.size === n) all.open();
    await all.opened;
  }, { concurrency, events: recorder().events });
  return { started, release: all.open };
};

export function jobQueueContract(name: string, make: () => Promise<JobQueueUnderTest>): void {
  describe(`job queue contract: ${name}`, () => {
    let opener: JobQueueUnderTest;
    let handles: JobQueue<Data>[] = [];
    let queueName = '';
    /** A handle on this test's queue (each test has a queue of its own). */
    const open = () => {
      const q = opener.open<Data>(queueName);
      handles.push(q);
      return q;
    };
    const stateOf = async (q: JobQueue<Data>, id: string) => (await q.get(id))?.state ?? null;

    beforeAll(async () => {
      opener = await make();
    });
    afterAll(async () => {
      await opener?.cleanup();
    });
    beforeEach(() => {
      queueName = `contract-${randomUUID()}`;
      handles = [];
    });
    afterEach(async () => {
      await Promise.all(handles.map((h) => h.close(200)));
    });
    describe('running jobs', () => runningCases({ open, stateOf }));
    describe('concurrency', () => concurrencyCases({ open, stateOf }));
    describe('retries and failures', () => failureCases({ open, stateOf }));
    describe('finished jobs kept', () => keptCases({ open, stateOf }));
    describe('sharing and closing', () => closingCases({ open, stateOf }));
  });
}

interface QueueCases {
  open(): JobQueue<Data>;
  stateOf(q: JobQueue<Data>, id: string): Promise<string | null>;
}

/** Running: once, by id, in order. */
function runningCases({ open, stateOf }: QueueCases): void {
  it('runs an added job once, with its name, id and data (as JSON), and keeps it completed', async () => {
    const q = open();
    const runs: Job<Data>[] = [];
    const { seen, events } = recorder();
    await q.add('email', { to: ['a@example.com'], n: 1, nested: { ok: true }, at: new Date(0) }, 'job-1', OPTS);
    q.work(async (j) => {
      runs.push(j);
    }, { concurrency: 1, events });
    await until(async () => (await stateOf(q, 'job-1')) === 'completed', 'job-1 completed');
    await until(() => seen.length === 1, 'the completed event'); // BullMQ emits it after the job's state has moved
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ id: 'job-1', name: 'email', attemptsMade: 0, attempts: 1,
      data: { to: ['a@example.com'], n: 1, nested: { ok: true }, at: '1970-01-01T00:00:00.000Z' } });
    expect(seen).toEqual(['completed job-1 1']);
    const done = await q.get('job-1');
    expect(done).toMatchObject({ state: 'completed', attemptsMade: 1, failedReason: '' });
    expect(done!.finishedAt).toBeGreaterThanOrEqual(done!.createdAt);
    expect(await q.counts()).toEqual({ waiting: 0, active: 0, delayed: 0, completed: 1, failed: 0 });
  });

  it('answers null for a job it does not hold', async () => {
    expect(await open().get('never-added')).toBeNull();
  });

  it('adds a job id once: a second add, whatever its data, changes nothing', async () => {
    const q = open();
    await q.add('email', { v: 1 }, 'same', OPTS);
    await q.add('email', { v: 2 }, 'same', OPTS);
    expect(await q.counts()).toMatchObject({ waiting: 1 });
    const runs: Data[] = [];
    q.work(async (j) => {
      runs.push(j.data);
    }, { concurrency: 1, events: recorder().events });
    await until(async () => (await stateOf(q, 'same')) === 'completed', 'the job completed');
    await q.add('email', { v: 3 }, 'same', OPTS);
    expect(await q.counts()).toMatchObject({ waiting: 0, completed: 1 });
    expect(runs).toEqual([{ v: 1 }]);
  });

  it('runs jobs in the order they were added, one at a time at concurrency 1', async () => {
    const q = open();
    const ids = ['a', 'b', 'c', 'd', 'e'];
    for (const id of ids) await q.add('n', {}, id, OPTS);
    const order: string[] = [];
    q.work(async (j) => {
      order.push(j.id);
    }, { concurrency: 1, events: recorder().events });
    await until(async () => (await q.counts()).completed === ids.length, 'every job completed');
    expect(order).toEqual(ids);
  });
}

/** Concurrency: as many at once as asked, and no more. */
function concurrencyCases({ open }: QueueCases): void {
  it('runs as many jobs at once as its concurrency', async () => {
    const q = open();
    const { started, release } = together(q, 3, 3);
    try {
      for (const id of ['x', 'y', 'z']) await q.add('n', {}, id, OPTS);
      await until(async () => (await q.counts()).completed === 3, 'the three jobs completed together');
      expect([...started].sort()).toEqual(['x', 'y', 'z']);
    } finally {
      release();
    }
  });

  it('runs no more jobs at once than its concurrency', async () => {
    const q = open();
    const { started, release } = together(q, 2, 1);
    try {
      await q.add('n', {}, 'x', OPTS);
      await q.add('n', {}, 'y', OPTS);
      await until(() => started.size === 1, 'the first job started');
      expect(await q.counts()).toMatchObject({ active: 1, waiting: 1, completed: 0 });
    } finally {
      release();
    }
    await until(async () => (await q.counts()).completed === 2, 'both jobs completed once released');
  });

  it('takes a new concurrency for the jobs it takes next', async () => {
    const q = open();
    const { started, release } = together(q, 2, 1);
    try {
      q.setConcurrency(2);
      await q.add('n', {}, 'x', OPTS);
      await q.add('n', {}, 'y', OPTS);
      await until(async () => (await q.counts()).completed === 2, 'both jobs completed together');
      expect([...started].sort()).toEqual(['x', 'y']);
    } finally {
      release();
    }
  });
}

/** Retries, failures for good, the failed list and what is kept. */
function failureCases({ open, stateOf }: QueueCases): void {
  it('retries a failing job after its backoff, counting attempts, until it succeeds', async () => {
    const q = open();
    const { seen, events } = recorder();
    const made: number[] = [];
    q.work(async (j) => {
      made.push(j.attemptsMade);
      if (j.attemptsMade < 2) throw new Error(`attempt ${j.attemptsMade + 1} failed`);
    }, { concurrency: 1, events });
    await q.add('n', {}, 'flaky', { ...OPTS, attempts: 4 });
    await until(async () => (await stateOf(q, 'flaky')) === 'completed', 'the job completed');
    await until(() => seen.length === 3, 'the completed event'); // BullMQ emits it after the job's state has moved
    expect(made).toEqual([0, 1, 2]);
    expect(seen).toEqual(['failed flaky 1 attempt 1 failed', 'failed flaky 2 attempt 2 failed', 'completed flaky 3']);
    expect(await q.counts()).toMatchObject({ completed: 1, failed: 0, delayed: 0 });
  });

  it('fails a job for good once it used its attempts: kept with its reason, listed, counted', async () => {
    const q = open();
    const { seen, events } = recorder();
    q.work(async () => {
      throw new Error('nope');
    }, { concurrency: 1, events });
    await q.add('sms', { to: ['+1'] }, 'doomed', { ...OPTS, attempts: 2 });
    await until(async () => (await stateOf(q, 'doomed')) === 'failed', 'the job failed');
    await until(() => seen.length === 2, 'the failed events'); // emitted after the job's state has moved
    expect(seen).toEqual(['failed doomed 1 nope', 'failed doomed 2 nope']);
    const job = await q.get('doomed');
    expect(job).toMatchObject({ name: 'sms', data: { to: ['+1'] }, attemptsMade: 2, attempts: 2, failedReason: 'nope' });
    expect(job!.finishedAt).not.toBeNull();
    const { jobs, count } = await q.failed(0);
    expect(count).toBe(1);
    expect(jobs.map((j) => j.id)).toEqual(['doomed']);
    expect(await q.counts()).toMatchObject({ failed: 1, completed: 0 });
  });

  it('lists failed jobs newest first, from skip, limit of them, with the count of all', async () => {
    const q = open();
    q.work(async () => {
      throw new Error('no');
    }, { concurrency: 1, events: recorder().events });
    for (const id of ['f1', 'f2', 'f3']) {
      await q.add('n', {}, id, OPTS);
      await until(async () => (await stateOf(q, id)) === 'failed', `${id} failed`);
    }
    expect((await q.failed(0)).jobs.map((j) => j.id)).toEqual(['f3', 'f2', 'f1']);
    expect(await q.failed(1, 1)).toMatchObject({ count: 3, jobs: [{ id: 'f2' }] });
    expect((await q.failed(2, 10)).jobs.map((j) => j.id)).toEqual(['f1']);
  });

  it('retries a failed job with fresh attempts; refuses to retry one that is not failed', async () => {
    const q = open();
    let healthy = false;
    const made: number[] = [];
    q.work(async (j) => {
      made.push(j.attemptsMade);
      if (!healthy) throw new Error('down');
    }, { concurrency: 1, events: recorder().events });
    await q.add('n', {}, 'again', { ...OPTS, attempts: 2 });
    await q.add('n', {}, 'fine', OPTS);
    await until(async () => (await q.counts()).failed === 2, 'both jobs failed');
    healthy = true;
    await q.retry('again');
    await until(async () => (await stateOf(q, 'again')) === 'completed', 'the retried job completed');
    expect(made.slice(-1)).toEqual([0]);
    expect(await q.failed(0)).toMatchObject({ count: 1, jobs: [{ id: 'fine' }] });
    await q.retry('fine');
    await until(async () => (await stateOf(q, 'fine')) === 'completed', 'the other job completed');
    await expect(q.retry('fine')).rejects.toThrow();
    await expect(q.retry('never-added')).rejects.toThrow();
  });
}

/** What is kept of finished jobs. */
function keptCases({ open, stateOf }: QueueCases): void {
  it('keeps only the newest completed and failed jobs; a dropped id may be added again', async () => {
    const q = open();
    const runs: string[] = [];
    q.work(async (j) => {
      runs.push(j.id);
      if (j.data.fail) throw new Error('x');
    }, { concurrency: 1, events: recorder().events });
    const keep = { ...OPTS, keepCompleted: 2, keepFailed: 1 };
    for (const [id, fail] of [['c1', false], ['c2', false], ['c3', false], ['d1', true], ['d2', true]] as const) {
      await q.add('n', { fail }, id, keep);
      await until(async () => ['completed', 'failed'].includes((await stateOf(q, id)) ?? ''), `${id} finished`);
    }
    expect(await q.counts()).toMatchObject({ completed: 2, failed: 1 });
    expect(await q.get('c1')).toBeNull();
    expect(await q.get('d1')).toBeNull();
    expect((await q.get('c3'))?.state).toBe('completed');
    await q.add('n', { fail: false }, 'c1', keep);
    await until(async () => (await stateOf(q, 'c1')) === 'completed', 'c1 completed again');
    expect(runs.filter((r) => r === 'c1')).toHaveLength(2);
  });
}

/** Handles sharing a queue, and closing with jobs running or hung. */
function closingCases({ open, stateOf }: QueueCases): void {
  it('shares its jobs between handles: one adds, another runs, a third reads', async () => {
    const [producer, worker, reader] = [open(), open(), open()];
    const runs: string[] = [];
    worker.work(async (j) => {
      runs.push(j.id);
    }, { concurrency: 1, events: recorder().events });
    await producer.add('n', { from: 'producer' }, 'shared', OPTS);
    await until(async () => (await stateOf(reader, 'shared')) === 'completed', 'the job completed');
    expect(runs).toEqual(['shared']);
    expect((await reader.get('shared'))?.data).toEqual({ from: 'producer' });
  });

  it('closes after the jobs it runs end within the wait; then refuses calls, and closes twice', async () => {
    const [q, other] = [open(), open()];
    const release = gate();
    let started = false;
    q.work(async () => {
      started = true;
      await release.opened;
    }, { concurrency: 1, events: recorder().events });
    await q.add('n', {}, 'running', OPTS);
    await until(() => started, 'the job started');
    await expect(q.probe()).resolves.toBeUndefined();
    const closed = q.close(10_000);
    release.open();
    await closed;
    expect(await stateOf(other, 'running')).toBe('completed');
    await expect(q.add('n', {}, 'late', OPTS)).rejects.toThrow();
    await expect(q.probe()).rejects.toThrow();
    await expect(q.close(10)).resolves.toBeUndefined();
    expect(await other.get('late')).toBeNull();
  });

  it('closes while a job hangs past the wait, abandoning it: the abandoned run does not complete it', async () => {
    const [q, other] = [open(), open()];
    const release = gate();
    let started = false;
    q.work(async () => {
      started = true;
      await release.opened;
    }, { concurrency: 1, events: recorder().events });
    await q.add('n', {}, 'hung', OPTS);
    await until(() => started, 'the job started');
    await q.close(100);
    release.open();
    await new Promise((r) => setTimeout(r, 200));
    expect(await stateOf(other, 'hung')).not.toBe('completed');
  });
}
