// The job queue on BullMQ (Redis): a Queue for the producer's calls and, once it works, a Worker, each on its own connection.
import { Queue, Worker, type Job as BullJob } from 'bullmq';
import type { Job, JobQueue, JobState, OpenJobQueue } from '../ports/job-queue.js';
import { bullmqConnection, type QueueConnection } from '../redis/bullmq.js';

const jobOf = <T>(j: BullJob): Job<T> => ({
  id: String(j.id),
  name: j.name,
  data: j.data as T,
  attemptsMade: j.attemptsMade,
  attempts: j.opts.attempts ?? 1,
  createdAt: j.timestamp,
  finishedAt: j.finishedOn || null,
  failedReason: j.failedReason ?? '',
});

/** Handles on queues kept under `<prefix>:bull` on the Redis at `url`. */
export const bullmqJobQueues = (url: string, prefix: string): OpenJobQueue => (name) => bullmqJobQueue(url, `${prefix}:bull`, name);

/** Closes a worker, forced after `waitMs` (a forced close can hang too while Redis is down: it is started, not waited for). */
async function closeWorker(w: Worker, force: boolean, waitMs: number): Promise<void> {
  let forceTimer: NodeJS.Timeout | undefined;
  const forced = new Promise<void>((res) => {
    forceTimer = setTimeout(() => {
      w.close(true).catch(() => undefined);
      res();
    }, waitMs);
  });
  await Promise.race([w.close(force), forced]).catch(() => undefined);
  clearTimeout(forceTimer);
}

function bullmqJobQueue<T>(url: string, prefix: string, name: string): JobQueue<T> {
  // A call made while Redis is down, or in flight when it goes, fails at once.
  const producer = bullmqConnection(url, 'producer');
  const queue = new Queue(name, { connection: producer.client, prefix });
  queue.on('error', () => undefined);
  let worker: Worker | null = null;
  let consumer: QueueConnection | null = null;
  let closing: Promise<void> | null = null;

  async function closeAll(waitMs: number): Promise<void> {
    // A close waits for the jobs in hand, which never finish while Redis is down, and a close once begun cannot be
    // forced (BullMQ answers the same promise): it kept its lock-renewal timer and its blocking connection
    // reconnecting after the service stopped. So it is forced from the start when the worker is not connected.
    if (worker) await closeWorker(worker, !(consumer?.ready() ?? false), waitMs);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([queue.close(), new Promise((r) => {
      timer = setTimeout(r, waitMs);
    })]).catch(() => undefined);
    clearTimeout(timer);
    producer.close();
    consumer?.close();
  }

  return {
    async add(jobName, data, id, o) {
      await queue.add(jobName, data, {
        jobId: id,
        attempts: o.attempts,
        backoff: { type: 'exponential', delay: o.backoffMs },
        removeOnComplete: { count: o.keepCompleted },
        removeOnFail: { count: o.keepFailed },
      });
    },
    async get(id) {
      const j = await queue.getJob(id);
      if (!j) return null;
      return { ...jobOf<T>(j), state: (await j.getState()) as JobState };
    },
    async failed(skip, limit) {
      if (limit === 0) return { jobs: [], count: await queue.getFailedCount() };
      const [jobs, count] = await Promise.all([queue.getFailed(skip, limit === undefined ? -1 : skip + limit - 1), queue.getFailedCount()]);
      return { jobs: jobs.filter((j): j is NonNullable<typeof j> => Boolean(j)).map((j) => jobOf<T>(j)), count };
    },
    async retry(id) {
      const j = await queue.getJob(id);
      if (!j) throw new Error(`no job ${id} in the queue`);
      await j.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
    },
    async counts() {
      const c = await queue.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed');
      return { waiting: c.waiting ?? 0, active: c.active ?? 0, delayed: c.delayed ?? 0, completed: c.completed ?? 0, failed: c.failed ?? 0 };
    },
    async probe() {
      await producer.ping();
    },
    work(run, { concurrency, events }) {
      if (worker) throw new Error(`the queue ${name} has a worker already`);
      if (closing) throw new Error(`the queue ${name} is closed`);
      consumer = bullmqConnection(url, 'worker');
      worker = new Worker(name, (j) => run(jobOf<T>(j)), { connection: consumer.client, prefix, concurrency });
      worker.on('error', (e) => events.error(e));
      worker.on('ready', () => events.ready());
      worker.on('completed', (j) => events.completed(jobOf<T>(j)));
      worker.on('failed', (j, e) => {
        if (j) events.failed(jobOf<T>(j), e);
      });
    },
    setConcurrency(n) {
      if (worker) worker.concurrency = n;
    },
    close(waitMs) {
      closing ??= closeAll(waitMs);
      return closing;
    },
  };
}
