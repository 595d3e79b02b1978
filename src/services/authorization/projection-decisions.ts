// Decisions from the projection with the engine's evaluator: how types are answered while their re-index is pending.
import { Evaluator } from '../../engine/evaluator.js';
import { typeOf } from '../../engine/ids.js';
import type { Model } from '../../engine/model.js';
import { AppError } from '../../errors.js';
import type { GraphStore } from '../../stores/ports/graph.js';
import { Loaded } from './projection-loader.js';

/**
 * How many objects one list may visit in the projection. A walk past it is refused with 503 INDEX_BEHIND (retry once the
 * re-index is done), so a pending re-index never lets one request read a whole large graph.
 */
export const WALK_MAX = 20_000;
/** How many tuples and grants one decision may read from the projection, past which it is refused the same way. */
export const EDGES_MAX = 100_000;
const STEP = 2000;

/**
 * Each decision reads what it needs from Neo4j's tuple graph, which every acknowledged write has already reached, and
 * evaluates it with the same evaluator the conformance suite checks the index against. A check loads the resource's
 * closure (one query per arrow level). A list of objects first walks up from the subject along tuples and grants to
 * the candidates of the type (any object the subject may act on is reached that way), or takes every object of the
 * type when the permission can be public, then evaluates each. No answer is cached.
 */
export class ProjectionDecisions {
  /** `edgesMax`: the bound on what one decision reads (set lower by tests). */
  constructor(private readonly graph: GraphStore, private readonly edgesMax = EDGES_MAX) {}

  async can(model: Model, subject: string, action: string, resource: string): Promise<boolean> {
    const loaded = this.loader(model, resource);
    await loaded.closure([resource]);
    return this.evaluator(model, loaded).can(subject, action, resource);
  }

  async listSubjects(model: Model, action: string, resource: string, subjectType: string): Promise<{ subjects: string[]; public: boolean }> {
    const loaded = this.loader(model, resource);
    await loaded.closure([resource]);
    // A public answer lists only the subjects it happened to read; the flag is what counts.
    return this.evaluator(model, loaded).listSubjects(action, resource, subjectType);
  }

  async listObjects(model: Model, subject: string, action: string, type: string): Promise<string[]> {
    const candidates = new Set<string>();
    if (mayBePublic(model, type, action)) {
      const all = await this.graph.ofType(type, WALK_MAX + 1);
      if (all.length > WALK_MAX) throw tooLarge(type);
      all.forEach((o) => candidates.add(o));
    }
    // Up from the subject: every object it may act on lies above it along tuple and grant edges.
    const seen = new Set([subject]);
    let frontier = [subject];
    while (frontier.length) {
      const next: string[] = [];
      for (let i = 0; i < frontier.length; i += STEP) {
        for (const o of await this.graph.from(frontier.slice(i, i + STEP), WALK_MAX + 1 - seen.size)) {
          if (seen.has(o)) continue;
          seen.add(o);
          next.push(o);
        }
        if (seen.size > WALK_MAX) throw tooLarge(type);
      }
      frontier = next;
    }
    for (const o of seen) if (typeOf(o) === type) candidates.add(o);
    if (typeOf(subject) === type) candidates.add(subject);
    const loaded = this.loader(model, type);
    await loaded.closure([...candidates]);
    // As the index lists them: objects named by a valid tuple or grant (they have rows), and the subject itself.
    await loaded.loadSubjectNames([...candidates]);
    const evaluator = this.evaluator(model, loaded);
    return [...candidates].filter((o) => (o === subject || loaded.named(o)) && evaluator.can(subject, action, o)).sort();
  }

  private loader(model: Model, about: string): Loaded {
    return new Loaded(this.graph, model, { edges: this.edgesMax, refuse: () => tooMany(about, this.edgesMax) });
  }

  private evaluator(model: Model, loaded: Loaded): Evaluator {
    return new Evaluator(model, loaded.read.tuples, loaded.read.grants);
  }
}

/** Whether `action` on `type` can reach a public entry (`*`) through the model's arrows (any object may then qualify). */
function mayBePublic(model: Model, type: string, action: string): boolean {
  const seen = new Set<string>();
  const todo: Array<[string, string]> = [[type, action]];
  while (todo.length) {
    const [t, a] = todo.pop()!;
    if (seen.has(`${t}#${a}`)) continue;
    seen.add(`${t}#${a}`);
    const def = model.get(t);
    for (const e of def?.permissions.get(a) ?? []) {
      if (e.kind === 'public') return true;
      if (e.kind === 'perm') todo.push([t, e.perm]);
      if (e.kind === 'arrow') {
        const allowed = def!.relations.get(e.rel) ?? [];
        const targets = allowed.includes('*') ? [...model.types.keys()] : allowed;
        for (const x of targets) todo.push([x, e.target]);
      }
    }
  }
  return false;
}

const tooLarge = (type: string) =>
  new AppError('INDEX_BEHIND', `A definition change affecting ${type} is being re-indexed and this list would read more than ${WALK_MAX} objects meanwhile; retry shortly`);
const tooMany = (about: string, max: number) =>
  new AppError('INDEX_BEHIND', `A definition change affecting ${about} is being re-indexed and this decision would read more than ${max} tuples meanwhile; retry shortly`);
