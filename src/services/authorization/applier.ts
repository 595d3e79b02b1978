// The appliers of the change log: coalesce committed entries into batches, apply them in units by partition, recover the rest.
import { changesFlats } from '../../engine/index-math.js';
import type { Model } from '../../engine/model.js';
import { AppError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { RepeatedWarnings } from '../../log-repeats.js';
import type { Epoch } from '../../stores/ports/epoch.js';
import { LeaseLost, type Heartbeat, type Lease } from '../../stores/ports/lease.js';
import { CommitFailed, CommitUnconfirmed, type ChangeEntry, type ChangeLog } from '../../stores/ports/change-log.js';
import type { GraphStore } from '../../stores/ports/graph.js';
import type { IndexStore } from '../../stores/ports/index-store.js';
import type { DecisionCache } from './decision-cache.js';
import { NeedsStructure, type IndexBatch } from './index-batch.js';
import { allHeld, type IndexLeases, type Scope } from './index-leases.js';
import type { ModelSource } from './model-source.js';
import { entriesToApply, OWN_GRACE_MS, toRecover } from './recovery-selection.js';
import { outcomeSettled } from '../../stores/unavailable.js';
import { within } from '../deadline.js';
import type { Reindexing } from './reindexing.js';
import { DefinitionApplier } from './definition-applier.js';
import { takeBatch } from './batching.js';
import { needsOf, tuplesOf, type Item } from './unit-items.js';

/** A unit's model and generations are read again at least this often, whatever the work epoch says (see workState). */
const STATE_MAX_AGE_MS = 2000;
/** Tuples in one coalesced batch; a larger backlog is split. */
export const BATCH_TUPLES = 2000;
/** How often the recovery loop looks for pending entries. */
const RECOVER_EVERY_MS = 1000;
/** Pending entries one recovery pass reads, oldest first. */
const RECOVER_LIST = 5000;
// Waiting on other processes' units (one may be a large rebuild batch, or a dead process's lease running out); Redis
// being down fails at once instead.
const leaseWaitMs = (leaseTtlMs: number) => Math.max(30_000, 2 * leaseTtlMs);
/**
 * How long a single write waits for its index work. A Neo4j just restarted accepts connections while it recovers its
 * store and plans every statement cold: writes then waited 26 s (test/integration/store-faults.test.ts). Past this,
 * the write answers 503; its entry is committed and stays pending, so the work goes on and recovery finishes it.
 */
export const APPLY_WAIT_MS = 10_000;
/** What work asked of a stopped applier gets (a request that outlived the listeners' close): 503, safe to retry. */
const stopping = () => new AppError('STORE_UNAVAILABLE', 'The service is stopping; the change is stored and will be indexed; retry (writes are safe to retry)');

/** A queued entry and its caller: `sync` for a single write waiting on it, `verify` to read MongoDB back first. */
type Waiter = { entry: ChangeEntry; resolve(): void; reject(e: unknown): void; sync: boolean; verify: boolean };
/**
 * Every committed entry stays in the outbox (`pending`) until an applier has brought the projection and
 * the index in line with MongoDB for what it names. Index work is split by partition of the objects it writes
 * (see IndexLeases): a unit holds the leases of its partitions, so units on disjoint partitions run at once in
 * different processes, and work on one object is never interleaved. Tuples whose relation feeds an arrow change
 * flattened sets, which read across partitions: those units also hold the structure lease, as do definition
 * re-indexes and rebuilds (which hold every lease). Each unit recomputes from the state it reads inside its leases.
 * Within a process, waiting entries are coalesced: the single writes first, then queued bulk entries up to
 * BATCH_TUPLES tuples. Entries whose writer died (its heartbeat expired) or whose application failed are picked up
 * again by the recovery loop.
 */
export class Applier {
  private readonly running = new Set<Promise<void>>();
  private readonly waiting: Waiter[] = [];
  private readonly inFlight = new Set<number>();
  /** This process's entries whose application failed: retried by the next recovery pass. */
  private readonly failed = new Set<number>();
  /** Revisions of this process's failed commits (CommitFailed), pending record or not: each pass closes them with a void. */
  private readonly stranded = new Set<number>();
  /** Drain loops running now: up to `concurrency`, each applying one batch at a time under its own leases. */
  private draining = 0;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly definitionWork: DefinitionApplier;
  private readonly warnings: RepeatedWarnings;
  /** The index leases' time to live (LEASE_TTL_MS; 15 s unless told). */
  private readonly ttl: number;
  /** What units last worked with, and the work epoch it was read under (see `workState`). */
  private state: { epoch: string; at: number; model: Model; gens: number[] } | null = null;

  constructor(private readonly deps: {
    log: ChangeLog;
    leases: IndexLeases;
    heartbeat: Heartbeat;
    batch: IndexBatch;
    index: IndexStore;
    graph: GraphStore;
    models: ModelSource;
    cache: DecisionCache;
    logger: Logger;
    /** Bumped under every lease by exclusive work, the only work that changes the model or the generations units use. */
    workEpoch: Epoch;
    /** Bumped when a definition is saved (ModelSource.changed): units take the new model from then on, as classifiers do. */
    definitionsEpoch: Epoch;
    /** Told when a definition change is re-indexed, so its types are answered from the index again. */
    reindexing?: Reindexing;
    /**
     * Batches this process applies at once (INDEX_CONCURRENCY). Units on disjoint partitions then run side by side, as
     * they do in several processes: one loop leaves Neo4j idle while Node prepares the next unit.
     */
    concurrency?: number;
    /** How long a dead process's leases hold (LEASE_TTL_MS); how soon its markers without a log entry are dropped follows it. */
    leaseTtlMs?: number;
  }) {
    this.definitionWork = new DefinitionApplier(this, { ...deps, batchTuples: BATCH_TUPLES });
    this.ttl = deps.leaseTtlMs ?? 15_000;
    this.warnings = new RepeatedWarnings(deps.logger);
  }

  /** Index units of entries queued or running in this process: a rebuild lets them go before its next batch. */
  get busy(): boolean {
    return this.waiting.length > 0 || this.draining > 0;
  }

  /** Told of every unit of tuple and grant work applied here: whether it held the structure lease, and its size (metrics). */
  onUnit: (structure: boolean, tuples: number) => void = () => undefined;

  get owner() {
    return this.deps.heartbeat.owner;
  }

  private get leaseWait() {
    return leaseWaitMs(this.ttl);
  }

  private get ownGrace() {
    return Math.max(OWN_GRACE_MS, 2 * this.ttl);
  }

  /** Runs `work` alone, holding every index lease (definitions, rebuilds). */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    if (this.stopped) return Promise.reject(stopping());
    return this.tracked(async () => {
      const held = await this.deps.leases.acquire(this.deps.leases.everything(), this.leaseWait);
      // Before the work: a unit that reads the epoch after this lease is released sees it changed and reads the model
      // and the generations again; a bump that fails does no work.
      return this.holding(held, async () => {
        await this.deps.workEpoch.bump();
        return work();
      });
    });
  }

  /** Work that `stop` waits for. */
  private tracked<T>(work: () => Promise<T>): Promise<T> {
    const run = work();
    const settled = run.then(() => undefined, () => undefined);
    this.running.add(settled);
    void settled.finally(() => this.running.delete(settled));
    return run;
  }

  /** Runs `work` under leases already taken, then releases them. */
  private async holding<T>(held: Lease[], work: () => Promise<T>): Promise<T> {
    try {
      const result = await work();
      // Renewals failed for longer than a lease lives: another process may have interleaved its unit with this one.
      // Failing makes the entries pending again, and their replay recomputes under fresh leases.
      if (!allHeld(held)) throw new LeaseLost(held.map((l) => l.key), 'a unit of index work');
      return result;
    } finally {
      await this.deps.leases.release(held);
    }
  }

  /**
   * The model and generations for a unit, read under its leases, again only when exclusive work (a re-index, a rebuild)
   * bumped the epoch since, or STATE_MAX_AGE_MS passed: a MongoDB and a Neo4j read saved (12-13 ms of 94 a single write).
   * A unit that used the model from before a redefinition came before its re-index, which lists its objects again.
   */
  private async workState(): Promise<{ model: Model; gens: number[] }> {
    // First: a bump after these reads makes the next comparison differ.
    const [work, defs] = await Promise.all([this.deps.workEpoch.read(), this.deps.definitionsEpoch.read()]);
    const epoch = work === null || defs === null ? null : `${work} ${defs}`;
    const last = this.state;
    if (epoch !== null && last?.epoch === epoch && Date.now() - last.at < STATE_MAX_AGE_MS) return last;
    const at = Date.now();
    const [model, gens] = await Promise.all([this.deps.models.reload(), this.gens()]);
    if (epoch !== null) this.state = { epoch, at, model, gens };
    return { model, gens };
  }

  /** The live generation, and the one being built if any: every unit of work writes both. */
  async gens(): Promise<number[]> {
    const m = await this.deps.index.meta();
    return m.building ? [m.gen, m.building] : [m.gen];
  }

  /** Applies a committed entry and resolves when it is done (single writes), or rejects after APPLY_WAIT_MS. */
  apply(entry: ChangeEntry): Promise<void> {
    const work = this.enqueue(entry, true, false);
    // A failure after the answer was given is the recovery loop's (the entry is in `failed`), not the caller's.
    work.catch(() => undefined);
    return within(work, APPLY_WAIT_MS,
      () =>
        new AppError('STORE_UNAVAILABLE',
          `The index did not take revision ${entry.revision} within ${APPLY_WAIT_MS / 1000} s; it is stored and will be indexed; retry shortly (writes are safe to retry)`));
  }

  /**
   * Commits an entry of this process's own. One logged but not marked in Redis (CommitUnconfirmed) had nothing done past
   * the log, so it has nothing to apply: done at once (else by the next recovery pass), not after the grace that covers
   * a MongoDB change still under way, and reads at later revisions do not wait on it. One that failed with its pending
   * record perhaps stored (CommitFailed) is closed by the next recovery pass, not after the grace; the caller gets the
   * store's own error.
   */
  commit(entry: Omit<ChangeEntry, 'revision' | 'at'>): Promise<number> {
    return this.deps.log.commit(entry, this.owner).catch(async (e: unknown) => {
      if (e instanceof CommitUnconfirmed) await this.deps.log.done([e.revision]).catch(() => this.failed.add(e.revision));
      if (e instanceof CommitFailed) {
        this.stranded.add(e.revision);
        throw e.cause;
      }
      throw e;
    });
  }

  /**
   * Runs the MongoDB change of an entry just committed. One that failed for good (outcomeSettled: it is stored or not,
   * and cannot land later) goes to the next recovery pass, which reads MongoDB back, instead of waiting out the grace
   * given to a change that may still be on its way.
   */
  async change<T>(entry: ChangeEntry, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (e) {
      if (outcomeSettled(e)) this.failed.add(entry.revision);
      throw e;
    }
  }

  /** Queues a committed entry (`/relations/many`); failures stay pending for the recovery loop. */
  submit(entry: ChangeEntry, verify = false): void {
    // A batch's failure is logged once by the drain; a definition's here.
    this.enqueue(entry, false, verify).catch((e: Error) =>
      this.stopped || entry.kind !== 'definition' || this.warnings.warn({ revision: entry.revision, err: e.message }, 're-index failed; will retry')
    );
  }

  private enqueue(entry: ChangeEntry, sync: boolean, verify: boolean): Promise<void> {
    // After stop no loop drains the queue: the entry stays pending for the recovery of the next process.
    if (this.stopped) return Promise.reject(stopping());
    if (this.inFlight.has(entry.revision)) return Promise.resolve();
    this.inFlight.add(entry.revision);
    if (entry.kind === 'definition') {
      return this.definitionWork.run(entry).then(() => {
        this.failed.delete(entry.revision);
      }, (e: unknown) => {
        this.failed.add(entry.revision);
        throw e;
      }).finally(() => this.inFlight.delete(entry.revision));
    }
    return new Promise<void>((resolve, reject) => {
      // Deletes, and entries of writers that may have died before their MongoDB change, read MongoDB back.
      this.waiting.push({ entry, resolve, reject, sync, verify: verify || entry.op === 'delete' });
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    if (this.draining >= (this.deps.concurrency ?? 1)) return;
    this.draining++;
    try {
      while (this.waiting.length && !this.stopped) {
        const batch = takeBatch(this.waiting, BATCH_TUPLES);
        try {
          await this.tracked(async () => {
            await this.applyEntries(batch.filter((w) => w.verify).map((w) => w.entry), false);
            await this.applyEntries(batch.filter((w) => !w.verify).map((w) => w.entry), true);
            // Inside what stop waits for: the stores close after it.
            await this.deps.log.done(batch.map((w) => w.entry.revision));
          });
          batch.forEach((w) => {
            this.failed.delete(w.entry.revision);
            w.resolve();
          });
        } catch (e) {
          batch.forEach((w) => {
            this.failed.add(w.entry.revision);
            w.reject(e);
          });
          const queued = batch.filter((w) => !w.sync); // a single write's caller is answered (503) instead
          if (queued.length && !this.stopped) {
            this.warnings.warn({ entries: queued.length, first: queued[0]!.entry.revision, last: queued.at(-1)!.entry.revision, err: String((e as Error)?.message ?? e) },
              'apply failed; will retry');
          }
        } finally {
          batch.forEach((w) => this.inFlight.delete(w.entry.revision));
        }
      }
    } finally {
      this.draining--;
    }
  }

  /**
   * Tuple and grant entries, in units by partition. Plain tuples and grants go in units of
   * whichever of their partitions are free now, so processes share the work; the rest wait for their leases in order.
   * Tuples that shape flattened sets go last, in one unit that also holds the structure lease.
   */
  private async applyEntries(entries: ChangeEntry[], assumeStored: boolean): Promise<void> {
    const items: Item[] = [];
    for (const e of entries) for (const t of tuplesOf(e)) items.push({ t, grant: e.kind === 'grants' });
    if (items.length === 0) return;
    const revision = Math.max(...entries.map((e) => e.revision));
    const leases = this.deps.leases;
    // Classified with the model as cached; a unit that finds, under its leases, that a tuple now shapes flats hands it on.
    const model = await this.deps.models.get();
    const needs = (x: Item) => needsOf(model, x, leases);
    let plain = items.filter((x) => x.grant || !changesFlats(model, x.t));
    const structural = items.filter((x) => !x.grant && changesFlats(model, x.t));
    while (plain.length) {
      const wanted = [...new Set(plain.flatMap(needs))];
      let { taken, leases: held } = await leases.tryMany(wanted);
      if (!plain.some((x) => needs(x).every((p) => taken.includes(p)))) {
        // Nothing can go with what was free: wait, in order, for the first item's partitions alone.
        await leases.release(held);
        taken = needs(plain[0]!);
        held = await leases.acquire({ partitions: taken, structure: false }, this.leaseWait);
      }
      const chosen = plain.filter((x) => needs(x).every((p) => taken.includes(p)));
      plain = plain.filter((x) => !chosen.includes(x));
      try {
        await this.holding(held, () => this.unit(chosen, { partitions: taken, structure: false }, assumeStored, revision));
      } catch (e) {
        if (!(e instanceof NeedsStructure)) throw e;
        this.state = null; // the model changed under the unit: the structural one below reads it again
        structural.push(...chosen.filter((x) => !x.grant));
        plain.push(...chosen.filter((x) => x.grant));
      }
    }
    if (structural.length) {
      // Partitions from the model as it is now: a unit handed on because the model changed needs the new one's.
      const now = await this.deps.models.reload();
      const scope: Scope = { partitions: [...new Set(structural.flatMap((x) => needsOf(now, x, leases)))], structure: true };
      const held = await leases.acquire(scope, this.leaseWait);
      await this.holding(held, () => this.unit(structural, scope, assumeStored, revision));
    }
  }

  /** One unit of index work under the leases of `scope`, with the model read inside them. */
  private async unit(items: Item[], scope: Scope, assumeStored: boolean, revision: number): Promise<void> {
    const { model, gens } = await this.workState();
    const result = await this.deps.batch.apply({
      tuples: items.filter((x) => !x.grant).map((x) => x.t),
      grants: items.filter((x) => x.grant).map((x) => x.t),
      gens,
      model,
      assumeStored,
      structure: scope.structure,
      owns: (o) => scope.partitions.includes(this.deps.leases.partitionOf(o)),
    });
    await this.deps.cache.bump(result.touched, result.structure, revision);
    this.onUnit(scope.structure, items.length);
  }

  /** Starts the recovery loop: entries of dead writers, and this process's entries whose application failed. */
  start(): void {
    this.deps.heartbeat.start();
    const tick = async () => {
      if (this.stopped) return;
      try {
        await this.tracked(() => this.recover()); // stop waits for a pass under way: it may end re-indexes and publish
      } catch (e) {
        this.deps.logger.debug({ err: (e as Error).message }, 'recovery pass failed');
      }
      if (!this.stopped) this.timer = setTimeout(() => void tick(), RECOVER_EVERY_MS);
    };
    void tick();
  }

  /** One recovery pass; returns how many entries it picked up. */
  async recover(): Promise<number> {
    const busyBefore = new Set(this.inFlight);
    const listedAt = Date.now();
    // The oldest ones only: a pass reads a bounded list however long the outbox grows under a bulk load.
    const listed = await this.deps.log.pending(RECOVER_LIST);
    const upTo = listed.length === RECOVER_LIST ? listed.at(-1)!.revision : Infinity;
    await this.deps.reindexing?.prune(new Set(listed.map((p) => p.revision)), listedAt, upTo);
    const others = [...new Set(listed.map((p) => p.owner))].filter((o) => o !== this.owner);
    const alive = others.length ? await this.deps.heartbeat.alive(others) : new Set<string>();
    const now = Date.now();
    const mine = toRecover(listed, { owner: this.owner, busyBefore, busyNow: this.inFlight, failed: this.failed, alive, now, graceMs: this.ownGrace });
    // Listed or not (a failed pending insert leaves no record, but may leave the revision to be handed out again).
    const stranded = [...this.stranded].filter((r) => !mine.some((p) => p.revision === r)).map((r) => ({ revision: r, owner: this.owner, at: new Date(0) }));
    const entries = await entriesToApply(this.deps.log, [...mine, ...stranded], this.failed);
    for (const p of stranded) this.stranded.delete(p.revision);
    for (const e of entries) this.submit(e, true);
    if (entries.length) this.deps.logger.info({ entries: entries.length, first: entries[0]!.revision }, 'recovering pending changes');
    return entries.length;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    // What no drain loop will take now fails (its entries stay pending for the next process), so no caller waits on it;
    // the re-index is waited for in between its batches too: it would go on publishing on a bus that has left.
    for (const w of this.waiting.splice(0)) {
      this.inFlight.delete(w.entry.revision);
      w.reject(stopping());
    }
    await Promise.all([...this.running, this.definitionWork.stop()]);
    await this.deps.heartbeat.stop();
  }
}
