// Platform state for GitOps: export it as one document (tuples streamed), import it validated whole, idempotent, with a dry run.
import { isWellFormed, tupleText, type Tuple } from '../../engine/ids.js';
import { BUILTIN_NAMES, Model, schemaDefinition, validateDefinition, type Definition } from '../../engine/model.js';
import { AppError } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { AuthzStore } from '../../stores/ports.js';
import type { Definitions } from '../authorization/definitions.js';
import type { Relations } from '../authorization/relations.js';
import type { Settings } from '../config/settings.js';
import type { Schemas } from '../database/schemas.js';
import { stateHeader, stateLine, type StateHeader, type StateLine } from './document.js';
import { lines, Spool } from './ndjson.js';

export interface ImportOptions { dryRun: boolean; prune: boolean }
interface Changes { created: string[]; updated: string[]; unchanged: string[]; removed: string[] }
interface Counts { created: number; existing: number; removed: number }
export interface ImportReport {
  dryRun: boolean; prune: boolean;
  resources: Changes; schemas: Changes; config: Changes;
  relations?: Counts; grants?: Counts;
  /** What the import did not do that a reader might expect. */
  notes: string[];
  /** The latest revision after the import: read with `at_least_as_fresh` and this to see all of it. */
  revision: number;
}

type Json = Record<string, unknown>;
/** A tuple, or a direct grant (`relation` holds the permission). */
interface Item { grant: boolean; t: Tuple }
interface Plan {
  header: StateHeader; model: Model;
  resources: Changes; schemas: Changes; config: Changes; notes: string[];
  definitions: Map<string, Definition>;
}

const BATCH = 1000;
const PROGRESS_EVERY = 100_000;
/** Problems listed in a refusal (the count says how many there were). */
const MAX_PROBLEMS = 20;

/** JSON with object keys sorted, so equal content compares equal whatever the key order. */
const canonical = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => (x && typeof x === 'object' && !Array.isArray(x)
  ? Object.fromEntries(Object.entries(x as Json).sort(([a], [b]) => a.localeCompare(b))) : x));
const changes = (): Changes => ({ created: [], updated: [], unchanged: [], removed: [] });
const asItem = (l: StateLine): Item => ('permission' in l
  ? { grant: true, t: { subject: l.subject, relation: l.permission, resource: l.resource } }
  : { grant: false, t: { subject: l.subject, relation: l.relation, resource: l.resource } });
const lineOf = (i: Item) => (i.grant
  ? { subject: i.t.subject, permission: i.t.relation, resource: i.t.resource }
  : { subject: i.t.subject, relation: i.t.relation, resource: i.t.resource });
const refuse = (message: string, problems: unknown[], total = problems.length): never => {
  throw new AppError('VALIDATION_FAILED', total > problems.length ? `${message} (${total} problems; the first ${problems.length} listed)` : message, problems);
};

export class State {
  constructor(private readonly deps: {
    store: AuthzStore; definitions: Definitions; schemas: Schemas; settings: Settings; relations: Relations;
    latest(): Promise<number>; log: Logger;
  }) {}

  /** Definitions, schemas and config overrides (not the defaults), with the revision they are at least as fresh as. */
  async header(): Promise<StateHeader> {
    const revision = await this.deps.latest();
    const defs = (await this.deps.store.definitions()).sort((a, b) => a.name.localeCompare(b.name));
    return {
      version: 1, exportedAt: new Date().toISOString(), revision,
      resources: defs.map((d) => ({ name: d.name, relations: d.relations, permissions: d.permissions })),
      schemas: (await this.deps.schemas.export()).schemas as StateHeader['schemas'],
      config: await this.deps.settings.overrides(),
    };
  }

  /** Every tuple, then every grant, as state lines, read from a cursor (never all in memory). */
  private async *items(): AsyncGenerator<Item[]> {
    for await (const batch of this.deps.store.scanTuples(BATCH)) yield batch.map((t) => ({ grant: false, t }));
    for await (const batch of this.deps.store.scanGrants(BATCH)) yield batch.map((t) => ({ grant: true, t }));
  }

  /** One JSON document; with tuples its `relations` and `grants` arrays are written as they are read. */
  async *exportJson(tuples: boolean): AsyncGenerator<string> {
    const head = JSON.stringify(await this.header());
    if (!tuples) { yield head; return; }
    yield `${head.slice(0, -1)},"relations":[`;
    let first = true;
    let grants = false;
    for await (const batch of this.items()) {
      for (const item of batch) {
        if (item.grant && !grants) { yield '],"grants":['; grants = true; first = true; }
        yield `${first ? '' : ','}${JSON.stringify(lineOf(item))}`;
        first = false;
      }
    }
    yield grants ? ']}' : '],"grants":[]}';
  }

  /** The header on the first line, then one tuple or grant per line. */
  async *exportNdjson(tuples: boolean): AsyncGenerator<string> {
    yield `${JSON.stringify(await this.header())}\n`;
    if (!tuples) return;
    for await (const batch of this.items()) yield batch.map((i) => `${JSON.stringify(lineOf(i))}\n`).join('');
  }

  /** A whole document (JSON body): validated, then applied unless a dry run. */
  async importDocument(doc: StateHeader, opts: ImportOptions): Promise<ImportReport> {
    const plan = await this.plan(doc, opts);
    const inline = [...(doc.relations ?? []), ...(doc.grants ?? [])].map(asItem);
    const problems: unknown[] = [];
    inline.forEach((item, i) => {
      const problem = this.itemProblem(plan.model, item);
      const path = i < (doc.relations?.length ?? 0) ? `relations.${i}` : `grants.${i - (doc.relations?.length ?? 0)}`;
      if (problem && problems.length < MAX_PROBLEMS) problems.push({ path, ...problem });
    });
    if (problems.length) refuse('Some tuples or grants are not valid; nothing was imported', problems);
    const hasItems = doc.relations !== undefined || doc.grants !== undefined;
    return this.execute(plan, hasItems ? async function* () { for (let i = 0; i < inline.length; i += BATCH) yield inline.slice(i, i + BATCH); } : null, opts);
  }

  /**
   * An NDJSON stream: the header line, then tuples and grants. The lines are validated against the definitions the
   * import leaves in place while they are spooled to a temporary file; only when every line is valid is anything applied.
   */
  async importNdjson(stream: AsyncIterable<Buffer | string>, opts: ImportOptions): Promise<ImportReport> {
    const it = lines(stream)[Symbol.asyncIterator]();
    const first = await it.next();
    if (first.done) refuse('The body is empty: the first line must be the state header', [{ line: 1 }]);
    const plan = await this.plan(this.parseLine(first.value!.text, first.value!.n, stateHeader) as StateHeader, opts);
    const spool = new Spool();
    try {
      const problems: unknown[] = [];
      let bad = 0;
      for (let next = await it.next(); !next.done; next = await it.next()) {
        const { n, text } = next.value;
        let problem: { line: number; code?: string; message: string } | null = null;
        try {
          const item = asItem(this.parseLine(text, n, stateLine) as StateLine);
          const p = this.itemProblem(plan.model, item);
          if (p) problem = { line: n, ...p };
          else await spool.write(JSON.stringify(lineOf(item)));
        } catch (e) {
          if (!(e instanceof AppError)) throw e;
          problem = { line: n, message: e.message };
        }
        if (problem && bad++ < MAX_PROBLEMS) problems.push(problem);
        if (spool.count && spool.count % PROGRESS_EVERY === 0) this.deps.log.info({ lines: spool.count }, 'state import: lines validated');
      }
      await spool.finish();
      if (bad) refuse('Some lines are not valid; nothing was imported', problems, bad);
      const header = plan.header;
      const inline = [...(header.relations ?? []), ...(header.grants ?? [])].map(asItem);
      const items = async function* () {
        for (let i = 0; i < inline.length; i += BATCH) yield inline.slice(i, i + BATCH);
        let batch: Item[] = [];
        for await (const line of spool.read()) {
          batch.push(asItem(JSON.parse(line) as StateLine));
          if (batch.length === BATCH) { yield batch; batch = []; }
        }
        if (batch.length) yield batch;
      };
      return await this.execute(plan, items, opts);
    } finally {
      await spool.remove();
    }
  }

  private parseLine<T>(text: string, n: number, schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } } }): T {
    let value: unknown;
    try { value = JSON.parse(text); } catch { throw new AppError('VALIDATION_FAILED', `Line ${n} is not JSON`, [{ line: n }]); }
    const r = schema.safeParse(value);
    if (r.success) return r.data;
    throw new AppError('VALIDATION_FAILED', `Line ${n}: ${r.error.issues.map((i) => `${i.path.map(String).join('.') || 'line'} ${i.message}`).join('; ')}`,
      r.error.issues.map((i) => ({ line: n, path: i.path.map(String).join('.'), message: i.message })));
  }

  private itemProblem(model: Model, item: Item): { code: string; message: string } | null {
    if (!isWellFormed(item.t)) return { code: 'VALIDATION_FAILED', message: 'subject and resource must be Type:id and the relation a name' };
    const p = item.grant ? model.grantProblem(item.t) : model.writeProblem(item.t);
    return p ? { code: p.code, message: `${tupleText(item.t)}: ${p.message}` } : null;
  }

  /** Validates the header's sections and works out what they change; the model is the one the import leaves in place. */
  private async plan(header: StateHeader, opts: ImportOptions): Promise<Plan> {
    const current = new Map((await this.deps.store.definitions()).map((d) => [d.name, d as Definition]));
    const plan: Plan = {
      header, model: new Model([]), resources: changes(), schemas: changes(), config: changes(), notes: [], definitions: new Map(current),
    };
    const problems: unknown[] = [];
    const imported = new Map<string, Definition>();
    for (const [i, r] of (header.resources ?? []).entries()) {
      const def = { name: r.name, relations: r.relations, permissions: r.permissions };
      if (imported.has(def.name)) problems.push({ path: `resources.${i}`, message: `${def.name} appears twice` });
      for (const p of validateDefinition(def)) problems.push({ path: `resources.${i}.${p.path}`, message: p.message });
      imported.set(def.name, def);
    }
    if (problems.length) refuse('Some resource definitions are not valid; nothing was imported', problems.slice(0, MAX_PROBLEMS), problems.length);
    const schemaList = header.schemas ?? [];
    const enabled = schemaList.filter((s) => s.serviceOptions?.authorization?.enabled === true).map((s) => s.name);
    // Schemas first: a new one with authorization on registers its definition, which the resources may then extend.
    if (header.schemas) {
      Object.assign(plan.schemas, await this.deps.schemas.plan(schemaList, new Set(imported.keys())));
      const kept = new Set(schemaList.map((s) => s.name));
      const missing = (await this.deps.schemas.export()).schemas.map((s) => s.name).filter((n) => !kept.has(n));
      if (opts.prune && missing.length) plan.notes.push(`schemas are never pruned (there is no schema deletion); kept: ${missing.join(', ')}`);
    }
    for (const name of enabled) if (!plan.definitions.has(name)) plan.definitions.set(name, schemaDefinition(name));
    if (header.resources) {
      for (const [name, def] of imported) {
        const before = current.get(name);
        const list = !before ? plan.resources.created
          : canonical([before.relations, before.permissions]) === canonical([def.relations, def.permissions]) ? plan.resources.unchanged : plan.resources.updated;
        list.push(name);
        plan.definitions.set(name, def);
      }
      if (opts.prune) {
        for (const name of current.keys()) {
          if (imported.has(name) || BUILTIN_NAMES.has(name) || enabled.includes(name)) continue;
          plan.resources.removed.push(name);
          plan.definitions.delete(name);
        }
      }
    }
    if (header.config) {
      const stored = await this.deps.settings.overrides() as Record<string, Json | undefined>;
      for (const [name, value] of Object.entries(header.config)) {
        this.deps.settings.check(name, value, `config.${name}`);
        (canonical(stored[name] ?? {}) === canonical(value) ? plan.config.unchanged : stored[name] ? plan.config.updated : plan.config.created).push(name);
      }
      if (opts.prune) for (const name of Object.keys(stored)) if (!(name in header.config)) plan.config.removed.push(name);
    }
    plan.model = new Model(plan.definitions.values());
    return plan;
  }

  private async execute(plan: Plan, items: (() => AsyncIterable<Item[]>) | null, opts: ImportOptions): Promise<ImportReport> {
    const { header } = plan;
    const { definitions, schemas, settings, relations, store, log } = this.deps;
    if (!opts.dryRun) {
      if (header.schemas) await schemas.import(header.schemas, new Set((header.resources ?? []).map((r) => r.name)));
      for (const name of [...plan.resources.created, ...plan.resources.updated]) {
        const def = plan.definitions.get(name)!;
        // A schema imported just now may have registered this very definition.
        const now = await store.findDefinition(name);
        if (now && canonical([now.relations, now.permissions]) === canonical([def.relations, def.permissions])) continue;
        await definitions.put(def, undefined);
      }
      for (const name of [...plan.config.created, ...plan.config.updated]) await settings.replace(name, header.config![name]!);
      for (const name of plan.config.removed) await settings.replace(name, {});
    }
    const report: ImportReport = {
      dryRun: opts.dryRun, prune: opts.prune, resources: plan.resources, schemas: plan.schemas, config: plan.config, notes: plan.notes, revision: 0,
    };
    if (items) {
      const tuples: Counts = { created: 0, existing: 0, removed: 0 };
      const grants: Counts = { created: 0, existing: 0, removed: 0 };
      // Pruning needs what the import holds; kept as texts (about 100 bytes per tuple).
      const kept = opts.prune ? new Set<string>() : null;
      let seen = 0;
      for await (const batch of items()) {
        for (const [grant, counts] of [[false, tuples], [true, grants]] as const) {
          const part = [...new Map(batch.filter((i) => i.grant === grant).map((i) => [tupleText(i.t), i.t])).values()];
          if (!part.length) continue;
          for (const t of part) kept?.add(`${grant ? 'g' : 't'}${tupleText(t)}`);
          // Only what is missing is written: a repeated import commits nothing, so it neither advances the
          // revision nor queues index work (a GitOps loop may import the same state every minute).
          const stored = await (grant ? store.presentGrants(part.map(tupleText)) : store.presentTuples(part.map(tupleText)));
          const missing = part.filter((t) => !stored.has(tupleText(t)));
          let created = missing.length;
          if (!opts.dryRun && missing.length) created = (grant ? await relations.grantMany(missing) : await relations.addMany(missing)).created;
          counts.created += created;
          counts.existing += part.length - created;
        }
        seen += batch.length;
        if (Math.floor(seen / PROGRESS_EVERY) > Math.floor((seen - batch.length) / PROGRESS_EVERY)) log.info({ items: seen, dryRun: opts.dryRun }, 'state import: tuples and grants');
      }
      if (kept) {
        for await (const batch of this.items()) {
          for (const item of batch) {
            if (kept.has(`${item.grant ? 'g' : 't'}${tupleText(item.t)}`)) continue;
            if (!opts.dryRun) await this.removeQuietly(item);
            (item.grant ? grants : tuples).removed++;
          }
        }
      }
      report.relations = tuples;
      report.grants = grants;
    } else if (opts.prune) {
      report.notes.push('tuples and grants are pruned only when the document carries them (export with ?tuples=true)');
    }
    // Definitions go after the tuples: their removal also drops the index data of the type.
    if (!opts.dryRun) for (const name of plan.resources.removed) await this.deps.definitions.remove(name);
    report.revision = await this.deps.latest();
    return report;
  }

  /** A concurrent delete of the same tuple is no failure. */
  private async removeQuietly(item: Item): Promise<void> {
    try {
      if (item.grant) await this.deps.relations.revoke(item.t);
      else await this.deps.relations.removeTuple(item.t);
    } catch (e) {
      if (!(e instanceof AppError && e.code === 'NOT_FOUND')) throw e;
    }
  }
}
