// BullMQ index jobs: one per tuple of /relations/many, per definition change, and per reconstruct.
import { Queue, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Tuple } from '../engine/ids.js';
import type { Logger } from '../log.js';
import type { Indexer } from '../services/authorization/indexer.js';
import type { Revisions } from '../services/authorization/revisions.js';
import type { AuthzStore, IndexStore } from '../stores/ports.js';

type JobData =
  | { kind: 'tuple'; tuple: Tuple; revision: number }
  | { kind: 'type'; type: string; revision: number }
  | { kind: 'reconstruct'; soft: boolean; revision: number };

const QUEUE = 'authz-index';

export class IndexJobs {
  private readonly queue: Queue<JobData>;
  private worker: Worker<JobData> | null = null;

  constructor(private readonly deps: {
    connection: Redis; prefix: string; indexer: Indexer; index: IndexStore; store: AuthzStore; revisions: Revisions; log: Logger;
  }) {
    this.queue = new Queue<JobData>(QUEUE, { connection: deps.connection, prefix: `${deps.prefix}:bull` });
  }

  private remaining = (revision: number) => `${this.deps.prefix}:jobs:${revision}`;

  /** Queues one job per tuple; the revision counts as applied when the last one is done. */
  async enqueue(tuples: Tuple[], revision: number): Promise<void> {
    if (tuples.length === 0) { await this.deps.revisions.end(revision); return; }
    await this.deps.connection.set(this.remaining(revision), tuples.length, 'EX', 86400);
    await this.queue.addBulk(tuples.map((tuple) => ({
      name: 'tuple', data: { kind: 'tuple' as const, tuple, revision },
      opts: { attempts: 5, backoff: { type: 'exponential', delay: 200 }, removeOnComplete: 1000, removeOnFail: 1000 },
    })));
  }

  async type(type: string, revision: number): Promise<void> {
    await this.deps.revisions.begin(revision);
    await this.queue.add('type', { kind: 'type', type, revision }, { attempts: 5, backoff: { type: 'exponential', delay: 200 }, removeOnComplete: 1000, removeOnFail: 1000 });
  }

  async reconstruct(soft: boolean, revision: number): Promise<void> {
    await this.deps.revisions.begin(revision);
    await this.queue.add('reconstruct', { kind: 'reconstruct', soft, revision }, { attempts: 1, removeOnComplete: 100, removeOnFail: 100 });
  }

  async counts() {
    const c = await this.queue.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed');
    return { queued: (c.waiting ?? 0) + (c.delayed ?? 0), active: c.active ?? 0, done: c.completed ?? 0, failed: c.failed ?? 0 };
  }

  start(workerConnection: Redis): void {
    this.worker = new Worker<JobData>(QUEUE, (job) => this.process(job), {
      connection: workerConnection, prefix: `${this.deps.prefix}:bull`, concurrency: 1,
    });
    this.worker.on('failed', (job, err) => {
      this.deps.log.error({ job: job?.name, err: err.message, attempts: job?.attemptsMade }, 'index job failed');
      if (job && job.attemptsMade >= (job.opts.attempts ?? 1)) void this.finish(job.data);
    });
    this.worker.on('error', (err) => this.deps.log.warn({ err: err.message }, 'index worker error'));
  }

  private async finish(data: JobData): Promise<void> {
    if (data.kind === 'tuple') {
      const left = await this.deps.connection.decr(this.remaining(data.revision));
      if (left > 0) return;
    }
    await this.deps.revisions.end(data.revision);
  }

  private async process(job: Job<JobData>): Promise<void> {
    const d = job.data;
    if (d.kind === 'tuple') await this.deps.indexer.tupleChanged(d.tuple);
    else if (d.kind === 'type') await this.deps.indexer.typeChanged(d.type);
    else await this.rebuild(d.soft, d.revision);
    await this.finish(d);
  }

  private async rebuild(soft: boolean, revision: number): Promise<void> {
    const { index, indexer, store, log, revisions } = this.deps;
    const meta = await index.meta();
    const started = Date.now();
    let lastLog = 0;
    let lastBeat = Date.now();
    const progress = (done: number, total: number) => {
      // Pending entries expire (a crashed process must not hold readers forever), so a long rebuild renews its own.
      if (Date.now() - lastBeat > 30_000) { lastBeat = Date.now(); void revisions.begin(revision); }
      if (Date.now() - lastLog < 2000 && done < total) return;
      lastLog = Date.now();
      log.info({ done, total, soft, seconds: Math.round((Date.now() - started) / 1000) }, 'index rebuild progress');
    };
    if (soft) {
      await indexer.rebuild(meta.gen, progress);
    } else {
      const gen = Math.max(meta.gen, meta.building ?? 0) + 1;
      const from = await store.currentRevision();
      await index.setBuilding(gen);
      await indexer.rebuild(gen, progress);
      // Writes during the build went to both generations; replaying what changed since the start
      // mends any object the build computed from tuples read before those writes.
      await indexer.replay(gen, await store.changesSince(from));
      await index.switchGeneration(gen);
      await indexer.replay(gen, await store.changesSince(from));
      const dropped = await index.dropGeneration(meta.gen);
      log.info({ gen, dropped }, 'switched to the new index generation');
    }
    log.info({ soft, seconds: (Date.now() - started) / 1000 }, 'index rebuild done');
  }

  async close(): Promise<void> {
    await this.worker?.close();
    await this.queue.close();
  }
}
