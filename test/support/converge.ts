// Compares a running service with the engine's evaluator over what MongoDB holds: the test of convergence.
import { Evaluator } from '../../src/engine/evaluator.js';
import { Model, type Definition } from '../../src/engine/model.js';
import type { Tuple } from '../../src/engine/ids.js';
import { memoryBackendInUse } from './service.js';

type Http = (method: string, path: string) => Promise<{ status: number; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface MongoState {
  model: Model;
  tuples: Tuple[];
  grants: Tuple[];
  texts: Set<string>;
}

/** What the service's stores hold: read from MongoDB, or from the twins when the service runs on them (TEST_STORES=memory). */
export async function readState(svc: { config: { MONGO_URL: string } }): Promise<MongoState> {
  const twins = process.env.TEST_STORES === 'memory' ? memoryBackendInUse() : null;
  if (!twins) return readMongo(svc.config.MONGO_URL);
  const { authz } = twins.shared;
  const all = async (batches: AsyncIterable<Tuple[]>) => {
    const out: Tuple[] = [];
    for await (const b of batches) out.push(...b);
    return out;
  };
  const [defs, tuples, grants] = await Promise.all([authz.definitions(), all(authz.scanTuples(1000)), all(authz.scanGrants(1000))]);
  return stateOf(defs, tuples, grants);
}

/** The state from the stored definitions, tuples and grants, whichever store they were read from. */
function stateOf(defs: Definition[], tuples: Tuple[], grants: Tuple[]): MongoState {
  const model = new Model(defs.map((d) => ({ name: d.name, relations: d.relations, permissions: d.permissions })));
  return { model, tuples, grants, texts: new Set(tuples.map((t) => `${t.subject}#${t.relation}@${t.resource}`)) };
}

export async function readMongo(url: string): Promise<MongoState> {
  // Loaded here: a file on the twins never loads the driver.
  const [{ MongoClient }, { COLLECTIONS }] = await Promise.all([import('mongodb'), import('../../src/stores/mongo/connection.js')]);
  const client = new MongoClient(url);
  await client.connect();
  try {
    const db = client.db();
    const defs = await db.collection(COLLECTIONS.definitions).find({}).toArray();
    const tuples = (await db.collection(COLLECTIONS.relations).find({}).toArray())
      .map((r) => ({ subject: r.subject as string, relation: r.relation as string, resource: r.resource as string }));
    const grants = (await db.collection(COLLECTIONS.grants).find({}).toArray())
      .map((g) => ({ subject: g.subject as string, relation: g.permission as string, resource: g.resource as string }));
    return stateOf(defs.map((d) => ({ name: d.name as string, relations: d.relations, permissions: d.permissions })), tuples, grants);
  } finally {
    await client.close();
  }
}

/** Waits until the outbox is empty and no rebuild runs (at most `ms`). */
export async function waitIdle(http: Http, ms = 120_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const s = await http('GET', '/authorization/indexer/status').catch(() => null);
    if (s?.status === 200 && s.body.pending === 0 && s.body.rebuild === null && s.body.rebuildRequested === null) return;
    if (Date.now() > deadline) throw new Error(`not idle after ${ms} ms: ${JSON.stringify(s?.body)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Runs `checks` with at most `width` in flight; their answers in the order given. */
async function inParallel<T>(checks: Array<() => Promise<T>>, width: number): Promise<T[]> {
  const out: T[] = new Array(checks.length);
  let next = 0;
  const lane = async () => {
    while (next < checks.length) {
      const i = next++;
      out[i] = await checks[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, checks.length) }, lane));
  return out;
}

/**
 * Every disagreement between the service and the evaluator, over checks among `objects` and list queries of `types`.
 * The queries only read, so a few run at once: the same checks, with the round trips to the service and its stores
 * overlapping instead of queued one behind another (hundreds per call).
 */
export async function disagreements(http: Http, state: MongoState, opts: { subjects: string[]; resources: string[]; types: string[]; subjectTypes?: string[] }): Promise<string[]> {
  const ev = new Evaluator(state.model, state.tuples, state.grants);
  const checks: Array<() => Promise<string | null>> = [];
  const actionsOf = (o: string) => state.model.actionsOf(o.slice(0, o.indexOf(':')));
  for (const s of opts.subjects) {
    for (const o of opts.resources) {
      for (const a of actionsOf(o)) {
        checks.push(async () => {
          const q = new URLSearchParams({ subject: s, permission: a, resource: o, consistency: 'fully_consistent' });
          const r = await http('GET', `/authorization/permissions/can?${q}`);
          const want = ev.can(s, a, o);
          return r.status !== 200 || r.body.allowed !== want ? `can(${s}, ${a}, ${o}): want ${want}, got ${r.status} ${JSON.stringify(r.body)}` : null;
        });
      }
    }
    for (const type of opts.types) {
      for (const a of state.model.actionsOf(type)) {
        checks.push(async () => {
          const q = new URLSearchParams({ subject: s, permission: a, resourceType: type, limit: '1000', consistency: 'fully_consistent' });
          const r = await http('GET', `/authorization/permissions/objects?${q}`);
          const want = ev.listObjects(s, a, type).sort();
          const got = r.status === 200 ? [...r.body.objects].sort() : null;
          return JSON.stringify(got) !== JSON.stringify(want) || r.body.count !== want.length
            ? `listObjects(${s}, ${a}, ${type}): want ${want.length}, got ${got?.length ?? r.status} (count ${r.body?.count})` : null;
        });
      }
    }
  }
  // Who may act on each resource, per subject type (skipped where the decision is public: everyone may).
  for (const o of opts.resources) {
    for (const a of actionsOf(o)) {
      for (const type of opts.subjectTypes ?? opts.types) {
        const want = ev.listSubjects(a, o, type);
        if (want.public) continue;
        checks.push(async () => {
          const q = new URLSearchParams({ permission: a, resource: o, subjectType: type, limit: '1000', consistency: 'fully_consistent' });
          const r = await http('GET', `/authorization/permissions/subjects?${q}`);
          const got = r.status === 200 ? r.body.subjects : null;
          const sorted = [...want.subjects].sort();
          return JSON.stringify(got) !== JSON.stringify(sorted) || r.body.count !== sorted.length
            ? `listSubjects(${a}, ${o}, ${type}): want ${JSON.stringify(sorted)}, got ${JSON.stringify(got)} (count ${r.body?.count})` : null;
        });
      }
    }
  }
  return (await inParallel(checks, 4)).filter((p): p is string => p !== null);
}
