// State export: the header (definitions, schemas, config overrides) and, on request, every tuple and grant, streamed.
import { Model } from '../../engine/model.js';
import type { DefinitionStore } from '../../stores/ports/definitions.js';
import type { GrantReads } from '../../stores/ports/grants.js';
import type { TupleReads } from '../../stores/ports/tuples.js';
import type { Settings } from '../config/settings.js';
import type { Schemas } from '../database/schemas.js';
import type { StateHeader } from './document.js';
import { BATCH, lineOf, type Item } from './items.js';

export interface ExportDeps {
  store: DefinitionStore & TupleReads & GrantReads;
  schemas: Schemas;
  settings: Settings;
  latest(): Promise<number>;
}

/** Definitions, schemas and config overrides (not the defaults), at a revision the tuples that follow stop at. */
async function header(deps: ExportDeps, carries: Array<'relations' | 'grants'>): Promise<{ header: StateHeader; model: Model }> {
  const revision = await deps.latest();
  const defs = (await deps.store.definitions()).sort((a, b) => a.name.localeCompare(b.name));
  const header: StateHeader = {
    version: 1,
    exportedAt: new Date().toISOString(),
    revision,
    ...(carries.length ? { carries } : {}),
    resources: defs.map((d) => ({ name: d.name, relations: d.relations, permissions: d.permissions })),
    schemas: (await deps.schemas.export()).schemas as StateHeader['schemas'],
    config: await deps.settings.overrides(),
  };
  return { header, model: new Model(defs) };
}

/**
 * Every tuple, then every grant, read from cursors (never all in memory): those stored by the header's revision
 * that its definitions allow. Tuples a definition no longer allows stay in MongoDB but are not exported, so an
 * export always imports again.
 */
async function* items(store: TupleReads & GrantReads, upTo: number, model: Model): AsyncGenerator<Item[]> {
  for await (const batch of store.scanTuples(BATCH, upTo)) yield batch.filter(model.isValid).map((t) => ({ grant: false, t }));
  for await (const batch of store.scanGrants(BATCH, upTo)) yield batch.filter(model.isValidGrant).map((t) => ({ grant: true, t }));
}

/** One JSON document; with tuples its `relations` and `grants` arrays are written as they are read. */
export async function* exportJson(deps: ExportDeps, tuples: boolean): AsyncGenerator<string> {
  const { header: head, model } = await header(deps, tuples ? ['relations', 'grants'] : []);
  const text = JSON.stringify(head);
  if (!tuples) {
    yield text;
    return;
  }
  yield `${text.slice(0, -1)},"relations":[`;
  let written = 0;
  let grants = false;
  for await (const batch of items(deps.store, head.revision!, model)) {
    if (!batch.length) continue;
    if (batch[0]!.grant && !grants) {
      yield '],"grants":[';
      grants = true;
      written = 0;
    }
    yield `${written ? ',' : ''}${batch.map((i) => JSON.stringify(lineOf(i))).join(',')}`;
    written += batch.length;
  }
  yield grants ? ']}' : '],"grants":[]}';
}

/** The header on the first line, then one tuple or grant per line, then the end line that counts them. */
export async function* exportNdjson(deps: ExportDeps, tuples: boolean): AsyncGenerator<string> {
  const { header: head, model } = await header(deps, tuples ? ['relations', 'grants'] : []);
  yield `${JSON.stringify(head)}\n`;
  if (!tuples) return;
  const end = { relations: 0, grants: 0 };
  for await (const batch of items(deps.store, head.revision!, model)) {
    for (const i of batch) end[i.grant ? 'grants' : 'relations']++;
    yield batch.map((i) => `${JSON.stringify(lineOf(i))}\n`).join('');
  }
  yield `${JSON.stringify({ end })}\n`;
}
