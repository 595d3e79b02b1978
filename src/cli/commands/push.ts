// `authz push FILE`: a scenario file's definitions (and with --tuples its tuples and grants) written to a server through
// its state import, which validates them; a dry run of it gives the diff shown first, --dry-run stops there.
import { Readable } from 'node:stream';
import { parseTupleText, type Tuple } from '../../engine/ids.js';
import type { Definition } from '../../engine/model.js';
import { expandDefinition, parseScenario } from '../../engine/scenario.js';
import { COMMON, SERVER, type CommandSpec, type Parsed } from '../args.js';
import { connect, type Connection } from '../connection.js';
import { changeLine, definitionChanges, type EntryChange } from '../definition-diff.js';
import { CliError, EXIT, usage } from '../exit.js';
import type { CliIo } from '../io.js';
import { count, type Output } from '../output.js';
import { readSource, type SourceFile } from '../source-file.js';

const NDJSON = 'application/x-ndjson';
/** Definitions one list page holds (the server's largest page). */
const PAGE = 1000;
/** Problems of a refusal printed; --json has all the server sent. */
const SHOWN_PROBLEMS = 20;

export const spec: CommandSpec = {
  name: 'push',
  summary: "Push a scenario file's definitions (and with --tuples its tuples and grants) to a server, showing the diff",
  usage: ['push FILE [--tuples] [--dry-run] [--json] [flags]'],
  description: [
    'Reads FILE as authz test does (JSON or YAML, the scenario format) and sends its definitions, and with --tuples its',
    "tuples and grants, through the server's state import: validated whole, nothing changed when one is refused.",
    "First the server's dry run: each definition created, changed (every relation and permission added, removed or",
    'changed) or unchanged, and how many tuples and grants are new. Then, unless --dry-run, the push itself. Only the',
    "file's initial content is pushed (not its steps or assertions); nothing on the server is removed. Pushing the same",
    'file again changes nothing. Replacing the definition a database schema registered is refused (409 SCHEMA_DEFINITION);',
    'so is replacing a built-in or module type (User, Team, File, StoragePublic, ChatRoom: 409 MODULE_DEFINITION) unless',
    '--replace-builtin is given. Allowed types and entries compare as sets: a reorder is no change.',
    '',
    'Exit: 0 pushed (or the dry run shown), 2 usage error, 3 FILE cannot be read or is not a scenario,',
    '4 the server refused it (nothing changed), 5-6 server errors.',
  ].join('\n'),
  flags: {
    ...COMMON,
    ...SERVER,
    tuples: { type: 'boolean', help: "Also push the file's tuples and grants (only those missing are written)" },
    'dry-run': { type: 'boolean', help: 'Show what would change; change nothing' },
    'replace-builtin': { type: 'boolean',
      help: 'Also replace built-in and module types (User, Team, File, StoragePublic, ChatRoom) the file redefines; their modules rely on them' },
  },
  examples: ['authz push examples/docs.yaml --dry-run', 'authz push examples/docs.yaml --tuples', 'authz push model.json --json | jq .definitions'],
};

interface ImportReport {
  dryRun: boolean;
  revision: number;
  notes: string[];
  resources: { created: string[]; updated: string[]; unchanged: string[] };
  relations?: { created: number; existing: number };
  grants?: { created: number; existing: number };
}
interface Pushed {
  name: string;
  status: 'created' | 'changed' | 'unchanged';
  changes: EntryChange[];
}

/** The file's definitions, tuples and grants, each tuple checked for form (with its location) before anything is sent. */
function contentOf(src: SourceFile, withTuples: boolean) {
  const parsed = parseScenario(src.value);
  if (!parsed.scenario) {
    const shown = parsed.problems.slice(0, SHOWN_PROBLEMS).map((p) => `${src.locate(p.at)}: ${p.message}  (${p.at})`);
    throw new CliError(EXIT.input, [`${src.path} is not a scenario file (the format authz test reads):`, ...shown].join('\n'), parsed.problems);
  }
  const sc = parsed.scenario;
  const read = (texts: string[] | undefined, field: string): Tuple[] =>
    (withTuples ? texts ?? [] : []).map((text, i) => {
      const t = parseTupleText(text);
      if (!t) throw new CliError(EXIT.input, `${src.locate(`$.${field}[${i}]`)}: not a tuple Subject:id#relation@Resource:id: ${text.slice(0, 200)}`);
      return t;
    });
  return { definitions: (sc.definitions ?? []).map(expandDefinition), tuples: read(sc.tuples, 'tuples'), grants: read(sc.grants, 'grants'), steps: sc.steps?.length ?? 0 };
}

/** Every definition on the server, by name. */
async function serverDefinitions(conn: Connection): Promise<Map<string, Definition>> {
  const all = new Map<string, Definition>();
  for (let skip = 0;; skip += PAGE) {
    const page = await conn.json<{ resources: Definition[]; count: number }>('GET', `/authorization/resources?skip=${skip}&limit=${PAGE}`);
    for (const d of page.resources) all.set(d.name, { name: d.name, relations: d.relations, permissions: d.permissions });
    if (page.resources.length < PAGE || skip + PAGE >= page.count) return all;
  }
}

/** The file as a state import: the header with the definitions, then a line per tuple and per grant. */
function* lines(content: ReturnType<typeof contentOf>, withTuples: boolean): Generator<string> {
  yield `${JSON.stringify({ version: 1, resources: content.definitions.map((d) => ({ name: d.name, relations: d.relations, permissions: d.permissions })) })}\n`;
  if (!withTuples) return;
  for (const t of content.tuples) yield `${JSON.stringify(t)}\n`;
  for (const g of content.grants) yield `${JSON.stringify({ subject: g.subject, permission: g.relation, resource: g.resource })}\n`;
}

/** The server's problems pointed back into FILE: line 1 is the definitions, line 2 on the tuples then the grants. */
function located(e: unknown, src: SourceFile, content: ReturnType<typeof contentOf>): unknown {
  if (!(e instanceof CliError) || !Array.isArray(e.details) || e.details.length === 0) return e;
  const where = (d: { line?: unknown; path?: unknown }) => {
    const def = typeof d.path === 'string' ? /^resources\.(\d+)/.exec(d.path) : null;
    if (def && (d.line === undefined || d.line === 1)) return src.locate(`$.definitions[${def[1]}]`);
    if (typeof d.line !== 'number' || d.line < 2) return src.path;
    const i = d.line - 2;
    return src.locate(i < content.tuples.length ? `$.tuples[${i}]` : `$.grants[${i - content.tuples.length}]`);
  };
  const problems = (e.details as Array<{ line?: unknown; path?: unknown; message?: unknown }>).slice(0, SHOWN_PROBLEMS)
    .map((d) => `${where(d)}: ${typeof d.message === 'string' ? d.message : JSON.stringify(d)}`);
  const more = e.details.length > SHOWN_PROBLEMS ? [`(and ${e.details.length - SHOWN_PROBLEMS} more: --json lists them)`] : [];
  return new CliError(e.exit, [e.message, ...problems, ...more].join('\n'), e.details);
}

async function importOnce(conn: Connection, content: ReturnType<typeof contentOf>, withTuples: boolean, dryRun: boolean, src: SourceFile, replaceBuiltin: boolean) {
  const query = new URLSearchParams({ ...(dryRun ? { dryRun: 'true' } : {}), ...(replaceBuiltin ? { replaceBuiltin: 'true' } : {}) }).toString();
  const res = await conn.raw('POST', `/state/import${query ? `?${query}` : ''}`, { upload: Readable.from(lines(content, withTuples)), headers: { 'content-type': NDJSON } })
    .catch((e: unknown) => {
      throw located(e, src, content);
    });
  return await res.json() as ImportReport;
}

const tally = (c: { created: number; existing: number } | undefined, verb: string) => (c ? `${count(c.created)} ${verb}, ${count(c.existing)} stored already` : '');

export async function run({ values, positionals }: Parsed, out: Output, io: CliIo): Promise<number> {
  if (positionals.length !== 1) throw usage('authz push needs one FILE\nSee: authz push --help');
  const withTuples = values.tuples === true;
  const src = await readSource(positionals[0]!, io.cwd);
  const content = contentOf(src, withTuples);
  if (content.definitions.length === 0 && !(withTuples && content.tuples.length + content.grants.length)) {
    throw new CliError(EXIT.input, `${src.path}: no definitions${withTuples ? ', tuples or grants' : ''} to push`);
  }
  if (content.steps) out.note(`authz: ${src.path}: its ${content.steps} step${content.steps === 1 ? '' : 's'} and the assertions are not pushed, only its initial content`);
  const conn = await connect(values, io);
  const before = await serverDefinitions(conn);
  const replaceBuiltin = values['replace-builtin'] === true;
  const plan = await importOnce(conn, content, withTuples, true, src, replaceBuiltin);

  const status = (name: string): Pushed['status'] => (plan.resources.created.includes(name) ? 'created' : plan.resources.updated.includes(name) ? 'changed' : 'unchanged');
  const pushed: Pushed[] = content.definitions.map((d) => {
    const s = status(d.name);
    return { name: d.name, status: s, changes: s === 'unchanged' ? [] : definitionChanges(s === 'created' ? undefined : before.get(d.name), d) };
  });
  for (const p of pushed.filter((x) => x.status !== 'unchanged')) {
    out.line(`${p.name}: ${p.status}`);
    p.changes.forEach((c) => out.line(`  ${changeLine(c)}`));
  }
  const unchanged = pushed.filter((p) => p.status === 'unchanged').map((p) => p.name);
  if (unchanged.length) out.line(`unchanged: ${unchanged.join(', ')}`);
  if (withTuples) {
    out.line(`tuples: ${tally(plan.relations, 'to create')}`);
    if (content.grants.length) out.line(`grants: ${tally(plan.grants, 'to create')}`);
  }
  plan.notes.forEach((n) => out.line(`note: ${n}`));
  const anything = pushed.some((p) => p.status !== 'unchanged') || (plan.relations?.created ?? 0) + (plan.grants?.created ?? 0) > 0;

  if (values['dry-run']) {
    out.line(`Dry run: nothing changed${anything ? ' (push without --dry-run to apply)' : ''}`);
    out.value({ dryRun: true, definitions: pushed, relations: plan.relations, grants: plan.grants, notes: plan.notes, revision: plan.revision });
    return EXIT.ok;
  }
  const done = anything ? await importOnce(conn, content, withTuples, false, src, replaceBuiltin) : { ...plan, dryRun: false };
  const counts = [
    // What the import itself reports (a concurrent writer may have changed the server since the dry run).
    `definitions ${done.resources.created.length} created, ${done.resources.updated.length} changed, ${done.resources.unchanged.length} unchanged`,
    ...(withTuples ? [`tuples ${tally(done.relations, 'created')}`] : []),
    ...(withTuples && content.grants.length ? [`grants ${tally(done.grants, 'created')}`] : []),
  ];
  out.line(`${anything ? 'Pushed' : 'Nothing to push'} (revision ${done.revision}): ${counts.join('; ')}`);
  out.value({ dryRun: false, definitions: pushed, relations: done.relations, grants: done.grants, notes: done.notes, revision: done.revision });
  return EXIT.ok;
}
