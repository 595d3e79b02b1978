// Platform state for GitOps: export it as one document (tuples streamed), import it validated whole, idempotent, with a dry run.
import { AppError } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { DefinitionStore } from '../../stores/ports/definitions.js';
import type { GrantReads } from '../../stores/ports/grants.js';
import type { TupleReads } from '../../stores/ports/tuples.js';
import type { Definitions } from '../authorization/definitions.js';
import type { ModelSource } from '../authorization/model-source.js';
import type { Relations } from '../authorization/relations.js';
import type { Settings } from '../config/settings.js';
import type { Schemas } from '../database/schemas.js';
import { execute, type ImportReport } from './apply.js';
import type { StateHeader } from './document.js';
import { exportJson, exportNdjson } from './export.js';
import { batches } from './items.js';
import { inDocumentTerms, jsonDocumentLines } from './json-import.js';
import { bounded, lines, removeStaleSpools, Spool } from './ndjson.js';
import { checkUpload } from './ndjson-import.js';
import { definitionsKey, inline, plan, type ImportOptions } from './plan.js';

export type { ImportReport } from './apply.js';
export type { ImportOptions } from './plan.js';

export class State {
  constructor(private readonly deps: {
    store: DefinitionStore & TupleReads & GrantReads;
    definitions: Definitions;
    schemas: Schemas;
    settings: Settings;
    relations: Relations;
    models: ModelSource;
    latest(): Promise<number>;
    log: Logger;
    /** The largest import body, in bytes, JSON or NDJSON (STATE_IMPORT_LIMIT). */
    maxImportBytes: number;
    /** Runs `fn` alone among every process (one import at a time); `held` says whether it still is. */
    exclusive<T>(fn: (held: () => boolean) => Promise<T>): Promise<T>;
  }) {
    removeStaleSpools().catch((e: Error) => deps.log.warn({ err: e.message }, 'stale state-import spools not removed'));
  }

  /** One JSON document; with tuples its `relations` and `grants` arrays are written as they are read. */
  exportJson(tuples: boolean): AsyncGenerator<string> {
    return exportJson(this.deps, tuples);
  }

  /** The header on the first line, then one tuple or grant per line. */
  exportNdjson(tuples: boolean): AsyncGenerator<string> {
    return exportNdjson(this.deps, tuples);
  }

  /** A whole document (JSON body): validated, then applied unless a dry run. */
  async importDocument(doc: StateHeader, opts: ImportOptions): Promise<ImportReport> {
    return this.alone(opts, async (held) => {
      const planned = await plan(this.deps, doc, opts);
      const carriedInline = inline(doc, planned.model);
      const carried = { relations: doc.relations !== undefined, grants: doc.grants !== undefined };
      const items = carried.relations || carried.grants ? () => batches(carriedInline) : null;
      return execute(this.deps, planned, items, carried, opts, held);
    });
  }

  /**
   * An NDJSON stream: the header line, then tuples and grants. The lines are validated against the definitions the
   * import leaves in place while they are spooled to a temporary file; only when every line is valid is anything applied.
   */
  async importNdjson(stream: AsyncIterable<Buffer | string>, opts: ImportOptions): Promise<ImportReport> {
    return this.importLines(lines(bounded(stream, this.deps.maxImportBytes))[Symbol.asyncIterator](), opts);
  }

  /**
   * A JSON document as it streams, of any size an NDJSON upload may have: its relations and grants are spooled to
   * temporary files as they arrive, then read as the NDJSON export of the same state, checked whole before anything
   * is applied.
   */
  async importJson(stream: AsyncIterable<Buffer | string>, opts: ImportOptions): Promise<ImportReport> {
    const spools = { relations: new Spool(), grants: new Spool() };
    try {
      const read = await jsonDocumentLines(bounded(stream, this.deps.maxImportBytes), spools);
      return await this.importLines(read()[Symbol.asyncIterator](), opts, true)
        .catch((e: unknown) => {
          throw inDocumentTerms(e, { relations: spools.relations.count, grants: spools.grants.count });
        });
    } finally {
      await spools.relations.remove();
      await spools.grants.remove();
    }
  }

  /**
   * The lines of an upload (header, items, end): checked into a spool, then applied under the lease. `document`: they
   * are a JSON document's, which reports on tuples and grants only when it has them (as one read whole did).
   */
  private async importLines(it: AsyncIterator<{ n: number; text: string }>, opts: ImportOptions, document = false): Promise<ImportReport> {
    const spool = new Spool();
    try {
      // The lines are read and checked before the lease is taken (a slow upload holds nothing); under the lease the
      // plan is made again, and if the definitions changed meanwhile the lines were checked against the wrong ones.
      const { header, checked, carried, items } = await checkUpload(it, spool, (h) => plan(this.deps, h, opts), this.deps.log);
      return await this.alone(opts, async (held) => {
        const planned = await plan(this.deps, header, opts);
        if (definitionsKey(planned.definitions) !== definitionsKey(checked.definitions)) {
          throw new AppError('BUSY', 'The definitions changed while the upload was being checked; send it again');
        }
        return execute(this.deps, planned, document && !carried.relations && !carried.grants ? null : items, carried, opts, held);
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
}
