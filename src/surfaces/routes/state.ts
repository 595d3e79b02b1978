// State export and import (GitOps): definitions, schemas and config, with tuples on request, streamed both ways.
import { z } from 'zod';
import { NDJSON, stateGrant, stateHeader, stateTuple } from '../../services/state/document.js';
import { importTooLarge } from '../../services/state/ndjson.js';
import type { State } from '../../services/state/state.js';
import { changes, names } from './reply-parts.js';
import { route, type Route } from '../registry.js';

const counts = z.object({ created: z.number().int(), existing: z.number().int(), removed: z.number().int() });
/** The state routes' reply bodies (a streamed export is not checked under CHECK_REPLIES; tests parse it with these). */
export const stateReplies = {
  state: stateHeader.extend({ relations: z.array(stateTuple).optional(), grants: z.array(stateGrant).optional() }).meta({ id: 'State' }),
  stateImport: z.object({
    dryRun: z.boolean(),
    prune: z.boolean(),
    resources: changes.extend({ removed: names }),
    schemas: changes.extend({ removed: names }),
    config: changes.extend({ removed: names }),
    relations: counts.optional(),
    grants: counts.optional(),
    notes: names,
    revision: z.number().int(),
  }).meta({ id: 'StateImportReport' }),
} as const;
const replies = stateReplies;

/** `?x=true` over REST; a JSON boolean from MCP and GraphQL callers. */
const flag = (description: string) =>
  z.union([z.boolean(), z.enum(['true', 'false'])]).optional()
    .transform((v) => v === true || v === 'true').describe(description);

export function stateRoutes(deps: { state: State; maxImportBytes: number }): Route[] {
  const { state } = deps;
  const admin = { surface: 'admin' as const, group: 'core', auth: 'admin' as const };
  return [
    route({
      ...admin,
      http: { method: 'get', path: '/state/export', produces: ['application/json', 'application/x-ndjson'] },
      output: replies.state,
      summary:
        'Export definitions, schemas and config overrides; ?tuples=true adds every tuple and grant, streamed; ?format=ndjson (or Accept: application/x-ndjson) gives a header line then a line per tuple',
      query: z.strictObject({
        tuples: flag('Include every tuple and direct grant'),
        format: z.enum(['json', 'ndjson']).optional().describe('json (default): one document; ndjson: the header, then one tuple or grant per line'),
      }),
      handle: async ({ query, headers }) => {
        const ndjson = query.format === 'ndjson' || (query.format === undefined && (headers.accept ?? '').includes(NDJSON));
        return ndjson
          ? { headers: { 'Content-Type': `${NDJSON}; charset=utf-8` }, stream: state.exportNdjson(query.tuples) }
          : { headers: { 'Content-Type': 'application/json; charset=utf-8' }, stream: state.exportJson(query.tuples) };
      },
    }),
    route({
      ...admin,
      http: { method: 'post', path: '/state/import', streamBody: NDJSON, streamJson: true },
      output: replies.stateImport,
      errors: ['INVALID_DEFINITION', 'UNKNOWN_TYPE', 'RELATION_NOT_DEFINED', 'RELATION_NOT_ALLOWED', 'PERMISSION_NOT_DEFINED', 'ALREADY_EXISTS', 'VERSION_CONFLICT',
        'SCHEMA_DEFINITION', 'MODULE_DEFINITION', 'BUSY'],
      summary:
        'Import a state document: validated whole before anything changes, idempotent, creates and updates but deletes nothing unless ?prune=true; ?dryRun=true only reports. Over REST the JSON document and the NDJSON export (Content-Type: application/x-ndjson) are both streamed to a temporary file, up to STATE_IMPORT_LIMIT',
      query: z.strictObject({
        dryRun: flag('Report what would change and change nothing'),
        prune: flag('Also remove what the document leaves out, in the sections it carries (schemas, built-in and module types are never removed)'),
        replaceBuiltin: flag('Also replace built-in and module types (User, Team, File, StoragePublic, ChatRoom) whose content differs; else 409 MODULE_DEFINITION'),
      }),
      body: stateHeader,
      // A state document lists every tuple: its size is bounded by the body limit, not by a count of items.
      limits: { arrayItems: Number.MAX_SAFE_INTEGER },
      tooLarge: `a larger import goes to POST /state/import over REST: ${importTooLarge(deps.maxImportBytes)}`,
      handle: async ({ query, body, stream, headers }) => {
        const opts = { dryRun: query.dryRun, prune: query.prune, replaceBuiltin: query.replaceBuiltin };
        if (!stream) return { body: await state.importDocument(body, opts) };
        const json = /^application\/json/i.test(headers['content-type'] ?? '');
        return { body: json ? await state.importJson(stream, opts) : await state.importNdjson(stream, opts) };
      },
    }),
  ];
}
