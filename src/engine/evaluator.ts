// The in-memory evaluator: `can` as reachability over (action, object) nodes, explain, list. The fuzz oracle.
import { parseObject, tupleText, typeOf, type Tuple } from './ids.js';
import type { Model } from './model.js';

type Step =
  | { fact: 'grant'; action: string; object: string }
  | { fact: 'tuple'; relation: string; object: string }
  | { fact: 'public' }
  | { next: [string, string]; via?: string };

const push = (m: Map<string, string[]>, k: string, v: string) => {
  const list = m.get(k);
  if (list) list.push(v); else m.set(k, [v]);
};

export class Evaluator {
  private readonly tuples = new Set<string>();
  private readonly grants = new Set<string>();
  private readonly subjectsOf = new Map<string, string[]>(); // "O#r" -> subjects
  private readonly grantSubjects = new Map<string, string[]>(); // "O#a" -> subjects
  private readonly objects = new Map<string, Set<string>>(); // type -> objects named by valid tuples/grants

  constructor(private readonly model: Model, tuples: Iterable<Tuple>, grants: Iterable<Tuple> = []) {
    for (const t of tuples) this.load(t, model.isValid(t), this.tuples, this.subjectsOf);
    for (const g of grants) this.load(g, model.isValidGrant(g), this.grants, this.grantSubjects);
  }

  private load(t: Tuple, valid: boolean, set: Set<string>, byTarget: Map<string, string[]>) {
    const key = tupleText(t);
    if (!valid || set.has(key)) return;
    set.add(key);
    push(byTarget, `${t.resource}#${t.relation}`, t.subject);
    for (const o of [t.subject, t.resource]) {
      const type = typeOf(o);
      if (!this.objects.has(type)) this.objects.set(type, new Set());
      this.objects.get(type)!.add(o);
    }
  }

  private *steps(action: string, object: string): Generator<Step> {
    yield { fact: 'grant', action, object };
    const type = this.model.get(typeOf(object));
    if (!type) return;
    const entries = type.permissions.get(action);
    if (!entries) {
      if (type.relations.has(action)) yield { fact: 'tuple', relation: action, object };
      return;
    }
    for (const e of entries) {
      if (e.kind === 'public') yield { fact: 'public' };
      else if (e.kind === 'rel') yield { fact: 'tuple', relation: e.rel, object };
      else if (e.kind === 'perm') yield { next: [e.perm, object] };
      else {
        for (const x of this.subjectsOf.get(`${object}#${e.rel}`) ?? []) {
          yield { next: [e.target, x], via: `${x}#${e.rel}@${object}` };
        }
      }
    }
  }

  /** The tuple a fact uses for `subject` ('' for public), or null when it does not hold. */
  private fact(subject: string, step: Step): string | null {
    if ('next' in step) return null;
    if (step.fact === 'public') return '';
    if (step.fact === 'grant') {
      const key = `${subject}#${step.action}@${step.object}`;
      return this.grants.has(key) ? key : null;
    }
    const key = `${subject}#${step.relation}@${step.object}`;
    return this.tuples.has(key) ? key : null;
  }

  can(subject: string, action: string, resource: string): boolean {
    if (subject === resource) return true;
    const seen = new Set([`${action}@${resource}`]);
    const stack: Array<[string, string]> = [[action, resource]];
    while (stack.length) {
      const [a, o] = stack.pop()!;
      for (const step of this.steps(a, o)) {
        if (!('next' in step)) {
          if (this.fact(subject, step) !== null) return true;
          continue;
        }
        const key = `${step.next[0]}@${step.next[1]}`;
        if (!seen.has(key)) {
          seen.add(key);
          stack.push(step.next);
        }
      }
    }
    return false;
  }

  /** One chain with the fewest tuples, from the subject towards the resource; null when denied. */
  explain(subject: string, action: string, resource: string): string[] | null {
    if (subject === resource) return [];
    interface Link {
      cost: number;
      prev: string | null;
      via: string | null;
    }
    const best = new Map<string, Link>([[`${action}@${resource}`, { cost: 0, prev: null, via: null }]]);
    let done = null as Link | null;
    let level: Array<[string, string]> = [[action, resource]];
    for (let cost = 0; level.length; cost++) {
      const next: Array<[string, string]> = [];
      for (let i = 0; i < level.length; i++) {
        const [a, o] = level[i]!;
        const key = `${a}@${o}`;
        if (best.get(key)!.cost < cost) continue;
        for (const step of this.steps(a, o)) {
          if (!('next' in step)) {
            const used = this.fact(subject, step);
            const total = cost + (used ? 1 : 0);
            if (used !== null && (!done || total < done.cost)) done = { cost: total, prev: key, via: used || null };
            continue;
          }
          const total = cost + (step.via ? 1 : 0);
          const nk = `${step.next[0]}@${step.next[1]}`;
          const known = best.get(nk);
          if (known && known.cost <= total) continue;
          best.set(nk, { cost: total, prev: key, via: step.via ?? null });
          (step.via ? next : level).push(step.next);
        }
      }
      if (done && done.cost <= cost + 1) break;
      level = next;
    }
    if (!done) return null;
    const chain: string[] = [];
    for (let link: Link | undefined = done; link; link = link.prev === null ? undefined : best.get(link.prev)) {
      if (link.via) chain.push(link.via);
    }
    return chain;
  }

  listObjects(subject: string, action: string, type: string): string[] {
    const candidates = new Set(this.objects.get(type) ?? []);
    if (typeOf(subject) === type) candidates.add(subject);
    return [...candidates].filter((o) => this.can(subject, action, o)).sort();
  }

  /** Subjects of `subjectType` that may `action` on `resource`; `public` when an entry admits anyone. */
  listSubjects(action: string, resource: string, subjectType: string): { subjects: string[]; public: boolean } {
    const found = new Set<string>();
    let isPublic = false;
    const add = (o: string) => {
      if (parseObject(o)?.type === subjectType) found.add(o);
    };
    add(resource);
    const seen = new Set([`${action}@${resource}`]);
    const stack: Array<[string, string]> = [[action, resource]];
    while (stack.length) {
      const [a, o] = stack.pop()!;
      for (const step of this.steps(a, o)) {
        if ('next' in step) {
          const key = `${step.next[0]}@${step.next[1]}`;
          if (!seen.has(key)) {
            seen.add(key);
            stack.push(step.next);
          }
        } else if (step.fact === 'public') {
          isPublic = true;
          for (const x of this.objects.get(subjectType) ?? []) found.add(x);
        } else if (step.fact === 'grant') {
          (this.grantSubjects.get(`${o}#${a}`) ?? []).forEach(add);
        } else {
          (this.subjectsOf.get(`${o}#${step.relation}`) ?? []).forEach(add);
        }
      }
    }
    return { subjects: [...found].sort(), public: isPublic };
  }
}
