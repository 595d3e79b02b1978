// Re-indexing after a definition change: the type's tuples and grants page by page, each batch alone under every lease.
import type { Logger } from '../../log.js';
import type { ChangeEntry, ChangeLog } from '../../stores/ports/change-log.js';
import type { GraphStore } from '../../stores/ports/graph.js';
import type { DecisionCache } from './decision-cache.js';
import type { IndexBatch } from './index-batch.js';
import type { ModelSource } from './model-source.js';
import type { Reindexing } from './reindexing.js';

/** Objects of the changed type listed a page at a time. */
const REINDEX_OBJECTS = 500;

/** What the applier lends the re-index: its exclusive hold of every lease, and the generations units write. */
export interface ExclusiveWork {
  exclusive<T>(work: () => Promise<T>): Promise<T>;
  gens(): Promise<number[]>;
}

export interface DefinitionDeps {
  graph: GraphStore;
  batch: IndexBatch;
  cache: DecisionCache;
  log: ChangeLog;
  logger: Logger;
  models: ModelSource;
  reindexing?: Reindexing;
  /** Tuples one exclusive batch applies (the applier's unit size). */
  batchTuples: number;
}

/**
 * Definition changes: every tuple and grant touching the type, in batches, under the new model. Flats
 * that read any object of those tuples are recomputed with them (their dependencies say which).
 */
export class DefinitionApplier {
  private chain: Promise<unknown> = Promise.resolve();
  private stopped = false;
  constructor(private readonly applier: ExclusiveWork, private readonly deps: DefinitionDeps) {}

  run(entry: ChangeEntry): Promise<void> {
    const run = this.chain.then(() => this.reindex(entry));
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Ends the re-index under way at its next batch; resolves once it has (a stop must not leave it publishing). */
  stop(): Promise<unknown> {
    this.stopped = true;
    return this.chain;
  }

  private async reindex(entry: ChangeEntry): Promise<void> {
    const { graph, batch, cache, log, logger } = this.deps;
    const type = entry.type!;
    const started = Date.now();
    let counts = { tuples: 0, grants: 0 };
    // A page of the type's objects at a time, so a type of a million tuples is never held whole. The first page is listed
    // under the lease: a unit that wrote before it is listed, one after it reloads the new model (and so indexes its own
    // tuples under it), which is why the later pages need no lease to be listed.
    let page = await this.applier.exclusive(() => graph.touchingType(type, '', REINDEX_OBJECTS));
    for (;;) {
      const all = [...page.tuples.map((t) => ({ t, grant: false })), ...page.grants.map((t) => ({ t, grant: true }))];
      counts = { tuples: counts.tuples + page.tuples.length, grants: counts.grants + page.grants.length };
      // A type nothing refers to yet (a new one, usually) has nothing to recompute: writes from now on read the new model.
      for (let i = 0; i < all.length; i += this.deps.batchTuples) {
        if (this.stopped) throw new Error('stopped');
        const part = all.slice(i, i + this.deps.batchTuples);
        await this.applier.exclusive(async () => {
          const model = await this.deps.models.reload();
          const r = await batch.apply({
            tuples: part.filter((p) => !p.grant).map((p) => p.t),
            grants: part.filter((p) => p.grant).map((p) => p.t),
            gens: await this.applier.gens(),
            model,
            skipProjection: true,
            modelChanged: true,
          });
          await cache.bump(r.touched, true, entry.revision);
        });
      }
      if (page.next === null) break;
      if (this.stopped) throw new Error('stopped');
      page = await graph.touchingType(type, page.next, REINDEX_OBJECTS);
    }
    await cache.bump([], true, entry.revision);
    await log.done([entry.revision]);
    await this.deps.reindexing?.end([entry.revision]);
    logger.info({ type, ...counts, seconds: (Date.now() - started) / 1000 }, 're-indexed a changed definition');
  }
}
