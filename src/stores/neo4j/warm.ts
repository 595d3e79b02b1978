// Plans every statement the service sends, as a start does (NEO4J_WARM_PLANS): the plain ones and the spliced ones, and
// runs the reads a check or a list sends, so their first real call finds its plan.
import type { Driver } from 'neo4j-driver';
import type { IndexPlan } from '../../engine/index-plan.js';
import type { IndexStore } from '../ports/index-store.js';
import { warmNeo4j } from './connection.js';
import { putEdgesStatements } from './graph.js';
import { neo4jIndexStore, splicedStatements } from './index-store.js';

/** The statements spliced before any model is known (subject lists, edge writes), planned beside the plain ones. */
export const warmedSpliced = () => [...splicedStatements(), ...putEdgesStatements()];

/** Ids no tuple names (a type no definition may have: `~` is not a name character), so a warming read finds nothing. */
const NOBODY = '~warm:subject';
const NOTHING = '~warm:object';
/** A plan with every part (its values are in one map parameter, so any plan shares the cached plan: inOneMap). */
const PLAN: IndexPlan = {
  public: false,
  direct: ['~a'],
  grants: ['~a'],
  slots: ['~a'],
  arrows: [{ rel: '~a', targets: ['~a'], types: ['~a'] }],
};

/**
 * An EXPLAIN is a cache entry of its own in Neo4j: the EXPLAINs above left a check's first real call to plan its
 * statement again (0.7-2.3 s each; 22 s for a first list on a cold JVM). So the reads of checks and lists run here once
 * as the service sends them: a check, a relation check alone and batched, and each list and count. How many ran.
 */
export async function warmIndexReads(index: IndexStore): Promise<number> {
  const batch = (one: (i: number) => Promise<unknown>) => Promise.all(Array.from({ length: 6 }, (_, i) => one(i)));
  const reads: Array<() => Promise<unknown>> = [
    // A check alone and a batch of them are one statement (check-many); a relation check alone and a batch are two.
    () => index.check(NOBODY, NOTHING, PLAN),
    () => index.holds(NOBODY, NOTHING, '~a'),
    // The batcher sends two alone and groups the rest.
    () => batch((i) => index.holds(`${NOBODY}${i}`, NOTHING, '~a')),
    () => index.listObjects(NOBODY, '~a', PLAN, 0, 10),
    () => index.countObjects(NOBODY, '~a', PLAN, ''),
    () => index.listSubjects(NOTHING, '~a', PLAN, 0, 10),
    () => index.countSubjects(NOTHING, '~a', PLAN, ''),
    () => index.listHeld(NOBODY, '~a', '~a', 0, 10),
    () => index.countHeld(NOBODY, '~a', '~a', ''),
    () => index.listHolders(NOTHING, '~a', '~a', 0, 10),
    () => index.countHolders(NOTHING, '~a', '~a', ''),
  ];
  for (const read of reads) await read();
  return reads.length;
}

/** Plans them all, then runs the index's reads; how many statements were planned and how many reads ran. */
export async function warmAll(driver: Driver): Promise<{ statements: number; reads: number }> {
  const statements = await warmNeo4j(driver, warmedSpliced());
  return { statements, reads: await warmIndexReads(neo4jIndexStore(driver)) };
}
