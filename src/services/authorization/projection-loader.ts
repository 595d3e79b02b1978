// Tuples and grants read from the projection (Neo4j's tuple graph) in batched queries, kept for one unit of work or one decision.
import { tupleText, typeOf, type Tuple } from '../../engine/ids.js';
import { arrowSources, tupleView, type TupleView } from '../../engine/index-math.js';
import type { Model } from '../../engine/model.js';
import type { GraphStore } from '../../stores/ports/graph.js';

/** Tuples and grants on objects, read from the projection in batched queries and kept for one unit of work. */
export class Loaded {
  readonly view: TupleView & { add(t: Tuple): void; addGrant(g: Tuple): void };
  private readonly done = new Set<string>();
  private readonly namedBy = new Set<string>();
  /** Every edge read, valid or not, by tuple text. */
  readonly edges = { tuples: new Set<string>(), grants: new Set<string>() };
  /** Every tuple and grant read, valid or not (the engine's evaluator takes them as they are). */
  readonly read = { tuples: [] as Tuple[], grants: [] as Tuple[] };
  private edgesRead = 0;
  /**
   * `budget`: for a decision, how many edges it may read and what to throw past that (index work reads whole closures,
   * a unit at a time; a request must not read a whole large graph).
   */
  constructor(private readonly graph: GraphStore, private readonly model: Model, private readonly budget?: { edges: number; refuse(): Error }) {
    this.view = tupleView(model, [], []);
  }

  async load(objects: string[]): Promise<void> {
    const fresh = objects.filter((o) => !this.done.has(o));
    if (fresh.length === 0) return;
    fresh.forEach((o) => this.done.add(o));
    for (let i = 0; i < fresh.length; i += 2000) {
      const left = this.budget ? this.budget.edges - this.edgesRead + 1 : undefined;
      const { tuples, grants } = await this.graph.on(fresh.slice(i, i + 2000), left);
      this.edgesRead += tuples.length + grants.length;
      if (this.budget && this.edgesRead > this.budget.edges) throw this.budget.refuse();
      this.read.tuples.push(...tuples);
      this.read.grants.push(...grants);
      for (const t of tuples) {
        this.edges.tuples.add(tupleText(t));
        this.view.add(t);
        if (this.model.isValid(t)) this.namedBy.add(t.resource);
      }
      for (const g of grants) {
        this.edges.grants.add(tupleText(g));
        this.view.addGrant(g);
        if (this.model.isValidGrant(g)) this.namedBy.add(g.resource);
      }
    }
  }

  /** Loads every object a flat of `objects` can reach, one query per level. */
  async closure(objects: string[]): Promise<void> {
    // Expanded apart from loaded: an object loaded for its rows still has to lead on to its own sources.
    const expanded = new Set<string>();
    let frontier = [...new Set(objects)];
    while (frontier.length) {
      await this.load(frontier);
      frontier.forEach((o) => expanded.add(o));
      const next = new Set<string>();
      for (const o of frontier) for (const x of arrowSources(this.model, this.view, o)) if (!expanded.has(x)) next.add(x);
      frontier = [...next];
    }
  }

  /** Marks which of `objects` are the subject of a valid tuple or grant (one query). */
  async loadSubjectNames(objects: string[]): Promise<void> {
    const pending = objects.filter((o) => !this.namedBy.has(o));
    if (pending.length === 0) return;
    const slots = new Map<string, { tuples: string[]; grants: string[] }>();
    const items = pending.map((key) => {
      const type = typeOf(key);
      if (!slots.has(type)) slots.set(type, this.model.subjectSlots(type));
      return { key, ...slots.get(type)! };
    });
    for (const o of await this.graph.namedAsSubject(items)) this.namedBy.add(o);
  }

  named(obj: string): boolean {
    return this.namedBy.has(obj);
  }
}
