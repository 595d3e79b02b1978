// A queue of named jobs that workers run, with retries and exponential backoff, keyed by ids the caller chooses.

/** A job as a worker or a lookup sees it; `data` is stored as JSON (a Date comes back a string). */
export interface Job<T> {
  id: string;
  /** What kind of job it is (for the send queue, its channel). */
  name: string;
  data: T;
  /** Attempts that failed or finished: 0 during the first attempt, 1 during the second; every attempt once it failed for good. */
  attemptsMade: number;
  /** Attempts it is allowed, the first included. */
  attempts: number;
  /** When it was added, and when it finished (completed, or failed for the last time): ms since the epoch. */
  createdAt: number;
  finishedAt: number | null;
  /** The error message of its latest failed attempt; '' when none failed. */
  failedReason: string;
}

/** Where a job is: waiting for a worker, running, delayed (waiting for a retry), completed or failed for good. */
export type JobState = 'waiting' | 'active' | 'delayed' | 'completed' | 'failed' | 'prioritized' | 'waiting-children' | 'unknown';

export interface JobOptions {
  attempts: number;
  /** The n-th retry waits backoffMs × 2^(n-1). */
  backoffMs: number;
  /** How many completed, and how many failed, jobs are kept (the newest): an older one is dropped, and its id may be added again. */
  keepCompleted: number;
  keepFailed: number;
}

export interface WorkerEvents<T> {
  completed(job: Job<T>): void;
  /** After each failed attempt (`job.attemptsMade` counts it): the last one when attemptsMade reaches attempts. */
  failed(job: Job<T>, error: Error): void;
  /** The store failing under the worker; it reconnects and goes on by itself. */
  error(error: Error): void;
  /** Connected (again). */
  ready(): void;
}

export type JobCounts = Record<'waiting' | 'active' | 'delayed' | 'completed' | 'failed', number>;

/**
 * One handle on a named queue; handles opened on the same name and store (in one process or several) share its jobs.
 * With concurrency 1 and no retries, jobs run in the order they were added.
 */
export interface JobQueue<T> {
  /** Adds a job under `id`; when a job with this id is in the queue already (in any state, until dropped), nothing changes. */
  add(name: string, data: T, id: string, options: JobOptions): Promise<void>;
  /** The job and its state; null when there is none under `id`. */
  get(id: string): Promise<(Job<T> & { state: JobState }) | null>;
  /** The jobs failed for good, newest first, from `skip` on (`limit` of them, or all), and how many there are. */
  failed(skip: number, limit?: number): Promise<{ jobs: Job<T>[]; count: number }>;
  /** Runs a job failed for good again, with a fresh set of attempts; throws when the job is not failed. */
  retry(id: string): Promise<void>;
  counts(): Promise<JobCounts>;
  /** Throws while the store does not answer. */
  probe(): Promise<void>;
  /**
   * Starts this handle's worker (once): it runs `run` on the queue's jobs, at most `concurrency` at once. A job whose
   * `run` throws is retried after its backoff until it used its attempts, then is failed for good.
   */
  work(run: (job: Job<T>) => Promise<unknown>, options: { concurrency: number; events: WorkerEvents<T> }): void;
  /** Applies to the jobs the worker takes from now on (a worker running as many as it may takes none until one ends). */
  setConcurrency(concurrency: number): void;
  /**
   * Stops the worker taking jobs, waits up to `waitMs` for the jobs it is running, then abandons them (their runs go
   * on until they return, but do not finish the job; it is run again later by this queue's workers, so a job may run
   * more than once), and closes the handle: later calls reject. Resolves even while the store is down; closing twice is fine.
   */
  close(waitMs: number): Promise<void>;
}

/** Opens a handle on the queue named `name`; it connects now (the worker's connection when it starts working). */
export type OpenJobQueue = <T>(name: string) => JobQueue<T>;
