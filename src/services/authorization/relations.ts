// Tuples and direct grants: validate, commit to the change log, store in MongoDB, apply (inline or queued).
import { tupleText, isWellFormed, type Tuple } from '../../engine/ids.js';
import { AppError } from '../../errors.js';
import type { GrantStore } from '../../stores/ports/grants.js';
import type { RelationRecord, TupleReads, TupleWrites } from '../../stores/ports/tuples.js';
import type { ChangeEntry } from '../../stores/ports/change-log.js';
import type { DeletionHints } from '../../stores/ports/deletion-hints.js';
import type { Applier } from './applier.js';
import type { ModelSource } from './model-source.js';
import { splitUpdates, type TupleUpdate } from './tuple-updates.js';

/** Tuples removed per log entry when an object goes with everything that names it. */
const REMOVE_PAGE = 1000;

export const relationView = (r: RelationRecord) => ({
  _id: r._id,
  subject: r.subject,
  relation: r.relation,
  resource: r.resource,
  computedTuple: r.computedTuple,
  subjectType: r.subjectType,
  subjectId: r.subjectId,
  resourceType: r.resourceType,
  resourceId: r.resourceId,
  createdAt: r.createdAt,
  revision: r.revision,
});

/**
 * Every write follows the pipeline of DESIGN.md section 5: take a revision and log the entry (the commit
 * point), make the MongoDB change, then apply the entry: inline for single writes (the answer waits for
 * the index), queued and coalesced for `/relations/many` and `/relations/write`. A repeated write runs the
 * same steps, so a retry repairs whatever its failed attempt left behind.
 */
export class Relations {
  constructor(private readonly store: TupleReads & TupleWrites & GrantStore, private readonly applier: Applier, private readonly models: ModelSource,
    private readonly hints: DeletionHints) {}

  /** Contract rules (a)-(c): well-formed, declared relation, allowed subject type. */
  private async check(t: Tuple, index?: number) {
    const at = index === undefined ? {} : { index };
    if (!isWellFormed(t)) {
      throw new AppError('VALIDATION_FAILED', 'subject and resource must be Type:id and relation a name', [{ ...at, tuple: t }]);
    }
    const problem = (await this.models.unlessStale((m) => m.writeProblem(t) === null)).writeProblem(t);
    if (problem) throw new AppError(problem.code, problem.message, [{ ...at, tuple: tupleText(t) }]);
  }

  private async commit(kind: ChangeEntry['kind'], op: ChangeEntry['op'], tuples: Tuple[], deleted?: Tuple[]): Promise<ChangeEntry> {
    const entry = { kind, op, tuples: tuples.map(tupleText), ...(deleted ? { deleted: deleted.map(tupleText) } : {}) };
    const revision = await this.applier.commit(entry);
    return { ...entry, revision, at: new Date() };
  }

  /** Writes one tuple and indexes everything inherited through it before returning. */
  async create(t: Tuple) {
    await this.check(t);
    const entry = await this.commit('tuples', 'add', [t]);
    const { records, created } = await this.applier.change(entry, () => this.store.insertTuples([t], entry.revision));
    await this.applier.apply(entry);
    return { record: records[0]!, created: created.size === 1, revision: entry.revision };
  }

  /** Validates every tuple first (one bad tuple: nothing stored), writes all in bulk, then queues the index work. */
  async createMany(subject: string, relation: string, resources: string[]) {
    return this.addMany(resources.map((resource) => ({ subject, relation, resource })));
  }

  /** Any tuples, as `createMany` writes them: all validated, then one log entry, one bulk insert, queued index work. */
  async addMany(list: Tuple[]) {
    const tuples = [...new Map(list.map((t) => [tupleText(t), t] as const)).values()];
    for (const [i, t] of tuples.entries()) await this.check(t, i);
    const entry = await this.commit('tuples', 'add', tuples);
    const { records, created } = await this.applier.change(entry, () => this.store.insertTuples(tuples, entry.revision));
    this.applier.submit(entry);
    return { relations: records.map(relationView), created: created.size, existing: tuples.length - created.size, revision: entry.revision };
  }

  /**
   * Creates and deletes of any tuples at one revision, queued like `addMany`. Every update is checked first (a create as
   * `create` checks it; a delete for its form only, so a tuple a narrowed definition no longer allows can still go) and
   * nothing is written when one fails. One log entry holds them all (op `add` or `delete` when they are all one kind,
   * else `write` naming the deleted ones). The deletes are marked as hints before MongoDB loses them, as `remove` does:
   * the queued apply takes the creates as stored and reads exactly the hinted tuples back (recovery reads them all).
   */
  async write(updates: TupleUpdate[]) {
    const { creates, deletes } = splitUpdates(updates);
    for (const c of creates) await this.check(c.tuple, c.index);
    const ordered = updates.map((u) => ({ subject: u.subject, relation: u.relation, resource: u.resource }));
    const gone = deletes.map((d) => d.tuple);
    const op = deletes.length === 0 ? 'add' : creates.length === 0 ? 'delete' : 'write';
    const entry = await this.commit('tuples', op, ordered, op === 'write' ? gone : undefined);
    const { deleted, created } = await this.applier.change(entry, async () => ({
      deleted: gone.length ? await this.deleteTuples(gone) : 0,
      created: creates.length ? (await this.store.insertTuples(creates.map((c) => c.tuple), entry.revision)).created.size : 0,
    }));
    this.applier.submit(entry);
    return { created, existing: creates.length - created, deleted, missing: deletes.length - deleted, revision: entry.revision };
  }

  /** Direct grants in bulk (state import): validated, logged once, stored, queued; how many were new. */
  async grantMany(list: Tuple[]) {
    for (const g of list) await this.checkGrant(g);
    const entry = await this.commit('grants', 'add', list);
    const created = await this.applier.change(entry, async () => {
      let n = 0;
      for (const g of list) if ((await this.store.putGrant(g, entry.revision)).created) n++;
      return n;
    });
    this.applier.submit(entry);
    return { created, revision: entry.revision };
  }

  /** Deletes tuples and grants in bulk (state prune): one log entry each, index work queued and coalesced. */
  async removeMany(tuples: Tuple[], grants: Tuple[]): Promise<{ tuples: number; grants: number }> {
    const out = { tuples: 0, grants: 0 };
    if (tuples.length) {
      const entry = await this.commit('tuples', 'delete', tuples);
      out.tuples = await this.applier.change(entry, () => this.deleteTuples(tuples));
      this.applier.submit(entry);
    }
    if (grants.length) {
      const entry = await this.commit('grants', 'delete', grants);
      out.grants = await this.applier.change(entry, () => this.deleteGrants(grants));
      this.applier.submit(entry);
    }
    return out;
  }

  /**
   * Removes every tuple and grant that names `resource` (on it or from it), so a deleted object leaves nothing
   * behind that a later object with the same id would inherit. Returns how many went.
   */
  async removeAllOn(resource: string): Promise<number> {
    let n = 0;
    // A page at a time, each applied before the next is read: however many tuples name the resource, none is held
    // beyond its page, and the index has caught up when this returns (as a single `remove` has).
    const removeTuples = async (pages: AsyncIterable<RelationRecord[]>, keep: (r: RelationRecord) => boolean = () => true) => {
      for await (const page of pages) {
        const tuples = page.filter(keep).map((r) => ({ subject: r.subject, relation: r.relation, resource: r.resource }));
        if (!tuples.length) continue;
        const entry = await this.commit('tuples', 'delete', tuples);
        n += await this.applier.change(entry, () => this.deleteTuples(tuples));
        await this.applier.apply(entry);
      }
    };
    // Owners last: until the end, whoever may delete the resource can still see it (and retry).
    await removeTuples(this.store.tuplesMatching({ subject: resource }, REMOVE_PAGE));
    await removeTuples(this.store.tuplesMatching({ resource }, REMOVE_PAGE), (r) => r.relation !== 'owner');
    for await (const grants of this.store.grantsInvolving(resource, REMOVE_PAGE)) {
      const entry = await this.commit('grants', 'delete', grants);
      n += await this.applier.change(entry, () => this.deleteGrants(grants));
      await this.applier.apply(entry);
    }
    await removeTuples(this.store.tuplesMatching({ resource, relation: 'owner' }, REMOVE_PAGE));
    return n;
  }

  async remove(id: string) {
    const found = await this.store.findTuple(id);
    if (!found) throw new AppError('NOT_FOUND', `No relation ${id}`);
    const t = { subject: found.subject, relation: found.relation, resource: found.resource };
    const entry = await this.commit('tuples', 'delete', [t]);
    const deleted = await this.applier.change(entry, async () => {
      // Marked before the delete: an add applied later as "stored" reads this tuple back from MongoDB.
      await this.hints.mark([found.computedTuple]);
      return this.store.deleteTuple(id);
    });
    await this.applier.apply(entry);
    if (!deleted) throw new AppError('NOT_FOUND', `No relation ${id}`);
    return { deleted: relationView(deleted), revision: entry.revision };
  }

  /** Deletes tuples marked as hints first (an add applied later as "stored" reads them back); how many were there. */
  private async deleteTuples(tuples: Tuple[]): Promise<number> {
    await this.hints.mark(tuples.map(tupleText));
    return this.store.deleteTupleTexts(tuples.map(tupleText));
  }

  /** Deletes grants, marked as hints first; how many were there. */
  private async deleteGrants(grants: Tuple[]): Promise<number> {
    await this.hints.mark(grants.map(tupleText));
    let n = 0;
    for (const g of grants) if (await this.store.deleteGrant(g)) n++;
    return n;
  }

  async get(id: string) {
    const r = await this.store.findTuple(id);
    if (!r) throw new AppError('NOT_FOUND', `No relation ${id}`);
    return relationView(r);
  }

  private validGrant(g: Tuple) {
    if (!isWellFormed(g)) throw new AppError('VALIDATION_FAILED', 'subject and resource must be Type:id and permission a name', [{ grant: g }]);
  }

  /** Well-formed, and the resource type declares the permission. */
  private async checkGrant(g: Tuple) {
    this.validGrant(g);
    const problem = (await this.models.unlessStale((m) => m.grantProblem(g) === null)).grantProblem(g);
    if (problem) throw new AppError(problem.code, problem.message, [{ grant: tupleText(g) }]);
  }

  async grant(g: Tuple) {
    await this.checkGrant(g);
    const entry = await this.commit('grants', 'add', [g]);
    const { created } = await this.applier.change(entry, () => this.store.putGrant(g, entry.revision));
    await this.applier.apply(entry);
    return { grant: { subject: g.subject, permission: g.relation, resource: g.resource }, created, revision: entry.revision };
  }

  async revoke(g: Tuple) {
    this.validGrant(g);
    if (!(await this.store.presentGrants([tupleText(g)])).size) throw new AppError('NOT_FOUND', `No grant ${tupleText(g)}`);
    const entry = await this.commit('grants', 'delete', [g]);
    const deleted = await this.applier.change(entry, async () => {
      await this.hints.mark([tupleText(g)]);
      return this.store.deleteGrant(g);
    });
    await this.applier.apply(entry);
    if (!deleted) throw new AppError('NOT_FOUND', `No grant ${tupleText(g)}`);
    return { deleted: { subject: g.subject, permission: g.relation, resource: g.resource }, revision: entry.revision };
  }
}
