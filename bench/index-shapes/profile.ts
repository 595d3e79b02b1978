// PROFILE of one read: its answer, the db hits of its whole plan and the plan as lines (operator, details, rows, db hits).
import neo4j, { type Driver, type ProfiledPlan } from 'neo4j-driver';
import type { Query } from './variant.js';

const hits = (p: ProfiledPlan): number => p.dbHits + p.children.reduce((a, c) => a + hits(c), 0);

function lines(p: ProfiledPlan, depth = 0, out: string[] = []): string[] {
  const details = String(p.arguments.Details ?? '').replace(/\s+/g, ' ').slice(0, 110);
  out.push(`${'  '.repeat(depth)}${p.operatorType.replace(/@.*$/, '')} ${details} | rows ${p.rows} | db hits ${p.dbHits}`);
  for (const c of p.children) lines(c, depth + 1, out);
  return out;
}

/** Runs `PROFILE <query>` as an auto-commit read (as the adapters' reads run). */
export async function profiled<A>(driver: Driver, q: Query<A>): Promise<{ answer: A; dbHits: number; plan: string[] }> {
  const session = driver.session({ defaultAccessMode: neo4j.session.READ });
  try {
    const r = await session.run(`PROFILE ${q.text}`, q.params);
    const plan = r.summary.profile;
    if (!plan) throw new Error('PROFILE returned no plan');
    return { answer: q.answer(r.records), dbHits: hits(plan), plan: lines(plan) };
  } finally {
    await session.close();
  }
}
