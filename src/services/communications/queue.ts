// The send queue, on the job queue port (BullMQ on the project's Redis). Idempotent jobs (the key and the recipients make the job id), retries with exponential
// backoff, a bounded dead-letter list (the queue's failed set) that operators read and replay; delivery is recorded once
// per job id in MongoDB, so a job run again after a lost lock or a Redis restart is not delivered twice. MongoDB keeps each
// acknowledged send until its delivery, and a sweep queues again any job a crashed Redis lost.
import { createHash, randomUUID } from 'node:crypto';
import { AppError } from '../../errors.js';
import { within } from '../deadline.js';
import type { Logger } from '../../log.js';
import type { Channel, CommunicationStores } from '../../stores/ports/communications.js';
import type { Job, JobOptions, JobQueue, OpenJobQueue } from '../../stores/ports/job-queue.js';
import type { CommunicationsConfig } from '../config/communications-config.js';
import type { EmailMessage, Message, Provider, PushMessage, SmsMessage } from './provider.js';

export type SendRequest = EmailMessage | Omit<PushMessage, 'devices'> | SmsMessage;
export interface Enqueued {
  jobId: string;
  created: boolean;
  state: string;
}
export interface DeadLetter {
  jobId: string;
  channel: string;
  request: SendRequest;
  failedReason: string;
  attemptsMade: number;
  createdAt: string;
  failedAt: string | null;
}
export interface QueueEventsSink {
  completed(channel: string): void;
  failedAttempt(channel: string): void;
  deadLettered(channel: string): void;
}

const QUEUE = 'communications';
/** A queue call that gets no answer within this answers 503 (Redis down or restarting); the key makes a retry safe. */
const CALL_TIMEOUT_MS = 5000;
/** A send still undelivered this long after it was acknowledged is looked for in the queue (well past CALL_TIMEOUT_MS, so never one being added). */
const SWEEP_AFTER_MS = 15_000;
/** How often the sweep runs, and how many sends it looks at each time (it goes on from there next time). */
const SWEEP_EVERY_MS = 5000;
const SWEEP_BATCH = 200;
/** How long stopping waits for messages being sent before it abandons them (they are run again, and skipped if delivered). */
const CLOSE_WAIT_MS = 5000;

/** Whom a send goes to, one way of writing it (email addresses in lower case, sorted, once each): its key's scope. */
const recipientsOf = (r: SendRequest): string[] => (r.channel === 'push' ? [`user ${r.userId}`] : [...new Set(r.to.map((t) => t.toLowerCase()))].sort());

/**
 * The job id: with an idempotency key, the channel, the key and a digest of the recipients, so the same key sent to
 * other recipients is another job while the same request again is the same one; without a key, a fresh id.
 */
export function jobIdOf(request: SendRequest, key?: string): string {
  if (key === undefined) return `${request.channel}-${randomUUID()}`;
  const to = createHash('sha256').update(recipientsOf(request).join('\n')).digest('base64url').slice(0, 16);
  return `${request.channel}-${key}-${to}`;
}

const redisWithin = <T>(p: Promise<T>, what: string): Promise<T> =>
  within(p, CALL_TIMEOUT_MS, () => new AppError('STORE_UNAVAILABLE', `Redis did not answer ${what} within ${CALL_TIMEOUT_MS} ms; retry with the same idempotency key`));

export class SendQueue {
  private started: JobQueue<SendRequest> | null = null;
  private lastWorkerError = '';
  private sweeper: NodeJS.Timeout | null = null;
  private sweeping = false;
  private sweepCursor: { createdAt: Date; _id: string } | null = null;

  constructor(private readonly deps: {
    jobs: OpenJobQueue;
    stores: CommunicationStores;
    log: Logger;
    events: QueueEventsSink;
    config(): CommunicationsConfig;
    provider(channel: Channel): Provider;
  }) {}

  /** The queue, once started: nothing connects before the module starts, so an app that fails to start leaves no connection behind. */
  private get queue(): JobQueue<SendRequest> {
    if (!this.started) throw new Error('the send queue is not started');
    return this.started;
  }

  start(): void {
    // A call made while Redis is down, or in flight when it goes, fails at once (503).
    this.started = this.deps.jobs<SendRequest>(QUEUE);
    const o = this.deps.config().orchestration;
    this.started.work((job) => this.deliver(job), { concurrency: o.concurrency, events: {
      error: (err) => {
        if (err.message === this.lastWorkerError) return;
        this.lastWorkerError = err.message;
        this.deps.log.warn({ err: err.message }, 'communications worker: queue error (it reconnects by itself)');
      },
      ready: () => {
        this.lastWorkerError = '';
      },
      completed: (job) => this.deps.events.completed(job.name),
      failed: (job, err) => {
        this.deps.events.failedAttempt(job.name);
        if (job.attemptsMade >= job.attempts) {
          this.deps.events.deadLettered(job.name);
          this.deps.log.warn({ jobId: job.id, channel: job.name, attempts: job.attemptsMade, err: err.message }, 'message dead-lettered');
          // Not queued again by the sweep once the dead-letter list drops it; if this is lost, the sweep marks it itself.
          this.deps.stores.pending.setDead(job.id, true).catch(() => undefined);
        }
      },
    } });
    this.sweeper = setInterval(() => {
      void this.sweep();
    }, SWEEP_EVERY_MS);
    this.sweeper.unref();
  }

  private jobOptions(): JobOptions {
    const o = this.deps.config().orchestration;
    return { attempts: o.attempts, backoffMs: o.backoff.delayMs, keepCompleted: o.keepCompleted, keepFailed: o.deadLetterMax };
  }

  /**
   * Queues again the acknowledged sends that are neither delivered nor in the queue (Redis lost them), oldest first, a
   * batch at a time. A send whose delivery is recorded is forgotten; a job added twice is one job (its id), and one run
   * twice is delivered once (the outbox).
   */
  async sweep(): Promise<number> {
    if (this.sweeping || !this.started) return 0;
    this.sweeping = true;
    let requeued = 0;
    try {
      const { pending, outbox } = this.deps.stores;
      const batch = await pending.olderThan(new Date(Date.now() - SWEEP_AFTER_MS), this.sweepCursor, SWEEP_BATCH);
      this.sweepCursor = batch.length === SWEEP_BATCH ? { createdAt: batch.at(-1)!.createdAt, _id: batch.at(-1)!._id } : null;
      for (const p of batch) {
        if (await outbox.has(p._id)) {
          await pending.remove(p._id);
          continue;
        }
        const job = await redisWithin(this.queue.get(p._id), 'a job lookup');
        if (job) {
          if (job.state === 'failed' && job.attemptsMade >= job.attempts) await pending.setDead(p._id, true);
          continue;
        }
        await redisWithin(this.queue.add(p.channel, p.request as unknown as SendRequest, p._id, this.jobOptions()), 'adding a job');
        requeued++;
      }
      if (requeued > 0) this.deps.log.warn({ requeued }, "communications: queued again sends the queue's Redis lost");
    } catch (e) {
      // Redis or MongoDB down: the next sweep tries again from the start.
      this.sweepCursor = null;
      this.deps.log.debug({ err: (e as Error).message }, 'communications sweep failed; retried');
    } finally {
      this.sweeping = false;
    }
    return requeued;
  }

  /** Applies new orchestration settings: concurrency now, attempts and backoff to jobs added from now on. */
  tune(config: CommunicationsConfig): void {
    this.started?.setConcurrency(config.orchestration.concurrency);
  }

  /**
   * Adds a send job; with a key, a repeated call to the same recipients finds the job (or its delivery) instead of adding
   * another. MongoDB records the send before Redis does, so an acknowledged send outlives a Redis that loses its last writes.
   */
  async enqueue(request: SendRequest, key?: string): Promise<Enqueued> {
    const jobId = jobIdOf(request, key);
    const { outbox, pending } = this.deps.stores;
    if (key) {
      if (await outbox.has(jobId)) return { jobId, created: false, state: 'completed' };
      const existing = await redisWithin(this.queue.get(jobId), 'a job lookup');
      if (existing) return { jobId, created: false, state: existing.state };
    }
    const recorded = await pending.add({ _id: jobId, channel: request.channel, request: { ...request }, createdAt: new Date(), dead: false });
    try {
      await redisWithin(this.queue.add(request.channel, request, jobId, this.jobOptions()), 'adding a job');
    } catch (e) {
      // A send answered 503 is not sent later by the sweep behind the caller's back (a retry with its key sends it).
      if (recorded) await pending.remove(jobId).catch(() => undefined);
      throw e;
    }
    return { jobId, created: true, state: 'waiting' };
  }

  /** One job run: skipped when its delivery is recorded already; a push stores the user's notification first. */
  private async deliver(job: Job<SendRequest>): Promise<{ delivered: boolean }> {
    const id = job.id;
    const { stores } = this.deps;
    if (await stores.outbox.has(id)) return { delivered: false };
    const request = job.data;
    let message: Message;
    if (request.channel === 'push') {
      const devices = (await stores.tokens.ofUser(request.userId)).map((t) => t._id);
      message = { ...request, devices };
      await stores.notifications.insert({
        _id: id,
        userId: request.userId,
        title: request.title,
        body: request.body,
        ...(request.data ? { data: request.data } : {}),
        read: false,
        createdAt: new Date(job.createdAt),
      });
    } else {
      message = request;
    }
    const provider = this.deps.provider(request.channel);
    const sent = await provider.send(message);
    await stores.outbox.record({
      _id: id,
      channel: request.channel,
      provider: provider.name,
      to: message.channel === 'push' ? message.devices : message.to,
      body: message.channel === 'email' ? (message.text ?? '') : message.body,
      ...(message.channel === 'email' ? { subject: message.subject, ...(message.html ? { html: message.html } : {}) } : {}),
      ...(message.channel === 'push' ? { subject: message.title, userId: message.userId, ...(message.data ? { data: message.data } : {}) } : {}),
      ...(sent.messageId ? { providerMessageId: sent.messageId } : {}),
      attempts: job.attemptsMade + 1,
      sentAt: new Date(),
    });
    // The sweep forgets it too if this is lost.
    await stores.pending.remove(id).catch(() => undefined);
    return { delivered: true };
  }

  /** The dead-letter list: jobs that used every attempt, newest first. */
  async deadLetters(skip: number, limit: number): Promise<{ jobs: DeadLetter[]; count: number }> {
    const { jobs, count } = await redisWithin(this.queue.failed(skip, limit), 'listing dead letters');
    return {
      count,
      jobs: jobs.map((j) => ({
        jobId: j.id,
        channel: j.name,
        request: j.data,
        failedReason: j.failedReason,
        attemptsMade: j.attemptsMade,
        createdAt: new Date(j.createdAt).toISOString(),
        failedAt: j.finishedAt ? new Date(j.finishedAt).toISOString() : null,
      })),
    };
  }

  /** Sends dead-lettered jobs again with a fresh set of attempts: the given ones, or every one. */
  async replay(ids: string[] | 'all'): Promise<{ replayed: string[]; notFound: string[] }> {
    const replayed: string[] = [];
    const notFound: string[] = [];
    const targets = ids === 'all' ? (await redisWithin(this.queue.failed(0), 'listing dead letters')).jobs.map((j) => j.id) : ids;
    for (const id of targets) {
      const job = await redisWithin(this.queue.get(id), 'a job lookup');
      if (!job || job.state !== 'failed') {
        notFound.push(id);
        continue;
      }
      await this.deps.stores.pending.setDead(id, false);
      await redisWithin(this.queue.retry(id), 'replaying a job');
      replayed.push(id);
    }
    return { replayed, notFound };
  }

  /** Throws while the queue's Redis does not answer (for /ready); the producer's connection fails at once while it is down. */
  async probe(): Promise<void> {
    if (!this.started) throw new Error('the send queue is not started');
    await this.started.probe();
  }

  /** Jobs per state, for /metrics (the failed set is the dead-letter list). */
  async counts(): Promise<Record<string, number>> {
    const c = await redisWithin(this.queue.counts(), 'counting jobs');
    return { waiting: c.waiting, active: c.active, delayed: c.delayed, completed: c.completed, dead_lettered: c.failed };
  }

  /** Stops the sweep, then the queue: jobs being sent get CLOSE_WAIT_MS to finish, then are abandoned (run again, and skipped if delivered). */
  async stop(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    await this.started?.close(CLOSE_WAIT_MS);
  }
}
