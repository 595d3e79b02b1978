// Applying a planned state import: schemas, definitions and config, then the missing tuples and grants, then the prunes.
import { sameContent } from '../../engine/definition-content.js';
import { tupleText, type Tuple } from '../../engine/ids.js';
import { AppError } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { DefinitionStore } from '../../stores/ports/definitions.js';
import type { GrantReads } from '../../stores/ports/grants.js';
import type { TupleReads } from '../../stores/ports/tuples.js';
import type { Definitions } from '../authorization/definitions.js';
import type { Relations } from '../authorization/relations.js';
import type { Settings } from '../config/settings.js';
import type { Schemas } from '../database/schemas.js';
import { Fingerprints } from './fingerprints.js';
import { BATCH, PROGRESS_EVERY, textOf, type Item } from './items.js';
import type { Changes, ImportOptions, Plan } from './plan.js';

export interface Counts {
  created: number;
  existing: number;
  removed: number;
}
export interface ImportReport {
  dryRun: boolean;
  prune: boolean;
  resources: Changes;
  schemas: Changes;
  config: Changes;
  relations?: Counts;
  grants?: Counts;
  /** What the import did not do that a reader might expect. */
  notes: string[];
  /** The latest revision after the import: read with `at_least_as_fresh` and this to see all of it. */
  revision: number;
}
/** Which of the document's sections a prune may empty: only those it carries. */
export interface Carried {
  relations: boolean;
  grants: boolean;
}
export interface ApplyDeps {
  store: DefinitionStore & TupleReads & GrantReads;
  definitions: Definitions;
  schemas: Schemas;
  settings: Settings;
  relations: Relations;
  latest(): Promise<number>;
  log: Logger;
}

/** Carries out the plan (a dry run only counts), checking before each change that the import still holds its lease. */
export async function execute(deps: ApplyDeps, plan: Plan, items: (() => AsyncIterable<Item[]>) | null, carried: Carried, opts: ImportOptions,
  held: () => boolean): Promise<ImportReport> {
  const report: ImportReport = {
    dryRun: opts.dryRun,
    prune: opts.prune,
    resources: plan.resources,
    schemas: plan.schemas,
    config: plan.config,
    notes: plan.notes,
    revision: 0,
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
    if (!opts.dryRun) await applyHeader(deps, plan, applied, guard);
    if (items) {
      await applyItems(deps, plan, items, carried, opts, { tuples, grants }, guard);
      report.relations = tuples;
      report.grants = grants;
    }
    if (opts.prune && !carried.relations) report.notes.push('tuples are pruned only when the document carries them (export with ?tuples=true)');
    if (opts.prune && !carried.grants) report.notes.push('grants are pruned only when the document carries them (export with ?tuples=true)');
    // Definitions go last: removing one also drops the index data of the type.
    if (!opts.dryRun) {
      for (const name of plan.resources.removed) {
        guard();
        await deps.definitions.remove(name).catch((e: unknown) => {
          if (!(e instanceof AppError && e.code === 'NOT_FOUND')) throw e;
        });
        applied.push(`definition ${name} removed`);
      }
    }
  } catch (e) {
    if (!opts.dryRun) {
      if (tuples.created + grants.created) applied.push(`${tuples.created} tuples and ${grants.created} grants added`);
      if (tuples.removed + grants.removed) applied.push(`${tuples.removed} tuples and ${grants.removed} grants removed`);
    }
    if (!applied.length) throw e;
    deps.log.warn({ applied, err: (e as Error).message }, 'state import stopped part-way');
    if (e instanceof AppError) throw new AppError(e.code, `${e.message} (the import stopped; applied before: ${applied.join('; ')})`, [...e.details, { applied }]);
    throw e;
  }
  report.revision = await deps.latest();
  return report;
}

/** Schemas (they may register definitions), then definitions, then config. */
async function applyHeader(deps: ApplyDeps, plan: Plan, applied: string[], guard: () => void): Promise<void> {
  const { header } = plan;
  const { definitions, schemas, settings, store } = deps;
  guard();
  if (header.schemas && (plan.schemas.created.length || plan.schemas.updated.length)) {
    await schemas.import(header.schemas, new Set((header.resources ?? []).map((r) => r.name)));
    applied.push(`schemas ${[...plan.schemas.created, ...plan.schemas.updated].join(', ')}`);
  }
  for (const name of [...plan.resources.created, ...plan.resources.updated]) {
    const def = plan.definitions.get(name)!;
    // A schema imported just now may have registered this very definition.
    const now = await store.findDefinition(name);
    if (now && sameContent(now, def)) continue;
    guard();
    // The plan refused replacing a schema's definition unless the document carries the schema: what is left is meant.
    // It also checked the arrows against the model the import leaves, which the one stored now may not match yet.
    await definitions.put(def, undefined, { adopt: true, arrowsChecked: true });
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
async function applyItems(deps: ApplyDeps, plan: Plan, items: () => AsyncIterable<Item[]>, carried: Carried, opts: ImportOptions,
  { tuples, grants }: { tuples: Counts; grants: Counts }, guard: () => void): Promise<void> {
  const { relations, store, log } = deps;
  // A prune needs what the import holds: kept as fingerprints (21 to 43 bytes each), not as texts (about 140).
  const kept = opts.prune ? new Fingerprints() : null;
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
    // And only what an export under the definitions the import leaves would carry: an export leaves out the tuples its
    // definitions do not allow (a narrowed relation's stay stored, and widening it again restores them), so their
    // absence from the document says nothing, and an unchanged export imported with prune removes nothing.
    const { model } = plan;
    const sweep = async (source: AsyncIterable<Tuple[]>, grant: boolean, counts: Counts) => {
      for await (const batch of source) {
        const gone = batch.filter((t) => (grant ? model.isValidGrant(t) : model.isValid(t)) && !kept.has(textOf({ grant, t })));
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
