// Platform state for GitOps: export it as one document (tuples streamed), import it validated whole, idempotent, with a dry run.
import { canonical } from '../../engine/canonical.js';
import { isWellFormed, tupleText, type Tuple } from '../../engine/ids.js';
import { BUILTIN_NAMES, Model, schemaDefinition, validateDefinition, type Definition } from '../../engine/model.js';
import { AppError, type ErrorCode } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { DefinitionStore } from '../../stores/ports/definitions.js';
import type { GrantReads } from '../../stores/ports/grants.js';
import type { TupleReads } from '../../stores/ports/tuples.js';
import type { Definitions } from '../authorization/definitions.js';
import type { ModelSource } from '../authorization/model-source.js';
import type { Relations } from '../authorization/relations.js';
import type { Settings } from '../config/settings.js';
import type { Schemas } from '../database/schemas.js';
import { stateHeader, stateLine, type StateHeader, type StateLine } from './document.js';
import { lines, removeStaleSpools, Spool } from './ndjson.js';

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
interface Problem { path?: string; line?: number; code?: ErrorCode; message: string }
interface Plan {
  header: StateHeader; model: Model; startRevision: number;
  resources: Changes; schemas: Changes; config: Changes; notes: string[];
  definitions: Map<string, Definition>;
}
/** Which of the document's sections a prune may empty: only those it carries. */
interface Carried { relations: boolean; grants: boolean }

const BATCH = 1000;
const PROGRESS_EVERY = 100_000;
/** Problems listed in a refusal (the message says how many there were). */
const MAX_PROBLEMS = 20;

const changes = (): Changes => ({ created: [], updated: [], unchanged: [], removed: [] });
type ItemLine = Exclude<StateLine, { end: unknown }>;
const asItem = (l: ItemLine): Item => ('permission' in l
  ? { grant: true, t: { subject: l.subject, relation: l.permission, resource: l.resource } }
  : { grant: false, t: { subject: l.subject, relation: l.relation, resource: l.resource } });
const lineOf = (i: Item) => (i.grant
  ? { subject: i.t.subject, permission: i.t.relation, resource: i.t.resource }
  : { subject: i.t.subject, relation: i.t.relation, resource: i.t.resource });
const textOf = (i: Item) => `${i.grant ? 'g' : 't'}${tupleText(i.t)}`;

const isModel = (p: Problem) => p.code !== undefined && p.code !== 'VALIDATION_FAILED';
/** What the definitions are, in a form that compares equal when they are the same. */
const definitionsKey = (defs: Map<string, Definition>) => canonical([...defs.values()].sort((a, b) => a.name.localeCompare(b.name)));

/**
 * Refuses the import. Lines that are not well-formed are a 400; when every problem is one the model rejects
 * (a relation not declared, a type unknown), the answer is the 422 that a single write of it would get.
 */
function refuse(what: string, problems: Problem[], total = problems.length, allModel = problems.every(isModel)): never {
  const listed = problems.slice(0, MAX_PROBLEMS);
  const code = allModel ? problems[0]!.code! : 'VALIDATION_FAILED';
  const message = `${what}; nothing was imported${total > listed.length ? ` (${total} problems; the first ${listed.length} listed)` : ''}`;
  throw new AppError(code, message, listed);
}

export class State {
  constructor(private readonly deps: {
    store: DefinitionStore & TupleReads & GrantReads; definitions: Definitions; schemas: Schemas; settings: Settings; relations: Relations; models: ModelSource;
    latest(): Promise<number>; log: Logger;
    /** Runs `fn` alone among every process (one import at a time); `held` says whether it still is. */
    exclusive<T>(fn: (held: () => boolean) => Promise<T>): Promise<T>;
  }) {
    removeStaleSpools().catch((e: Error) => deps.log.warn({ err: e.message }, 'stale state-import spools not removed'));
  }

  /** Definitions, schemas and config overrides (not the defaults), at a revision the tuples that follow stop at. */
  private async header(carries: Array<'relations' | 'grants'>): Promise<{ header: StateHeader; model: Model }> {
    const revision = await this.deps.latest();
    const defs = (await this.deps.store.definitions()).sort((a, b) => a.name.localeCompare(b.name));
    const header: StateHeader = {
      version: 1, exportedAt: new Date().toISOString(), revision, ...(carries.length ? { carries } : {}),
      resources: defs.map((d) => ({ name: d.name, relations: d.relations, permissions: d.permissions })),
      schemas: (await this.deps.schemas.export()).schemas as StateHeader['schemas'],
      config: await this.deps.settings.overrides(),
    };
    return { header, model: new Model(defs) };
  }

  /**
   * Every tuple, then every grant, read from cursors (never all in memory): those stored by the header's revision
   * that its definitions allow. Tuples a definition no longer allows stay in MongoDB but are not exported, so an
   * export always imports again.
   */
  private async *items(upTo: number, model: Model): AsyncGenerator<Item[]> {
    for await (const batch of this.deps.store.scanTuples(BATCH, upTo)) yield batch.filter(model.isValid).map((t) => ({ grant: false, t }));
    for await (const batch of this.deps.store.scanGrants(BATCH, upTo)) yield batch.filter(model.isValidGrant).map((t) => ({ grant: true, t }));
  }

  /** One JSON document; with tuples its `relations` and `grants` arrays are written as they are read. */
  async *exportJson(tuples: boolean): AsyncGenerator<string> {
    const { header, model } = await this.header(tuples ? ['relations', 'grants'] : []);
    const head = JSON.stringify(header);
    if (!tuples) { yield head; return; }
    yield `${head.slice(0, -1)},"relations":[`;
    let written = 0;
    let grants = false;
    for await (const batch of this.items(header.revision!, model)) {
      if (!batch.length) continue;
      if (batch[0]!.grant && !grants) { yield '],"grants":['; grants = true; written = 0; }
      yield `${written ? ',' : ''}${batch.map((i) => JSON.stringify(lineOf(i))).join(',')}`;
      written += batch.length;
    }
    yield grants ? ']}' : '],"grants":[]}';
  }

  /** The header on the first line, then one tuple or grant per line. */
  async *exportNdjson(tuples: boolean): AsyncGenerator<string> {
    const { header, model } = await this.header(tuples ? ['relations', 'grants'] : []);
    yield `${JSON.stringify(header)}\n`;
    if (!tuples) return;
    const end = { relations: 0, grants: 0 };
    for await (const batch of this.items(header.revision!, model)) {
      for (const i of batch) end[i.grant ? 'grants' : 'relations']++;
      yield batch.map((i) => `${JSON.stringify(lineOf(i))}\n`).join('');
    }
    yield `${JSON.stringify({ end })}\n`;
  }

  /** A whole document (JSON body): validated, then applied unless a dry run. */
  async importDocument(doc: StateHeader, opts: ImportOptions): Promise<ImportReport> {
    return this.alone(opts, async (held) => {
      const plan = await this.plan(doc, opts);
      const inline = this.inline(doc, plan.model);
      const carried = { relations: doc.relations !== undefined, grants: doc.grants !== undefined };
      const items = carried.relations || carried.grants
        ? async function* () { for (let i = 0; i < inline.length; i += BATCH) yield inline.slice(i, i + BATCH); }
        : null;
      return this.execute(plan, items, carried, opts, held);
    });
  }

  /**
   * An NDJSON stream: the header line, then tuples and grants. The lines are validated against the definitions the
   * import leaves in place while they are spooled to a temporary file; only when every line is valid is anything applied.
   */
  async importNdjson(stream: AsyncIterable<Buffer | string>, opts: ImportOptions): Promise<ImportReport> {
    const it = lines(stream)[Symbol.asyncIterator]();
    const spool = new Spool();
    try {
      const first = await it.next();
      if (first.done) refuse('The body is empty: the first line must be the state header', [{ line: 1, message: 'missing' }]);
      const header = this.parseLine(first.value!.text, first.value!.n, stateHeader) as StateHeader;
      // The lines are read and checked before the lease is taken (a slow upload holds nothing); under the lease the
      // plan is made again, and if the definitions changed meanwhile the lines were checked against the wrong ones.
      const checked = await this.plan(header, opts);
      const model = checked.model;
      const inline = this.inline(header, model);
      const problems: Problem[] = [];
      let bad = 0;
      let allModel = true;
      let end: { relations: number; grants: number } | null = null;
      const seen = { relations: 0, grants: 0 };
      for (let next = await it.next(); !next.done; next = await it.next()) {
        const { n, text } = next.value;
        let problem: Problem | null = null;
        try {
          const line = this.parseLine(text, n, stateLine) as StateLine;
          if (end) problem = { line: n, message: `Line ${n} comes after the end line` };
          else if ('end' in line) end = line.end;
          else {
            const item = asItem(line);
            seen[item.grant ? 'grants' : 'relations']++;
            const p = this.itemProblem(model, item);
            if (p) problem = { line: n, ...p };
            else await spool.write(JSON.stringify(lineOf(item)));
          }
        } catch (e) {
          if (!(e instanceof AppError) || e.code !== 'VALIDATION_FAILED') throw e;
          problem = { line: n, message: e.message };
        }
        if (problem) {
          if (!isModel(problem)) allModel = false;
          if (bad++ < MAX_PROBLEMS) problems.push(problem);
        }
        if (spool.count && spool.count % PROGRESS_EVERY === 0) this.deps.log.info({ lines: spool.count }, 'state import: lines validated');
      }
      await spool.finish();
      if (bad) refuse('Some lines are not valid', problems, bad, allModel);
      // An export with tuples ends with a count of them: without it (or with other counts) the file was cut short,
      // and a prune would remove what the missing part holds.
      if (header.carries?.length && (!end || end.relations !== seen.relations || end.grants !== seen.grants)) {
        refuse('The document is incomplete', [{ message: end
          ? `the end line counts ${end.relations} tuples and ${end.grants} grants; the upload has ${seen.relations} and ${seen.grants}`
          : 'the header says the export carries tuples, but the end line ({"end": {...}}) is missing: the file was cut short' }]);
      }
      const carried = {
        relations: header.relations !== undefined || (header.carries ?? []).includes('relations'),
        grants: header.grants !== undefined || (header.carries ?? []).includes('grants'),
      };
      const items = async function* () {
        for (let i = 0; i < inline.length; i += BATCH) yield inline.slice(i, i + BATCH);
        let batch: Item[] = [];
        for await (const line of spool.read()) {
          batch.push(asItem(JSON.parse(line) as ItemLine));
          if (batch.length === BATCH) { yield batch; batch = []; }
        }
        if (batch.length) yield batch;
      };
      return await this.alone(opts, async (held) => {
        const plan = await this.plan(header, opts);
        if (definitionsKey(plan.definitions) !== definitionsKey(checked.definitions)) {
          throw new AppError('BUSY', 'The definitions changed while the upload was being checked; send it again');
        }
        return this.execute(plan, items, carried, opts, held);
      });
    } finally {
      await it.return?.(undefined);
      await spool.remove();
    }
  }

  /** One import at a time across every process; a dry run changes nothing and needs no lease. */
  private alone(opts: ImportOptions, fn: (held: () => boolean) => Promise<ImportReport>): Promise<ImportReport> {
    return opts.dryRun ? fn(() => true) : this.deps.exclusive(fn);
  }

  /** The tuples and grants a header (or JSON document) carries itself, validated against the model the import leaves. */
  private inline(doc: StateHeader, model: Model): Item[] {
    const tuples = (doc.relations ?? []).map(asItem);
    const items = [...tuples, ...(doc.grants ?? []).map(asItem)];
    const problems: Problem[] = [];
    items.forEach((item, i) => {
      const p = this.itemProblem(model, item);
      if (p) problems.push({ path: i < tuples.length ? `relations.${i}` : `grants.${i - tuples.length}`, ...p });
    });
    if (problems.length) refuse('Some tuples or grants are not valid', problems);
    return items;
  }

  private parseLine<T>(text: string, n: number, schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } } }): T {
    let value: unknown;
    try { value = JSON.parse(text); } catch { throw new AppError('VALIDATION_FAILED', `Line ${n} is not JSON`, [{ line: n }]); }
    const r = schema.safeParse(value);
    if (r.success) return r.data;
    throw new AppError('VALIDATION_FAILED', `Line ${n}: ${r.error.issues.map((i) => `${i.path.map(String).join('.') || 'line'} ${i.message}`).join('; ')}`,
      r.error.issues.map((i) => ({ line: n, path: i.path.map(String).join('.'), message: i.message })));
  }

  private itemProblem(model: Model, item: Item): { code: ErrorCode; message: string } | null {
    if (!isWellFormed(item.t)) return { code: 'VALIDATION_FAILED', message: 'subject and resource must be Type:id and the relation a name' };
    const p = item.grant ? model.grantProblem(item.t) : model.writeProblem(item.t);
    return p ? { code: p.code, message: `${tupleText(item.t)}: ${p.message}` } : null;
  }

  /** Validates the header's sections and works out what they change; the model is the one the import leaves in place. */
  private async plan(header: StateHeader, opts: ImportOptions): Promise<Plan> {
    const startRevision = await this.deps.latest();
    const current = new Map((await this.deps.store.definitions()).map((d) => [d.name, d as Definition]));
    const plan: Plan = {
      header, startRevision, model: new Model([]), resources: changes(), schemas: changes(), config: changes(), notes: [], definitions: new Map(current),
    };
    const problems: Problem[] = [];
    const imported = new Map<string, Definition>();
    for (const [i, r] of (header.resources ?? []).entries()) {
      const def = { name: r.name, relations: r.relations, permissions: r.permissions };
      if (imported.has(def.name)) problems.push({ path: `resources.${i}`, code: 'INVALID_DEFINITION', message: `${def.name} appears twice` });
      for (const p of validateDefinition(def)) problems.push({ path: `resources.${i}.${p.path}`, code: 'INVALID_DEFINITION', message: p.message });
      imported.set(def.name, def);
    }
    if (problems.length) refuse('Some resource definitions are not valid', problems);
    const schemaList = header.schemas ?? [];
    const stored = (await this.deps.schemas.export()).schemas;
    // Types that schemas with authorization on register: the document's and those stored (schemas are never removed).
    const registered = new Set([
      ...schemaList.filter((s) => s.serviceOptions?.authorization?.enabled === true).map((s) => s.name),
      ...stored.filter((s) => (s.serviceOptions as { authorization?: { enabled?: boolean } }).authorization?.enabled === true).map((s) => s.name),
    ]);
    if (header.schemas) {
      Object.assign(plan.schemas, await this.deps.schemas.plan(schemaList, new Set(imported.keys())));
      const kept = new Set(schemaList.map((s) => s.name));
      const missing = stored.map((s) => s.name).filter((n) => !kept.has(n));
      if (opts.prune && missing.length) plan.notes.push(`schemas are never pruned (there is no schema deletion); kept: ${missing.join(', ')}`);
    }
    for (const name of registered) {
      if (plan.definitions.has(name)) continue;
      plan.definitions.set(name, schemaDefinition(name));
      if (!imported.has(name)) plan.resources.created.push(name);
    }
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
          if (imported.has(name) || BUILTIN_NAMES.has(name) || registered.has(name)) continue;
          plan.resources.removed.push(name);
          plan.definitions.delete(name);
        }
      }
    }
    if (header.config) {
      const overrides = await this.deps.settings.overrides() as Record<string, Json | undefined>;
      for (const [name, value] of Object.entries(header.config)) {
        this.deps.settings.check(name, value, `config.${name}`);
        (canonical(overrides[name] ?? {}) === canonical(value) ? plan.config.unchanged : overrides[name] ? plan.config.updated : plan.config.created).push(name);
      }
      if (opts.prune) for (const name of Object.keys(overrides)) if (!(name in header.config)) plan.config.removed.push(name);
    }
    plan.model = new Model(plan.definitions.values());
    return plan;
  }

  private async execute(plan: Plan, items: (() => AsyncIterable<Item[]>) | null, carried: Carried, opts: ImportOptions,
    held: () => boolean): Promise<ImportReport> {
    const report: ImportReport = {
      dryRun: opts.dryRun, prune: opts.prune, resources: plan.resources, schemas: plan.schemas, config: plan.config, notes: plan.notes, revision: 0,
    };
    const applied: string[] = [];
    // Checked before every step that changes something: a lease lost (Redis unreachable, a long stall) means another
    // import may be running, and two must never interleave.
    const guard = () => {
      if (!held()) throw new AppError('BUSY', 'The import lost its lease (Redis unreachable or the process stalled) and stopped');
    };
    const tuples: Counts = { created: 0, existing: 0, removed: 0 };
    const grants: Counts = { created: 0, existing: 0, removed: 0 };
    try {
      if (!opts.dryRun) await this.applyHeader(plan, applied, guard);
      if (items) {
        await this.applyItems(plan, items, carried, opts, { tuples, grants }, guard);
        report.relations = tuples;
        report.grants = grants;
      }
      if (opts.prune && !carried.relations) report.notes.push('tuples are pruned only when the document carries them (export with ?tuples=true)');
      if (opts.prune && !carried.grants) report.notes.push('grants are pruned only when the document carries them (export with ?tuples=true)');
      // Definitions go last: removing one also drops the index data of the type.
      if (!opts.dryRun) {
        for (const name of plan.resources.removed) {
          guard();
          await this.deps.definitions.remove(name).catch((e: unknown) => { if (!(e instanceof AppError && e.code === 'NOT_FOUND')) throw e; });
          applied.push(`definition ${name} removed`);
        }
      }
    } catch (e) {
      if (!opts.dryRun) {
        if (tuples.created + grants.created) applied.push(`${tuples.created} tuples and ${grants.created} grants added`);
        if (tuples.removed + grants.removed) applied.push(`${tuples.removed} tuples and ${grants.removed} grants removed`);
      }
      if (!applied.length) throw e;
      this.deps.log.warn({ applied, err: (e as Error).message }, 'state import stopped part-way');
      if (e instanceof AppError) throw new AppError(e.code, `${e.message} (the import stopped; applied before: ${applied.join('; ')})`, [...e.details, { applied }]);
      throw e;
    }
    report.revision = await this.deps.latest();
    return report;
  }

  /** Schemas (they may register definitions), then definitions, then config. */
  private async applyHeader(plan: Plan, applied: string[], guard: () => void): Promise<void> {
    const { header } = plan;
    const { definitions, schemas, settings, store } = this.deps;
    guard();
    if (header.schemas && (plan.schemas.created.length || plan.schemas.updated.length)) {
      await schemas.import(header.schemas, new Set((header.resources ?? []).map((r) => r.name)));
      applied.push(`schemas ${[...plan.schemas.created, ...plan.schemas.updated].join(', ')}`);
    }
    for (const name of [...plan.resources.created, ...plan.resources.updated]) {
      const def = plan.definitions.get(name)!;
      // A schema imported just now may have registered this very definition.
      const now = await store.findDefinition(name);
      if (now && canonical([now.relations, now.permissions]) === canonical([def.relations, def.permissions])) continue;
      guard();
      await definitions.put(def, undefined);
      applied.push(`definition ${name}`);
    }
    for (const name of [...plan.config.created, ...plan.config.updated, ...plan.config.removed]) {
      guard();
      await settings.replace(name, header.config?.[name] ?? {});
      applied.push(`config ${name}`);
    }
  }

  /**
   * Writes the missing tuples and grants in batches (a repeated import commits nothing, so a GitOps loop that
   * imports the same state every minute neither advances the revision nor queues index work), then prunes.
   */
  private async applyItems(plan: Plan, items: () => AsyncIterable<Item[]>, carried: Carried, opts: ImportOptions,
    { tuples, grants }: { tuples: Counts; grants: Counts }, guard: () => void): Promise<void> {
    const { relations, store, log } = this.deps;
    // A prune needs what the import holds: kept as texts (about 100 bytes each).
    const kept = opts.prune ? new Set<string>() : null;
    let seen = 0;
    for await (const batch of items()) {
      for (const [grant, counts] of [[false, tuples], [true, grants]] as const) {
        const part = [...new Map(batch.filter((i) => i.grant === grant).map((i) => [tupleText(i.t), i.t])).values()];
        if (!part.length) continue;
        for (const t of part) kept?.add(textOf({ grant, t }));
        const stored = await (grant ? store.presentGrants(part.map(tupleText)) : store.presentTuples(part.map(tupleText)));
        const missing = part.filter((t) => !stored.has(tupleText(t)));
        let created = missing.length;
        if (!opts.dryRun && missing.length) {
          guard();
          created = (grant ? await relations.grantMany(missing) : await relations.addMany(missing)).created;
        }
        counts.created += created;
        counts.existing += part.length - created;
      }
      seen += batch.length;
      if (Math.floor(seen / PROGRESS_EVERY) > Math.floor((seen - batch.length) / PROGRESS_EVERY)) log.info({ items: seen, dryRun: opts.dryRun }, 'state import: tuples and grants');
    }
    if (kept && (carried.relations || carried.grants)) {
      // Only what was stored when the import began: a tuple another writer adds meanwhile is not the document's to remove.
      const sweep = async (source: AsyncIterable<Tuple[]>, grant: boolean, counts: Counts) => {
        for await (const batch of source) {
          const gone = batch.filter((t) => !kept.has(textOf({ grant, t })));
          if (!gone.length) continue;
          if (!opts.dryRun) guard();
          counts.removed += opts.dryRun ? gone.length
            : (await relations.removeMany(grant ? [] : gone, grant ? gone : []))[grant ? 'grants' : 'tuples'];
        }
      };
      if (carried.relations) await sweep(store.scanTuples(BATCH, plan.startRevision), false, tuples);
      if (carried.grants) await sweep(store.scanGrants(BATCH, plan.startRevision), true, grants);
    }
  }
}
