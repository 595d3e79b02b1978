// Index rebuilds: coalesced requests, run in batches between other index work, resumed after a crash or a stop.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseTupleText, tupleText, type Tuple } from '../../engine/ids.js';
import type { Logger } from '../../log.js';
import type { ChangeLog } from '../../stores/ports/change-log.js';
import type { Heartbeat, Lease } from '../../stores/ports/lease.js';
import type { GrantReads } from '../../stores/ports/grants.js';
import type { TupleReads } from '../../stores/ports/tuples.js';
import type { GraphStore } from '../../stores/ports/graph.js';
import type { IndexStore } from '../../stores/ports/index-store.js';
import type { RebuildRun, RebuildState, RebuildStateStore } from '../../stores/ports/rebuild-state.js';
import type { Applier } from './applier.js';
import type { DecisionCache } from './decision-cache.js';
import type { IndexBatch } from './index-batch.js';
import type { ModelSource } from './model-source.js';
import { readAhead } from '../read-ahead.js';
import { storeUnavailable } from '../../stores/unavailable.js';

/** Contract section 8: 1000 relations per resource type at a time. */
export const REBUILD_BATCH = 1000;
const CHECK_EVERY_MS = 2000;
const PROGRESS_EVERY_MS = 2000;
/** How long a rebuild waits before a batch, at most, for this process's index units to go first. */
const UNITS_FIRST_MS = 2000;
/** Its pause before a batch while any process has entries pending: twice a lease poller's 50 ms back-off. */
const OTHERS_FIRST_MS = 100;

class Stopped extends Error {
  constructor() {
    super('stopped');
  }
}

/**
 * A request is stored in MongoDB (at most one waits: a hard request absorbs a soft one) and any process
 * may run it, one at a time (a Redis lease). Each batch takes the index lease like any other unit of
 * work, so single writes, `/relations/many` and definition changes keep being applied while it runs.
 * A rebuild whose process stopped or died is started again by whichever process sees it first.
 */
export class Rebuilds {
  private timer: NodeJS.Timeout | null = null;
  private active: Promise<void> | null = null;
  private readonly abort = new AbortController();

  constructor(private readonly deps: {
    state: RebuildStateStore;
    stateLease: Lease;
    runLease: Lease;
    heartbeat: Heartbeat;
    applier: Applier;
    log: Pick<ChangeLog, 'oldestPending'>;
    store: TupleReads & GrantReads;
    graph: GraphStore;
    index: IndexStore;
    batch: IndexBatch;
    models: ModelSource;
    cache: DecisionCache;
    logger: Logger;
  }) {}

  private async mutate(change: (s: RebuildState) => void): Promise<RebuildState> {
    await this.deps.stateLease.acquire(5000);
    try {
      const s = await this.deps.state.get();
      change(s);
      await this.deps.state.put(s);
      return s;
    } finally {
      await this.deps.stateLease.release();
    }
  }

  async request(soft: boolean, revision: number): Promise<void> {
    await this.mutate((s) => {
      const softer = s.requested ? s.requested.soft && soft : soft;
      s.requested = { soft: softer, revision, at: new Date() };
    });
    void this.poll();
  }

  async status() {
    const s = await this.deps.state.get();
    return { rebuild: s.running ? {
      soft: s.running.soft,
      gen: s.running.gen,
      phase: s.running.phase,
      done: s.running.done,
      total: s.running.total,
      startedAt: s.running.startedAt,
    } : null, rebuildRequested: s.requested ? { soft: s.requested.soft } : null };
  }

  start(): void {
    const tick = async () => {
      await this.poll();
      if (!this.abort.signal.aborted) {
        this.timer = setTimeout(() => void tick(), CHECK_EVERY_MS);
        this.timer.unref();
      }
    };
    void tick();
  }

  private async poll(): Promise<void> {
    if (this.active || this.abort.signal.aborted) return;
    this.active = this.runPending().catch((e: Error) => {
      if (e instanceof Stopped) return;
      // A store that is down is an outage the health checks report, not a bug: a warning, and the rebuild resumes.
      const store = storeUnavailable(e);
      if (store) this.deps.logger.warn({ err: e.message }, `index rebuild paused: ${store} unavailable; it will be retried`);
      else this.deps.logger.error({ err: e.message }, 'index rebuild failed; it will be retried');
    }).finally(() => {
      this.active = null;
    });
    await this.active;
  }

  private async runPending(): Promise<void> {
    const { state, runLease, heartbeat } = this.deps;
    const s = await state.get();
    if (!s.requested && !s.running) return;
    if (s.running && s.running.owner !== heartbeat.owner && (await heartbeat.alive([s.running.owner])).size) return;
    if (!(await runLease.tryAcquire())) return;
    try {
      for (;;) {
        let run: RebuildRun | null = null;
        const meta = await this.deps.index.meta();
        await this.mutate((st) => {
          const next = st.running ?? st.requested;
          st.requested = st.running ? st.requested : null;
          run = next && {
            soft: next.soft,
            revision: next.revision,
            at: next.at,
            owner: heartbeat.owner,
            startedAt: new Date(),
            gen: next.soft ? meta.gen : Math.max(meta.gen, meta.building ?? 0) + 1,
            phase: 'starting',
            done: 0,
            total: 0,
          };
          st.running = run;
        });
        if (!run) return;
        await this.run(run);
        await this.mutate((st) => {
          st.running = null;
        });
      }
    } finally {
      await runLease.release();
    }
  }

  private async run(run: RebuildRun): Promise<void> {
    const { store, index, batch, applier, models, cache, logger } = this.deps;
    const started = Date.now();
    const mark = randomUUID();
    const meta = await index.meta();
    if (!run.soft) {
      // A build interrupted earlier left its generation behind; it is dropped and built anew.
      await applier.exclusive(() => index.setBuilding(run.gen));
      if (meta.building && meta.building !== run.gen) await index.dropGeneration(meta.building);
    }
    const gens = async () => (run.soft ? applier.gens() : [run.gen]);
    run.total = (await store.countTuples()) + (await store.countGrants());
    let lastSaved = 0;
    const progress = async (phase: string, add: number) => {
      run.phase = phase;
      run.done += add;
      if (run.done > run.total) run.total = run.done;
      if (Date.now() - lastSaved < PROGRESS_EVERY_MS) return;
      lastSaved = Date.now();
      await this.mutate((st) => {
        st.running = run;
      });
      logger.info({ soft: run.soft, phase, done: run.done, total: run.total, seconds: Math.round((Date.now() - started) / 1000) }, 'index rebuild progress');
    };
    const step = async (tuples: Tuple[], grants: Tuple[]) => {
      await this.unitsFirst();
      if (this.abort.signal.aborted) throw new Stopped();
      await applier.exclusive(async () => {
        const model = await models.reload();
        const r = await batch.apply({ tuples, grants, gens: await gens(), model, assumeStored: true, mark });
        if (run.soft) await cache.bump(r.touched, r.structure);
      });
    };
    // The next batch is read from MongoDB while this one is applied in Neo4j.
    for await (const part of readAhead(store.scanTuples(REBUILD_BATCH))) {
      await step(part, []);
      await progress('tuples', part.length);
    }
    for await (const part of readAhead(store.scanGrants(REBUILD_BATCH))) {
      await step([], part);
      await progress('grants', part.length);
    }
    await this.sweep(mark);
    if (!run.soft) {
      await applier.exclusive(() => index.switchGeneration(run.gen));
      await cache.bump([], true);
      logger.info({ gen: run.gen }, 'switched to the new index generation');
      // The switch is done: a failure while dropping the old generation must not make the whole rebuild run again.
      try {
        const dropped = await index.dropGeneration(meta.gen);
        logger.info({ gen: meta.gen, dropped }, 'dropped the old index generation');
      } catch (e) {
        logger.error({ gen: meta.gen, err: (e as Error).message }, 'could not drop the old index generation; its nodes are unused');
      }
    }
    await progress('done', 0);
    logger.info({ soft: run.soft, objects: run.done, seconds: (Date.now() - started) / 1000 }, 'index rebuild done');
  }

  /** Removes projection edges MongoDB no longer has: every edge the rebuild did not see is read back. */
  private async sweep(mark: string): Promise<void> {
    const { graph, store, batch, applier, models, cache } = this.deps;
    for (const grant of [false, true]) {
      let after = '';
      for (;;) {
        if (this.abort.signal.aborted) throw new Stopped();
        const page = await graph.edgesAfter(grant, after, 5000, mark);
        if (page.length === 0) break;
        after = page[page.length - 1]!.key;
        const unseen = page.filter((e) => !e.marked).map((e) => e.key);
        if (unseen.length === 0) continue;
        const stored = grant ? await store.presentGrants(unseen) : await store.presentTuples(unseen);
        const gone = unseen.filter((k) => !stored.has(k)).map((k) => parseTupleText(k)).filter((t): t is Tuple => t !== null);
        if (gone.length === 0) continue;
        await this.unitsFirst();
        await applier.exclusive(async () => {
          const model = await models.reload();
          const r = await batch.apply({ tuples: grant ? [] : gone, grants: grant ? gone : [], gens: await applier.gens(), model });
          await cache.bump(r.touched, r.structure);
        });
        this.deps.logger.info({ removed: gone.map(tupleText).slice(0, 10), count: gone.length }, 'removed projection edges MongoDB does not have');
      }
    }
  }

  /**
   * Before each batch (which holds every index lease): units queued in this process go first, for at most
   * UNITS_FIRST_MS, and while entries are pending anywhere a short pause lets another process's unit take the leases.
   * A write then waits for the batch under way, no more: each unit it needed (a plain and an arrow tuple make two)
   * could wait for a batch of its own, and another process's units, polling for the leases, could miss every gap.
   */
  private async unitsFirst(): Promise<void> {
    const { applier, log } = this.deps;
    const until = Date.now() + UNITS_FIRST_MS;
    while (applier.busy && Date.now() < until && !this.abort.signal.aborted) await sleep(5);
    if ((await log.oldestPending()) !== null) await sleep(OTHERS_FIRST_MS);
  }

  /** Stops between batches; the unfinished rebuild stays recorded and restarts at the next start. */
  async stop(): Promise<void> {
    this.abort.abort();
    if (this.timer) clearTimeout(this.timer);
    await this.active;
  }
}
