// Tuples and direct grants: validate, store in MongoDB, project into Neo4j, index (sync or queued).
import { tupleText, isWellFormed, type Tuple } from '../../engine/ids.js';
import { AppError } from '../../errors.js';
import type { AuthzStore, GraphStore, ListQuery, RelationRecord } from '../../stores/ports.js';
import type { Indexer } from './indexer.js';
import type { ModelSource } from './model-source.js';
import type { Revisions } from './revisions.js';

export interface TupleQueue { enqueue(tuples: Tuple[], revision: number): Promise<void> }

export const relationView = (r: RelationRecord) => ({
  _id: r._id, subject: r.subject, relation: r.relation, resource: r.resource, computedTuple: r.computedTuple,
  subjectType: r.subjectType, subjectId: r.subjectId, resourceType: r.resourceType, resourceId: r.resourceId,
  createdAt: r.createdAt, revision: r.revision,
});

export class Relations {
  constructor(private readonly store: AuthzStore, private readonly graph: GraphStore, private readonly indexer: Indexer,
    private readonly models: ModelSource, private readonly revisions: Revisions, private readonly queue: TupleQueue) {}

  /** Contract rules (a)-(c): well-formed, declared relation, allowed subject type. */
  private async check(t: Tuple, index?: number) {
    const at = index === undefined ? {} : { index };
    if (!isWellFormed(t)) {
      throw new AppError('VALIDATION_FAILED', 'subject and resource must be Type:id and relation a name', [{ ...at, tuple: t }]);
    }
    const problem = (await this.models.get()).writeProblem(t);
    if (problem) throw new AppError(problem.code, problem.message, [{ ...at, tuple: tupleText(t) }]);
  }

  /** Writes one tuple and indexes everything inherited through it before returning. */
  async create(t: Tuple) {
    await this.check(t);
    const existing = await this.store.findTupleByText(tupleText(t));
    if (existing) return { record: existing, created: false, revision: await this.store.currentRevision() };
    const revision = await this.store.nextRevision({ kind: 'tuple', op: 'add', key: tupleText(t) });
    await this.revisions.begin(revision);
    try {
      const { record, created } = await this.store.putTuple(t, revision);
      await this.graph.putTuple(t);
      await this.indexer.tupleChanged(t);
      return { record, created, revision };
    } finally {
      await this.revisions.end(revision);
    }
  }

  /** Validates every tuple first (one bad tuple: nothing stored), writes all, then queues index jobs. */
  async createMany(subject: string, relation: string, resources: string[]) {
    const tuples = resources.map((resource) => ({ subject, relation, resource }));
    for (const [i, t] of tuples.entries()) await this.check(t, i);
    const revision = await this.store.nextRevision({ kind: 'tuple', op: 'add', key: `${subject}#${relation}@*${resources.length}` });
    await this.revisions.begin(revision);
    const records: RelationRecord[] = [];
    let created = 0;
    const fresh: Tuple[] = [];
    try {
      for (const t of tuples) {
        const r = await this.store.putTuple(t, revision);
        records.push(r.record);
        if (r.created) { created++; fresh.push(t); }
      }
      // The projection is part of the write (one batched statement); the index jobs read it.
      if (fresh.length) await this.graph.putTuples(fresh);
      await this.queue.enqueue(fresh, revision);
    } catch (e) {
      await this.revisions.end(revision);
      throw e;
    }
    return { relations: records.map(relationView), created, existing: tuples.length - created, revision };
  }

  async remove(id: string) {
    const found = await this.store.findTuple(id);
    if (!found) throw new AppError('NOT_FOUND', `No relation ${id}`);
    const t = { subject: found.subject, relation: found.relation, resource: found.resource };
    const revision = await this.store.nextRevision({ kind: 'tuple', op: 'delete', key: found.computedTuple });
    await this.revisions.begin(revision);
    try {
      const deleted = await this.store.deleteTuple(id);
      if (!deleted) throw new AppError('NOT_FOUND', `No relation ${id}`);
      await this.graph.deleteTuple(t);
      await this.indexer.tupleChanged(t);
      return { deleted: relationView(deleted), revision };
    } finally {
      await this.revisions.end(revision);
    }
  }

  async get(id: string) {
    const r = await this.store.findTuple(id);
    if (!r) throw new AppError('NOT_FOUND', `No relation ${id}`);
    return relationView(r);
  }

  async list(q: ListQuery & { subjectType?: string; resourceType?: string }) {
    const page = await this.store.listTuples(q);
    return { relations: page.items.map(relationView), count: page.count };
  }

  async grant(g: Tuple) {
    if (!isWellFormed(g)) throw new AppError('VALIDATION_FAILED', 'subject and resource must be Type:id and permission a name', [{ grant: g }]);
    const problem = (await this.models.get()).grantProblem(g);
    if (problem) throw new AppError(problem.code, problem.message, [{ grant: tupleText(g) }]);
    const revision = await this.store.nextRevision({ kind: 'grant', op: 'add', key: tupleText(g) });
    await this.revisions.begin(revision);
    try {
      const { created } = await this.store.putGrant(g, revision);
      await this.indexer.grantChanged(g);
      return { grant: { subject: g.subject, permission: g.relation, resource: g.resource }, created, revision };
    } finally {
      await this.revisions.end(revision);
    }
  }

  async revoke(g: Tuple) {
    if (!isWellFormed(g)) throw new AppError('VALIDATION_FAILED', 'subject and resource must be Type:id and permission a name', [{ grant: g }]);
    const revision = await this.store.nextRevision({ kind: 'grant', op: 'delete', key: tupleText(g) });
    await this.revisions.begin(revision);
    try {
      if (!(await this.store.deleteGrant(g))) throw new AppError('NOT_FOUND', `No grant ${tupleText(g)}`);
      await this.indexer.grantChanged(g);
      return { deleted: { subject: g.subject, permission: g.relation, resource: g.resource }, revision };
    } finally {
      await this.revisions.end(revision);
    }
  }
}
