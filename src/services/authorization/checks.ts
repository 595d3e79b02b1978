// Decisions: can (cache, then one index query), evaluate (index records plus a Cypher path), list objects and subjects.
import { checkReason, type CheckReason } from '../../engine/check-reason.js';
import { Evaluator } from '../../engine/evaluator.js';
import { typeOf } from '../../engine/ids.js';
import { objectRow, relationKey } from '../../engine/index-math.js';
import type { Model } from '../../engine/model.js';
import type { GraphStore } from '../../stores/ports/graph.js';
import type { IndexStore } from '../../stores/ports/index-store.js';
import type { DecisionCache } from './decision-cache.js';
import { ListCache } from './list-cache.js';
import type { ModelSource } from './model-source.js';
import { pageWithExtra } from './paging.js';
import type { ProjectionDecisions } from './projection-decisions.js';
import type { Reindexing } from './reindexing.js';
import type { Revisions } from './revisions.js';

export type Consistency = 'minimize_latency' | 'at_least_as_fresh' | 'fully_consistent';
export interface ReadOptions {
  consistency?: Consistency; revision?: number;
  /** The caller has waited for the revision already (`settle`), for a batch of reads that share one wait. */
  settled?: boolean;
}

/** Lists up to this long are read whole and cached for paging; longer ones are counted and paged by the index. */
const WHOLE = 10_000;
const noTuples = { subjects: () => [] as string[] };

/** Relations have no rows: `can` on one is whether the subject holds its key (the tuple itself). */
const isRelation = (model: Model, resource: string, action: string) => model.get(typeOf(resource))?.relations.has(action) === true;

/** A check's answer: a deny naming a type or action the model lacks says so (the decision caches hold only `allowed`). */
export interface CheckAnswer { allowed: boolean; reason?: CheckReason }

/** Types whose definition change is still being re-indexed are answered from the projection meanwhile. */
export interface PendingDefinitions { reindexing: Reindexing; projection: ProjectionDecisions }

export class Checks {
  /** Told of every decision of `can` and whether the decision cache gave it (metrics). */
  onDecision: (allowed: boolean, cached: boolean) => void = () => undefined;

  constructor(private readonly index: IndexStore, private readonly graph: GraphStore,
    private readonly models: ModelSource, private readonly cache: DecisionCache, private readonly revisions: Revisions,
    private readonly whole = WHOLE, private readonly pending?: PendingDefinitions,
    private readonly lists = new ListCache(100 * Math.max(whole, 1000))) {}

  /** The projection answers for `type` now, when a definition change that affects it is not re-indexed yet. */
  private fromProjection(type: string): ProjectionDecisions | null {
    return this.pending?.reindexing.affects(type) ? this.pending.projection : null;
  }

  /** Waits until the index has what the read asks for (nothing for minimize_latency). */
  async settle(opts: ReadOptions): Promise<void> {
    if (opts.settled) return;
    if (opts.consistency === 'at_least_as_fresh' || opts.revision !== undefined || opts.consistency === 'fully_consistent') {
      await this.revisions.waitFor(opts.revision);
    }
  }

  /** can(S, a, O) from the index; objects without rows (no tuples) can still be public by definition. */
  async can(subject: string, action: string, resource: string, opts: ReadOptions = {}): Promise<boolean> {
    if (subject === resource) return true;
    await this.settle(opts);
    // A type without a definition grants nothing, even before its index rows are gone.
    const model = await this.models.unlessStale((m) => m.get(typeOf(resource)) !== undefined);
    if (!model.get(typeOf(resource))) return false;
    const projection = this.fromProjection(typeOf(resource));
    if (projection) {
      const answer = await projection.can(model, subject, action, resource);
      this.onDecision(answer, false);
      return answer;
    }
    const useCache = opts.consistency !== 'fully_consistent';
    const cached = useCache ? await this.cache.lookup(subject, action, resource) : null;
    if (cached?.hit != null) { this.onDecision(cached.hit, true); return cached.hit; }
    let answer: boolean;
    if (isRelation(model, resource, action)) answer = await this.index.holds(subject, relationKey(resource, action));
    else {
      const { rowExists, allowed } = await this.index.check(subject, resource, action);
      answer = rowExists ? allowed : await this.publicWithoutTuples(resource, action);
    }
    if (cached) await this.cache.store(subject, action, resource, answer, cached.stamp);
    this.onDecision(answer, false);
    return answer;
  }

  /** `can` with the reason a deny names something the model in force lacks. */
  async check(subject: string, action: string, resource: string, opts: ReadOptions = {}): Promise<CheckAnswer> {
    return this.answer(await this.can(subject, action, resource, opts), action, resource);
  }

  /**
   * `allowed` with its reason when false. The reason is computed from the model on the way out, never cached, so it
   * follows the model in force: a type defined since (in any process: `unlessStale` reloads) loses its reason.
   */
  async answer(allowed: boolean, action: string, resource: string): Promise<CheckAnswer> {
    if (allowed) return { allowed };
    const reason = checkReason(await this.models.unlessStale((m) => checkReason(m, action, resource) === undefined), action, resource);
    return reason ? { allowed, reason } : { allowed };
  }

  private async publicWithoutTuples(resource: string, action: string): Promise<boolean> {
    const model = await this.models.get();
    if (!model.get(typeOf(resource))) return false;
    return objectRow(model, noTuples, resource, action).public;
  }

  /** Admin scope rule: the subject needs a direct tuple or grant on the scope. */
  async hasDirectOn(subject: string, scope: string): Promise<boolean> {
    const model = await this.models.get();
    const direct = await this.graph.direct(subject, scope);
    return direct.tuples.some(model.isValid) || direct.grants.some(model.isValidGrant);
  }

  /** Relation names of the valid direct tuples from `subject` to `resource` (client `/role`). */
  async directRelations(subject: string, resource: string): Promise<string[]> {
    const model = await this.models.get();
    const direct = await this.graph.direct(subject, resource);
    return [...new Set(direct.tuples.filter((t) => model.isValid(t)).map((t) => t.relation))].sort();
  }

  async evaluate(subject: string, action: string, resource: string, opts: ReadOptions = {}) {
    await this.settle(opts);
    const model = await this.models.get();
    if (subject === resource) return { allowed: true, assigned: true, reason: 'self-access: the subject is the resource' };
    const grants = (await this.graph.direct(subject, resource)).grants;
    if (grants.some((g) => g.relation === action && model.isValidGrant(g))) {
      return { allowed: true, assigned: true, reason: `direct grant ${subject}#${action}@${resource}` };
    }
    const allowed = await this.can(subject, action, resource, { consistency: 'fully_consistent' });
    const records = await this.index.records(subject, resource, action);
    // A relation has no row: its own key is what the subject must hold, shown as the row it stands for.
    const objectIndex = isRelation(model, resource, action)
      ? { id: relationKey(resource, action), public: false, keys: [relationKey(resource, action)], refs: [] } : records.objectIndex;
    const out: Record<string, unknown> = { allowed, subjectIndex: records.subjectIndex, objectIndex };
    const unknown = checkReason(await this.models.unlessStale((m) => checkReason(m, action, resource) === undefined), action, resource);
    if (unknown) Object.assign(out, { reason: unknown.message, reasonCode: unknown.code }, unknown.didYouMean ? { didYouMean: unknown.didYouMean } : {});
    if (allowed) {
      const tuples = await this.graph.tuplesBetween(subject, resource);
      const chain = new Evaluator(model, tuples, grants).explain(subject, action, resource);
      out.paths = chain ?? [];
      if (chain && chain.length === 0) out.reason = 'public';
    }
    return out;
  }

  /**
   * One page of the sorted objects of `type` the subject may act on, and how many there are. A list of at most
   * `whole` objects is read in one query and cached under the epochs it depends on, so the next pages cost no index
   * query until a write changes it; a longer one is counted and paged in the index, never read whole.
   */
  async listObjects(subject: string, action: string, type: string, skip: number, limit: number, opts: ReadOptions = {}) {
    await this.settle(opts);
    const projection = this.fromProjection(type);
    if (projection) {
      const all = await projection.listObjects(await this.models.get(), subject, action, type);
      return { objects: all.slice(skip, skip + limit), count: all.length };
    }
    const stamp = opts.consistency === 'fully_consistent' ? null : await this.cache.listStamp(subject, type);
    const key = `${subject} ${action} ${type}`; // ids and type names hold no space
    const cached = stamp === null ? undefined : this.lists.get(key, stamp);
    if (cached) return { objects: cached.slice(skip, skip + limit), count: cached.length };
    // Self-access puts the subject itself in the list.
    const self = typeOf(subject) === type ? subject : null;
    const relation = (await this.models.get()).get(type)?.relations.has(action) === true;
    const list = (s: number, l: number) => (relation ? this.index.listHeld(subject, type, action, s, l) : this.index.listObjects(subject, action, type, s, l));
    const first = await list(0, this.whole + 1);
    if (first.length <= this.whole) {
      const all = self !== null && !first.includes(self) ? [...first, self].sort() : first;
      if (stamp !== null) this.lists.put(key, stamp, all);
      return { objects: all.slice(skip, skip + limit), count: all.length };
    }
    const counted = relation ? await this.index.countHeld(subject, type, action, self ?? '') : await this.index.countObjects(subject, action, type, self ?? '');
    const page = await pageWithExtra(self, counted, skip, limit, list);
    return { objects: page.ids, count: page.count };
  }

  /** One page of the sorted subjects of `subjectType` that may act on the resource, paged in the index. */
  async listSubjects(action: string, resource: string, subjectType: string, skip: number, limit: number, opts: ReadOptions = {}) {
    await this.settle(opts);
    const projection = this.fromProjection(typeOf(resource));
    if (projection) {
      const found = await projection.listSubjects(await this.models.get(), action, resource, subjectType);
      return { subjects: found.subjects.slice(skip, skip + limit), public: found.public, count: found.subjects.length };
    }
    const self = typeOf(resource) === subjectType ? resource : null;
    if (isRelation(await this.models.get(), resource, action)) {
      const key = relationKey(resource, action);
      const held = await this.index.countHolders(key, subjectType, self ?? '');
      const page = await pageWithExtra(self, held, skip, limit, (s, l) => this.index.listHolders(key, subjectType, s, l));
      return { subjects: page.ids, public: false, count: page.count };
    }
    const counted = await this.index.countSubjects(resource, action, subjectType, self ?? '');
    const page = await pageWithExtra(self, counted, skip, limit, (s, l) => this.index.listSubjects(resource, action, subjectType, s, l));
    const isPublic = counted.public || await this.publicWithoutTuples(resource, action);
    return { subjects: page.ids, public: isPublic, count: page.count };
  }
}
