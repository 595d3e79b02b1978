// The reads after a load: cold checks one at a time, then PROFILE of every check and of 20 lists, against the evaluator.
import { reader } from '../../src/stores/neo4j/connection.js';
import { pct } from '../report.js';
import { profiled } from './profile.js';
import type { Check, ListCase } from './sample.js';
import type { Variant } from './variant.js';

export interface ReadFigures {
  checkP50Ms: number;
  canHitsMean: number;
  canHitsMax: number;
  listHitsMean: number;
  /** Answers that differ from the evaluator's (empty when the variant is right). */
  wrong: string[];
  canPlan: string[];
  listPlan: string[];
  canText: string;
  listText: string;
}

export async function measureReads(v: Variant, checks: Check[], lists: ListCase[]): Promise<ReadFigures> {
  const read = reader(v.driver);
  const wrong: string[] = [];
  const lat: number[] = [];
  // Cold: each check once, one at a time, before any PROFILE run (the first one also plans the statement).
  for (const c of checks) {
    const q = v.can(c.subject, 'read', c.object);
    const t = performance.now();
    const answer = q.answer((await read(q.text, q.params)).records);
    lat.push(performance.now() - t);
    if (answer !== c.allowed) wrong.push(`can(${c.subject}, read, ${c.object}) = ${answer}, the evaluator says ${c.allowed} (${c.how})`);
  }
  const canHits: number[] = [];
  let canPlan: string[] = [];
  const shown = checks.find((c) => c.how === 'inherited') ?? checks[0]!;
  for (const c of checks) {
    const p = await profiled(v.driver, v.can(c.subject, 'read', c.object));
    canHits.push(p.dbHits);
    if (p.answer !== c.allowed) wrong.push(`PROFILE can(${c.subject}, read, ${c.object}) = ${p.answer}, the evaluator says ${c.allowed}`);
    if (c === shown) canPlan = [`can(${c.subject}, read, ${c.object}) = ${p.answer} (${c.how}), ${p.dbHits} db hits`, ...p.plan];
  }
  const listHits: number[] = [];
  let listPlan: string[] = [];
  for (const l of lists) {
    const p = await profiled(v.driver, v.list(l.subject, 'read', 'Document'));
    listHits.push(p.dbHits);
    if (JSON.stringify(p.answer) !== JSON.stringify(l.expected)) {
      wrong.push(
        `list(${l.subject}) has ${p.answer.length} objects [${p.answer.slice(0, 3).join(', ')}…], the evaluator ${l.expected.length} [${l.expected.slice(0, 3).join(', ')}…]`,
      );
    }
    if (l === lists[1]) listPlan = [`list(${l.subject}, read, Document): ${p.answer.length} objects, ${p.dbHits} db hits`, ...p.plan];
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const sample = checks[0]!;
  return { checkP50Ms: pct(lat, 0.5), canHitsMean: mean(canHits), canHitsMax: Math.max(...canHits), listHitsMean: mean(listHits), wrong, canPlan, listPlan,
    canText: v.can(sample.subject, 'read', sample.object).text, listText: v.list(lists[0]!.subject, 'read', 'Document').text };
}
