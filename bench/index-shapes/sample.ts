// The checks and lists every variant answers, with the engine evaluator's answers: half the checks allowed, some inherited.
import type { Evaluator } from '../../src/engine/evaluator.js';
import type { DataSet } from '../data-set.js';

export interface Check {
  subject: string;
  object: string;
  allowed: boolean;
  how: 'direct' | 'inherited' | 'denied';
}
export interface ListCase {
  subject: string;
  expected: string[];
}

/**
 * `n` checks of read on documents: a quarter through a direct reader tuple, a quarter inherited only (through the
 * team tree: the user is in no direct tuple on the document), half denied; pairs spread as the service bench spreads them.
 */
export function sampleChecks(set: DataSet, evaluator: Evaluator, n: number): Check[] {
  const readers = new Set<string>();
  for (const [s, r, o] of set.tuples) if (r === 'reader' || r === 'owner') readers.add(`${s}|${o}`);
  const want = { direct: Math.floor(n / 4), inherited: Math.ceil(n / 2) - Math.floor(n / 4), denied: n - Math.ceil(n / 2) };
  const out: Check[] = [];
  const take = (c: Check) => {
    if (want[c.how] > 0) {
      want[c.how]--;
      out.push(c);
    }
  };
  for (let d = 0; want.direct > 0 && d < set.docs; d += 7) {
    const subject = `User:u${(d * 13) % set.users}`;
    const object = `Document:d${d}`;
    if (!evaluator.can(subject, 'read', object)) throw new Error(`the evaluator denies the reader tuple ${subject} on ${object}`);
    take({ subject, object, allowed: true, how: 'direct' });
  }
  for (let i = 0; (want.inherited > 0 || want.denied > 0) && i < 50 * n; i++) {
    const subject = `User:u${(i * 31) % set.users}`;
    const object = `Document:d${(i * 97) % set.docs}`;
    const allowed = evaluator.can(subject, 'read', object);
    if (allowed && readers.has(`${subject}|${object}`)) continue;
    take({ subject, object, allowed, how: allowed ? 'inherited' : 'denied' });
  }
  if (out.length < n) throw new Error(`found only ${out.length} of ${n} checks in the data set`);
  return out;
}

/** The lists of readable documents of 20 users (as the service bench picks them), first page of 100 in key order. */
export function sampleLists(set: DataSet, evaluator: Evaluator): ListCase[] {
  return Array.from({ length: 20 }, (_, u) => {
    const subject = `User:u${(u * 3) % set.users}`;
    return { subject, expected: evaluator.listObjects(subject, 'read', 'Document').slice(0, 100) };
  });
}
