// Pushes the editors' model and tuples to the service that serves the page, with an API token (or admin JWT): each
// definition through POST /authorization/resources, the tuples in writes of up to 1,000, each grant on its own.
import { Model } from '../../../engine/model.js';
import { parseTupleText, type Tuple } from '../../../engine/ids.js';
import { expandDefinition, type Scenario } from '../../../engine/scenario.js';

/** The admin surface's limit on one write call (WRITE_MAX). */
const WRITE_BATCH = 1000;
/** Grants are written one call each: a bound on how many one push makes. */
const MAX_GRANTS = 1000;

export interface PushReport {
  definitions: number;
  tuples: number;
  grants: number;
  /** The revision of the last write: a read at consistency=at_least_as_fresh&revision=N sees everything pushed. */
  revision: number;
  /** Tuples and grants left out because the model refuses them (the playground shows them as refused). */
  skipped: string[];
}

export class PushError extends Error {}

type Call = (method: string, path: string, body: unknown) => Promise<{ revision?: number }>;

function caller(token: string, base: string): Call {
  return async (method, path, body) => {
    let res: Response;
    try {
      res = await fetch(base + path, {
        method,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      });
    } catch (e) {
      throw new PushError(`${method} ${path}: the service did not answer (${(e as Error).message})`);
    }
    const text = await res.text();
    let reply: { code?: string; message?: string; revision?: number } = {};
    try {
      reply = JSON.parse(text) as typeof reply;
    } catch { /* not JSON: reported below by status */ }
    if (!res.ok) throw new PushError(`${method} ${path}: ${res.status} ${reply.code ?? ''} ${reply.message ?? text.slice(0, 200)}`.replace(/\s+/g, ' ').trim());
    return reply;
  };
}

/** Writes the scenario's initial content (not its steps) to the service at `base` ('' for the page's own origin). */
export async function pushScenario(sc: Scenario, token: string, base = ''): Promise<PushReport> {
  if (!token.trim()) throw new PushError('an API token is needed: create one with POST /api-tokens (admin surface)');
  const call = caller(token.trim(), base);
  const definitions = (sc.definitions ?? []).map(expandDefinition);
  const model = new Model(definitions);
  const skipped: string[] = [];
  const allowed = (texts: string[] | undefined, problem: (t: Tuple) => unknown) =>
    (texts ?? []).flatMap((text) => {
      const t = parseTupleText(text);
      if (t && !problem(t)) return [t];
      skipped.push(text);
      return [];
    });
  const tuples = allowed(sc.tuples, (t) => model.writeProblem(t));
  const grants = allowed(sc.grants, (t) => model.grantProblem(t));
  if (grants.length > MAX_GRANTS) throw new PushError(`${grants.length} grants: a push writes at most ${MAX_GRANTS}`);

  let revision = 0;
  const track = (r: { revision?: number }) => {
    if (typeof r.revision === 'number') revision = Math.max(revision, r.revision);
  };
  for (const d of definitions) track(await call('POST', '/authorization/resources', d));
  for (let i = 0; i < tuples.length; i += WRITE_BATCH) {
    const updates = tuples.slice(i, i + WRITE_BATCH).map((t) => ({ operation: 'create', ...t }));
    track(await call('POST', '/authorization/relations/write', { updates }));
  }
  for (const g of grants) track(await call('POST', '/authorization/permissions/grant', { subject: g.subject, permission: g.relation, resource: g.resource }));
  return { definitions: definitions.length, tuples: tuples.length, grants: grants.length, revision, skipped };
}
