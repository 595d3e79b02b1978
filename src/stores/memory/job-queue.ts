// Job queues in memory, as the job queue port promises them: the twin of the BullMQ queue for tests.
import type { Job, JobCounts, JobOptions, JobQueue, JobState, OpenJobQueue, WorkerEvents } from '../ports/job-queue.js';

/** A job as the queue keeps it: its data as JSON (as Redis keeps it), and which run of it counts (an abandoned one does not). */
interface Entry {
  job: Omit<Job<unknown>, 'data'>;
  json: string;
  state: JobState;
  options: JobOptions;
  run: number;
  timer?: NodeJS.Timeout;
}

const shown = <T>(e: Entry): Job<T> => ({ ...e.job, data: JSON.parse(e.json) as T });

/** One named queue, shared by every handle opened on its name (as processes share a Redis). */
class SharedQueue {
  readonly jobs = new Map<string, Entry>();
  private readonly waiting: string[] = [];
  /** Finished jobs, oldest first. */
  private readonly completed: string[] = [];
  private readonly failed: string[] = [];
  readonly workers = new Set<MemoryWorker>();

  add(name: string, data: unknown, id: string, options: JobOptions): void {
    if (this.jobs.has(id)) return;
    const job = { id, name, attemptsMade: 0, attempts: options.attempts, createdAt: Date.now(), finishedAt: null, failedReason: '' };
    this.jobs.set(id, { job, json: JSON.stringify(data ?? null), state: 'waiting', options, run: 0 });
    this.wait(id);
  }

  private wait(id: string): void {
    this.jobs.get(id)!.state = 'waiting';
    this.waiting.push(id);
    for (const w of this.workers) w.pump();
  }

  /** The next waiting job, now active under a new run number. */
  take(): Entry | undefined {
    const id = this.waiting.shift();
    if (id === undefined) return undefined;
    const e = this.jobs.get(id)!;
    e.state = 'active';
    e.run++;
    return e;
  }

  /** A run's outcome; a run that is not the job's current one (abandoned, since run again) changes nothing. */
  settle(e: Entry, run: number, error: Error | null, events: WorkerEvents<unknown>): void {
    if (e.run !== run || e.state !== 'active' || this.jobs.get(e.job.id) !== e) return;
    e.job.attemptsMade++;
    if (!error) {
      this.finish(e, 'completed', this.completed, e.options.keepCompleted);
      events.completed(shown(e));
      return;
    }
    e.job.failedReason = error.message;
    if (e.job.attemptsMade < e.job.attempts) {
      e.state = 'delayed';
      e.timer = setTimeout(() => {
        e.timer = undefined;
        if (this.jobs.get(e.job.id) === e) this.wait(e.job.id);
      }, e.options.backoffMs * 2 ** (e.job.attemptsMade - 1));
      e.timer.unref();
    } else {
      this.finish(e, 'failed', this.failed, e.options.keepFailed);
    }
    events.failed(shown(e), error);
  }

  private finish(e: Entry, state: 'completed' | 'failed', list: string[], keep: number): void {
    e.state = state;
    e.job.finishedAt = Date.now();
    list.push(e.job.id);
    // The oldest beyond `keep` are dropped, and their ids may be added again.
    while (list.length > keep) this.jobs.delete(list.shift()!);
  }

  /** A run abandoned by a closing worker goes back to waiting (ahead of the others) for any worker to run again. */
  abandon(e: Entry, run: number): void {
    if (e.run !== run || e.state !== 'active' || this.jobs.get(e.job.id) !== e) return;
    e.state = 'waiting';
    this.waiting.unshift(e.job.id);
    for (const w of this.workers) w.pump();
  }

  retry(id: string): void {
    const e = this.jobs.get(id);
    if (!e || e.state !== 'failed') throw new Error(`the job ${id} is not failed`);
    this.failed.splice(this.failed.indexOf(id), 1);
    e.job.attemptsMade = 0;
    e.job.finishedAt = null;
    this.wait(id);
  }

  failedNewestFirst(): Entry[] {
    return [...this.failed].reverse().map((id) => this.jobs.get(id)!);
  }

  counts(): JobCounts {
    const c: JobCounts = { waiting: 0, active: 0, delayed: 0, completed: 0, failed: 0 };
    for (const e of this.jobs.values()) if (e.state in c) c[e.state as keyof JobCounts]++;
    return c;
  }
}

/** A handle's worker: runs up to `concurrency` jobs at once, taking the next as one ends. */
class MemoryWorker {
  readonly running = new Map<Entry, { run: number; done: Promise<void> }>();
  stopped = false;

  constructor(private readonly queue: SharedQueue, private readonly work: (job: Job<unknown>) => Promise<unknown>, public concurrency: number,
    private readonly events: WorkerEvents<unknown>) {}

  pump(): void {
    while (!this.stopped && this.running.size < this.concurrency) {
      const e = this.queue.take();
      if (!e) return;
      const run = e.run;
      const job = shown(e);
      // Never called in the caller's turn: a worker runs a job after `add` answers, as a real one does.
      const done = Promise.resolve().then(() => this.work(job)).then(
        () => this.queue.settle(e, run, null, this.events),
        (err: unknown) => this.queue.settle(e, run, err instanceof Error ? err : new Error(String(err)), this.events),
      ).finally(() => {
        if (this.running.get(e)?.run === run) this.running.delete(e);
        this.pump();
      });
      this.running.set(e, { run, done });
    }
  }

  async close(waitMs: number): Promise<void> {
    this.stopped = true;
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((r) => {
      timer = setTimeout(r, waitMs);
    });
    await Promise.race([Promise.allSettled([...this.running.values()].map((r) => r.done)), waited]);
    clearTimeout(timer);
    this.queue.workers.delete(this);
    for (const [e, { run }] of this.running) this.queue.abandon(e, run);
    this.running.clear();
  }
}

function handle<T>(queue: SharedQueue, name: string): JobQueue<T> {
  let worker: MemoryWorker | null = null;
  let closing: Promise<void> | null = null;
  const open = () => {
    if (closing) throw new Error(`the queue ${name} is closed`);
  };
  return {
    async add(jobName, data, id, options) {
      open();
      queue.add(jobName, data, id, options);
    },
    async get(id) {
      open();
      const e = queue.jobs.get(id);
      return e ? { ...shown<T>(e), state: e.state } : null;
    },
    async failed(skip, limit) {
      open();
      const all = queue.failedNewestFirst();
      return { jobs: all.slice(skip, limit === undefined ? undefined : skip + limit).map((e) => shown<T>(e)), count: all.length };
    },
    async retry(id) {
      open();
      queue.retry(id);
    },
    async counts() {
      open();
      return queue.counts();
    },
    async probe() {
      open();
    },
    work(run, { concurrency, events }) {
      open();
      if (worker) throw new Error(`the queue ${name} has a worker already`);
      worker = new MemoryWorker(queue, run as (job: Job<unknown>) => Promise<unknown>, concurrency, events as WorkerEvents<unknown>);
      queue.workers.add(worker);
      events.ready();
      worker.pump();
    },
    setConcurrency(n) {
      if (!worker) return;
      worker.concurrency = n;
      worker.pump();
    },
    close(waitMs) {
      closing ??= worker ? worker.close(waitMs) : Promise.resolve();
      return closing;
    },
  };
}

/** Handles on in-memory queues: those opened on one name by the same opener share its jobs. */
export function memoryJobQueues(): OpenJobQueue {
  const queues = new Map<string, SharedQueue>();
  return <T>(name: string) => {
    let q = queues.get(name);
    if (!q) queues.set(name, q = new SharedQueue());
    return handle<T>(q, name);
  };
}
