// Replays a scenario through the admin HTTP API in a shuffled write order and reports every disagreement.
import { parseTupleText } from '../../src/engine/ids.js';
import { rng } from './random.js';
import { expand, stepsOf, type RawDefinition, type Scenario, type Step } from './scenarios.js';
import type { TestService } from './service.js';

const BUILTIN = new Set(['User', 'Team']);

/** Per-case names: types get a prefix, and so do the ids of User and Team (shared, never redefined). */
export function prefixer(p: string) {
  const type = (t: string) => (BUILTIN.has(t) || t === '*' ? t : `${p}${t}`);
  const object = (o: string) => {
    const colon = o.indexOf(':');
    if (colon < 0) return o;
    const t = o.slice(0, colon);
    if (colon === o.length - 1) return `${type(t)}:`;
    return `${type(t)}:${BUILTIN.has(t) ? p : ''}${o.slice(colon + 1)}`;
  };
  const id = (t: string, i: string) => (BUILTIN.has(t) ? `${p}${i}` : i);
  const tuple = (s: string) => {
    const t = parseTupleText(s);
    if (!t) return s;
    return `${object(t.subject)}#${t.relation}@${object(t.resource)}`;
  };
  const definition = (d: RawDefinition) => {
    const e = expand(d);
    return {
      name: type(e.name),
      relations: Object.fromEntries(Object.entries(e.relations).map(([r, ts]) => [r, ts.map(type)])),
      permissions: e.permissions,
    };
  };
  return { type, object, id, tuple, definition };
}

export interface ReplayStats {
  checks: number;
  lists: number;
  writes: number;
  problems: string[];
}

/** What the steps of one replay share: the service, the names, the answers so far, and how to call and note. */
interface Replay {
  svc: TestService;
  px: ReturnType<typeof prefixer>;
  r: ReturnType<typeof rng>;
  stats: ReplayStats;
  ids: Map<string, string>;
  versions: Map<string, number>;
  note(label: string, msg: string): void;
  track(res: { body: { revision?: number } }): void;
  freshRead(path: string): ReturnType<TestService['http']>;
  write(method: string, path: string, body?: unknown): ReturnType<TestService['http']>;
}

export async function replay(svc: TestService, sc: Scenario, prefix: string, seed: number): Promise<ReplayStats> {
  const r = rng(seed);
  const px = prefixer(prefix);
  const stats: ReplayStats = { checks: 0, lists: 0, writes: 0, problems: [] };
  const ids = new Map<string, string>();
  const versions = new Map<string, number>();
  let revision = 0;
  const note = (label: string, msg: string) => stats.problems.push(`${sc.name} [${label}, seed ${seed}]: ${msg}`);
  const track = (res: { body: { revision?: number } }) => {
    if (typeof res.body?.revision === 'number') revision = Math.max(revision, res.body.revision);
  };
  const fresh = () => `consistency=at_least_as_fresh&revision=${revision}`;
  /**
   * A read at a revision: 503 INDEX_BEHIND (the index needed more than the 5 s wait, as on a cold Neo4j with eight
   * clients defining types at once) is the documented "retry" answer, and a client retries it. Answers are checked;
   * how long the index took is the benchmark's business, not a test's.
   */
  const freshRead = async (path: string) => {
    for (let attempt = 0;; attempt++) {
      const res = await svc.http('GET', `${path}&${fresh()}`);
      if (res.status !== 503 || res.body?.code !== 'INDEX_BEHIND' || attempt === 5) return res;
    }
  };

  /**
   * A write answered 503 STORE_UNAVAILABLE (its index work took over 10 s, as on a machine saturated by other work) is
   * stored and "safe to retry": a client retries it, and so does the replay.
   */
  const write = async (method: string, path: string, body?: unknown) => {
    for (let attempt = 0;; attempt++) {
      const res = await svc.http(method, path, body === undefined ? {} : { body });
      if (res.status !== 503 || res.body?.code !== 'STORE_UNAVAILABLE' || attempt === 3) return res;
    }
  };

  const c: Replay = { svc, px, r, stats, ids, versions, note, track, freshRead, write };
  for (const [i, step] of stepsOf(sc).entries()) {
    const label = i === 0 ? 'initial' : `step ${i} ${step.op}`;
    await defineTypes(c, step, label);
    await writeTuples(c, step, label);
    await refuseInvalid(c, step, label);
    await checkDecisions(c, step, label);
    await checkLists(c, step, label);
  }
  return stats;
}

/** Defines (or redefines, at the next version) the step's types, in a shuffled order. */
async function defineTypes(c: Replay, step: Step, label: string): Promise<void> {
  for (const d of c.r.shuffle(step.definitions ?? [])) {
    const def = c.px.definition(d);
    const known = c.versions.get(def.name);
    const res = known === undefined
      ? await c.svc.http('POST', '/authorization/resources', { body: def })
      : await c.svc.http('PATCH', `/authorization/resources/${def.name}`, { body: { relations: def.relations, permissions: def.permissions, version: known + 1 } });
    if (res.status >= 300) c.note(label, `define ${def.name}: ${res.status} ${res.text}`);
    c.versions.set(def.name, res.body?.resourceDefinition?.version ?? 0);
    c.track(res);
  }
}

/** Writes or deletes the step's tuples and grants, in a shuffled order. */
async function writeTuples(c: Replay, step: Step, label: string): Promise<void> {
  const writes: Array<() => Promise<void>> = [];
  for (const text of step.tuples ?? []) {
    const t = parseTupleText(c.px.tuple(text))!;
    writes.push(async () => {
      if (step.op === 'delete') {
        const id = c.ids.get(c.px.tuple(text));
        const res = await c.write('DELETE', `/authorization/relations/${id}`);
        if (res.status !== 200) c.note(label, `delete ${text}: ${res.status} ${res.text}`);
        c.track(res);
      } else {
        const res = await c.write('POST', '/authorization/relations', t);
        if (res.status !== 201 && res.status !== 200) c.note(label, `write ${text}: ${res.status} ${res.text}`);
        else c.ids.set(c.px.tuple(text), res.body._id);
        c.track(res);
      }
      c.stats.writes++;
    });
  }
  for (const text of step.grants ?? []) {
    const g = parseTupleText(c.px.tuple(text))!;
    writes.push(async () => {
      const res = await c.write(step.op === 'delete' ? 'DELETE' : 'POST', '/authorization/permissions/grant', { subject: g.subject, permission: g.relation, resource: g.resource });
      if (res.status >= 300) c.note(label, `grant ${step.op} ${text}: ${res.status} ${res.text}`);
      c.track(res);
      c.stats.writes++;
    });
  }
  for (const w of c.r.shuffle(writes)) await w();
}

/** Sends the step's invalid tuples: each refused with a 4xx, none stored. */
async function refuseInvalid(c: Replay, step: Step, label: string): Promise<void> {
  for (const bad of step.invalidTuples ?? []) {
    const body = typeof bad === 'string'
      ? (() => {
        const t = parseTupleText(c.px.tuple(bad));
        return t ?? { subject: bad, relation: 'x', resource: bad };
      })()
      : { subject: typeof bad.subject === 'string' ? c.px.object(bad.subject) : bad.subject, relation: bad.relation,
        resource: typeof bad.resource === 'string' ? c.px.object(bad.resource) : bad.resource };
    const res = await c.svc.http('POST', '/authorization/relations', { body });
    if (res.status < 400 || res.status >= 500) c.note(label, `invalid tuple ${JSON.stringify(bad)} got ${res.status}`);
    if (typeof bad === 'string' && parseTupleText(c.px.tuple(bad))) {
      const found = await c.svc.http('GET', `/authorization/relations?search=${encodeURIComponent(c.px.tuple(bad))}`);
      if (found.body.count !== 0) c.note(label, `invalid tuple ${bad} was stored`);
    }
  }
}

/** Checks each decision the step expects, at the revision of its writes. */
async function checkDecisions(c: Replay, step: Step, label: string): Promise<void> {
  for (const check of step.checks ?? []) {
    const q = new URLSearchParams({ subject: c.px.object(check.subject), permission: check.action, resource: c.px.object(check.resource) });
    const res = await c.freshRead(`/authorization/permissions/can?${q}`);
    c.stats.checks++;
    if (res.status !== 200 || res.body.allowed !== check.expect) {
      c.note(label, `can(${check.subject}, ${check.action}, ${check.resource}) expected ${check.expect}, got ${res.status} ${res.text}`);
    }
  }
}

/** A list read two at a time from `path(skip)`. */
async function paged(c: Replay, path: (skip: number) => string) {
  const got: string[] = [];
  let count = -1;
  let isPublic = false;
  for (let skip = 0;; skip += 2) {
    const res = await c.freshRead(path(skip));
    if (res.status !== 200) return { error: `${res.status} ${res.text}` };
    count = res.body.count;
    isPublic ||= Boolean(res.body.public);
    const ids: string[] = res.body.objects ?? res.body.subjects;
    got.push(...ids);
    if (ids.length < 2) break;
  }
  const sorted = JSON.stringify([...got].sort()) === JSON.stringify(got);
  return { ids: got.map((o) => o.slice(o.indexOf(':') + 1)), count, isPublic, sorted };
}

/** Lists objects and subjects two at a time: the pages must join into the whole list, in id order, with its count. */
async function checkLists(c: Replay, step: Step, label: string): Promise<void> {
  for (const l of step.listObjects ?? []) {
    const r = await paged(c, (skip) =>
      `/authorization/permissions/objects?${new URLSearchParams({
        subject: c.px.object(l.subject),
        permission: l.action,
        resourceType: c.px.type(l.type),
        skip: String(skip),
        limit: '2',
      })}`);
    c.stats.lists++;
    if (r.error !== undefined) {
      c.note(label, `listObjects ${r.error}`);
      continue;
    }
    const expected = l.expect.map((id) => c.px.id(l.type, id)).sort();
    if (JSON.stringify([...r.ids!].sort()) !== JSON.stringify(expected) || r.count !== expected.length || !r.sorted) {
      c.note(label,
        `listObjects(${l.subject}, ${l.action}, ${l.type}) expected ${JSON.stringify(expected)}, got ${JSON.stringify(r.ids)} count ${r.count}${
          r.sorted ? '' : ' (out of order)'
        }`);
    }
  }
  for (const l of step.listSubjects ?? []) {
    const r = await paged(c, (skip) =>
      `/authorization/permissions/subjects?${new URLSearchParams({
        permission: l.action,
        resource: c.px.object(l.resource),
        subjectType: c.px.type(l.subjectType),
        skip: String(skip),
        limit: '2',
      })}`);
    c.stats.lists++;
    if (r.error !== undefined) {
      c.note(label, `listSubjects ${r.error}`);
      continue;
    }
    if (r.isPublic) continue;
    const got = [...r.ids!].sort();
    const expected = l.expect.map((id) => c.px.id(l.subjectType, id)).sort();
    if (JSON.stringify(got) !== JSON.stringify(expected) || r.count !== expected.length || !r.sorted) {
      c.note(label, `listSubjects(${l.action}, ${l.resource}, ${l.subjectType}) expected ${JSON.stringify(expected)}, got ${JSON.stringify(got)}`);
    }
  }
}
