// Decisions: can (cache, then one index query), evaluate (index records plus a Cypher path), list objects and subjects.
import { checkReason, type CheckReason } from '../../engine/check-reason.js';
import { Evaluator } from '../../engine/evaluator.js';
import { typeOf } from '../../engine/ids.js';
import { relationKey } from '../../engine/index-math.js';
import { indexPlan, validity } from '../../engine/index-plan.js';
import type { Model } from '../../engine/model.js';
import type { GraphStore } from '../../stores/ports/graph.js';
import type { IndexStore, ListCount } from '../../stores/ports/index-store.js';
import type { DecisionCache } from './decision-cache.js';
import { ListCache } from './list-cache.js';
import type { ModelSource } from './model-source.js';
import { pageWithExtra } from './paging.js';
import type { ProjectionDecisions } from './projection-decisions.js';
import type { Reindexing } from './reindexing.js';
import type { Revisions } from './revisions.js';

export type Consistency = 'minimize_latency' | 'at_least_as_fresh' | 'fully_consistent';
export interface ReadOptions {
  consistency?: Consistency;
  revision?: number;
  /** The caller has waited for the revision already (`settle`), for a batch of reads that share one wait. */
  settled?: boolean;
}

/** Lists up to this long are read whole and cached for paging; longer ones are counted and paged by the index. */
const WHOLE = 10_000;
const NO_COUNT: ListCount = { count: 0, below: 0, has: false };

/** `can` on a relation is whether the tuple itself is stored and counts. */
const isRelation = (model: Model, resource: string, action: string) => model.get(typeOf(resource))?.relations.has(action) === true;
/** Whether `relation` of `objectType` admits subjects of `subjectType`: only then do their tuples count. */
const allowsType = (model: Model, objectType: string, relation: string, subjectType: string) => {
  const allowed = model.get(objectType)?.relations.get(relation) ?? [];
  return allowed.includes('*') || allowed.includes(subjectType);
};
const countsAs = (model: Model, subject: string, relation: string, resource: string) => allowsType(model, typeOf(resource), relation, typeOf(subject));

/** One list, read a page or a count at a time. */
interface Lister {
  page(skip: number, limit: number): Promise<string[]>;
  count(pivot: string): Promise<ListCount>;
}
const EMPTY: Lister = { page: async () => [], count: async () => NO_COUNT };

/** A check's answer: a deny naming a type or action the model lacks says so (the decision caches hold only `allowed`). */
export interface CheckAnswer {
  allowed: boolean;
  reason?: CheckReason;
}

/** Types whose definition change is still being re-indexed are answered from the projection meanwhile. */
export interface PendingDefinitions {
  reindexing: Reindexing;
  projection: ProjectionDecisions;
}

export class Checks {
  /** Told of every decision of `can` and whether the decision cache gave it (metrics). */
  onDecision: (allowed: boolean, cached: boolean) => void = () => undefined;

  constructor(private readonly index: IndexStore, private readonly graph: GraphStore, private readonly models: ModelSource, private readonly cache: DecisionCache,
    private readonly revisions: Revisions, private readonly whole = WHOLE, private readonly pending?: PendingDefinitions,
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
    if (cached?.hit != null) {
      this.onDecision(cached.hit, true);
      return cached.hit;
    }
    const answer = isRelation(model, resource, action)
      ? countsAs(model, subject, action, resource) && await this.index.holds(subject, resource, action)
      : await this.index.check(subject, resource, indexPlan(model, typeOf(subject), typeOf(resource), action));
    if (cached) this.cache.store(subject, action, resource, answer, cached.stamp);
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

  /**
   * The raw index records behind a decision (/evaluate): the keys that give the action on the object (its own, and
   * those of the flats its arrow tuples lead to) and the keys the subject holds.
   */
  private async records(model: Model, subject: string, action: string, resource: string) {
    const plan = indexPlan(model, typeOf(subject), typeOf(resource), action);
    const r = await this.index.records(subject, resource, plan);
    const slots = model.subjectSlots(typeOf(subject));
    const counts = new Set([...slots.tuples, ...slots.grants.map((g) => `${g}!`)]);
    const subjectIndex = r.held && { subject, keys: [...new Set(r.held.filter((h) => counts.has(h.slot)).map((h) => h.key))].sort() };
    if (isRelation(model, resource, action)) {
      const key = relationKey(resource, action);
      return { subjectIndex, objectIndex: { id: key, public: false, keys: [key], refs: [] } };
    }
    const relationTargets = r.arrows.flatMap((a) =>
      (plan.arrows.find((p) => p.rel === a.rel)?.targets ?? [])
        .filter((t) => model.get(typeOf(a.x))?.relations.has(t)).map((t) => relationKey(a.x, t))
    );
    const keys = [...plan.direct.map((rel) => relationKey(resource, rel)), ...plan.grants.map((p) => `${relationKey(resource, p)}!`), ...relationTargets];
    const refs = new Map(r.arrows.flatMap((a) => a.flats.map((f) => [relationKey(a.x, f.perm), { id: relationKey(a.x, f.perm), public: f.public, keys: [...f.keys].sort() }])));
    return {
      subjectIndex,
      objectIndex: { id: relationKey(resource, action), public: plan.public, keys: [...new Set(keys)].sort(), refs: [...refs.values()] },
    };
  }

  /** How a list of objects is read: a relation from the subject's tuples, an action anyone has from every named object. */
  private objectLister(model: Model, subject: string, action: string, type: string): Lister {
    const ix = this.index;
    if (model.get(type)?.relations.has(action)) {
      if (!allowsType(model, type, action, typeOf(subject))) return EMPTY;
      return { page: (s, l) => ix.listHeld(subject, type, action, s, l), count: (p) => ix.countHeld(subject, type, action, p) };
    }
    const plan = indexPlan(model, typeOf(subject), type, action);
    if (plan.public) {
      const v = validity(model);
      return { page: (s, l) => ix.listNamed(type, v, s, l), count: (p) => ix.countNamed(type, v, p) };
    }
    return { page: (s, l) => ix.listObjects(subject, type, plan, s, l), count: (p) => ix.countObjects(subject, type, plan, p) };
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
    const out: Record<string, unknown> = { allowed, ...await this.records(model, subject, action, resource) };
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
    const list = this.objectLister(await this.models.get(), subject, action, type);
    const first = await list.page(0, this.whole + 1);
    if (first.length <= this.whole) {
      const all = self !== null && !first.includes(self) ? [...first, self].sort() : first;
      if (stamp !== null) this.lists.put(key, stamp, all);
      return { objects: all.slice(skip, skip + limit), count: all.length };
    }
    const page = await pageWithExtra(self, await list.count(self ?? ''), skip, limit, list.page);
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
    const model = await this.models.get();
    if (isRelation(model, resource, action)) {
      // A relation that does not admit the subject type has no holders of it that count.
      if (!allowsType(model, typeOf(resource), action, subjectType)) {
        return pageWithExtra(self, NO_COUNT, skip, limit, async () => [])
          .then((page) => ({ subjects: page.ids, public: false, count: page.count }));
      }
      const held = await this.index.countHolders(resource, action, subjectType, self ?? '');
      const page = await pageWithExtra(self, held, skip, limit, (s, l) => this.index.listHolders(resource, action, subjectType, s, l));
      return { subjects: page.ids, public: false, count: page.count };
    }
    const plan = indexPlan(model, subjectType, typeOf(resource), action);
    const counted = await this.index.countSubjects(resource, subjectType, plan, self ?? '');
    const page = await pageWithExtra(self, counted, skip, limit, (s, l) => this.index.listSubjects(resource, subjectType, plan, s, l));
    return { subjects: page.ids, public: counted.public, count: page.count };
  }
}
