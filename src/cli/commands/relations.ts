// `authz relations write|delete|read`: tuples in batches through /authorization/relations/write, and the paged list.
import { readFile } from 'node:fs/promises';
import { parseTupleText, type Tuple } from '../../engine/ids.js';
import { COMMON, SERVER, choice, int, str, type CommandSpec, type Parsed } from '../args.js';
import { connect, query } from '../connection.js';
import { CliError, EXIT, usage } from '../exit.js';
import { at, type CliIo } from '../io.js';
import { count, Progress, type Output } from '../output.js';
import { MAX_FILE_BYTES } from '../source-file.js';

/** The server's cap on updates per /relations/write call. */
const BATCH = 1000;

const writeFlags = {
  ...COMMON,
  ...SERVER,
  file: { type: 'string' as const, arg: 'FILE',
    help: 'Also read tuples from FILE (- for stdin): one per line, S#r@O or {"subject","relation","resource"}; blank and // lines skipped' },
};

async function readText(file: string, io: CliIo): Promise<string> {
  if (file !== '-') {
    try {
      return await readFile(at(io.cwd, file), 'utf8');
    } catch (e) {
      throw new CliError(EXIT.input, `${file}: cannot read: ${(e as NodeJS.ErrnoException).code}`);
    }
  }
  let text = '';
  for await (const chunk of io.stdin) {
    text += chunk;
    if (text.length > MAX_FILE_BYTES) throw new CliError(EXIT.input, `stdin: more than ${MAX_FILE_BYTES} bytes`);
  }
  return text;
}

/** Every tuple named on the command line and in --file, checked for form before anything is sent. */
async function tuplesOf({ values, positionals }: Parsed, command: string, io: CliIo): Promise<Tuple[]> {
  const out: Tuple[] = [];
  for (const p of positionals) {
    const t = parseTupleText(p);
    if (!t) throw usage(`${JSON.stringify(p)} is not a tuple Subject:id#relation@Resource:id`);
    out.push(t);
  }
  const file = str(values, 'file');
  if (file !== undefined) {
    const lines = (await readText(file, io)).split(/\r?\n/);
    for (const [i, line] of lines.entries()) {
      const text = line.trim();
      if (!text || text.startsWith('//')) continue;
      let t: Tuple | null = null;
      if (text.startsWith('{')) {
        try {
          const o = JSON.parse(text) as Record<string, unknown>;
          if (typeof o.subject === 'string' && typeof o.relation === 'string' && typeof o.resource === 'string') t = parseTupleText(`${o.subject}#${o.relation}@${o.resource}`);
        } catch { /* reported below */ }
      } else t = parseTupleText(text);
      if (!t) throw new CliError(EXIT.input, `${file === '-' ? 'stdin' : file}:${i + 1}: not a tuple: ${text.slice(0, 200)}`);
      out.push(t);
    }
  }
  if (out.length === 0) throw usage(`authz relations ${command} needs tuples (arguments or --file)\nSee: authz relations ${command} --help`);
  return out;
}

interface WriteAnswer {
  created: number;
  existing: number;
  deleted: number;
  missing: number;
  revision: number;
}

async function send(parsed: Parsed, out: Output, io: CliIo, operation: 'create' | 'delete'): Promise<number> {
  const tuples = await tuplesOf(parsed, operation === 'create' ? 'write' : 'delete', io);
  const conn = await connect(parsed.values, io);
  const total: WriteAnswer = { created: 0, existing: 0, deleted: 0, missing: 0, revision: 0 };
  const progress = tuples.length > BATCH ? new Progress(operation === 'create' ? 'write' : 'delete', 'tuples', tuples.length, io.stderr) : null;
  for (let i = 0; i < tuples.length; i += BATCH) {
    const updates = tuples.slice(i, i + BATCH).map((t) => ({ operation, ...t }));
    let r: WriteAnswer;
    try {
      r = await conn.json<WriteAnswer>('POST', '/authorization/relations/write', { updates });
    } catch (e) {
      // The batches before this one are written: say how far it got, so a rerun (or a cleanup) knows where to start.
      if (!(e instanceof CliError) || i === 0) throw e;
      progress?.finish(' before the refusal');
      const done = operation === 'create' ? 'written' : 'deleted';
      throw new CliError(e.exit,
        `${e.message}\nthe ${count(i)} tuples before this batch (batches 1-${i / BATCH}) were ${done} (revision ${total.revision}); tuples ${count(i + 1)}-${
          count(tuples.length)
        } ${e.exit === EXIT.unavailable ? `may not be (this batch's fate is unknown; repeating the command is safe)` : 'were not'}`, { refused: e.details,
        applied: { ...total, tuples: i }, notApplied: tuples.length - i });
    }
    for (const k of ['created', 'existing', 'deleted', 'missing'] as const) total[k] += r[k];
    total.revision = r.revision;
    progress?.add(updates.length, updates.length);
  }
  progress?.finish();
  out.line(operation === 'create'
    ? `created ${count(total.created)}, existing ${count(total.existing)} (revision ${total.revision})`
    : `deleted ${count(total.deleted)}, missing ${count(total.missing)} (revision ${total.revision})`);
  out.value(total);
  return EXIT.ok;
}

const exitLine = 'Exit: 0 done, 2 usage error, 3 a tuple in --file is malformed, 4 the server refused a batch (the batches before it are written), 5-6 server errors.';

export const write = {
  spec: {
    name: 'relations write',
    summary: 'Write tuples (batches of 1,000, each at one revision)',
    usage: ['relations write TUPLE… [--file FILE|-] [flags]'],
    description: `Each batch is validated whole by the server: one refused tuple and none of its batch is written.\n${exitLine}`,
    flags: writeFlags,
    examples: ['authz relations write User:alice#member@Team:eng Team:eng#viewer@Document:plan', 'authz relations write --file tuples.txt'],
  } satisfies CommandSpec,
  run: (parsed: Parsed, out: Output, io: CliIo) => send(parsed, out, io, 'create'),
};

export const remove = {
  spec: {
    name: 'relations delete',
    summary: 'Delete tuples (batches of 1,000, each at one revision)',
    usage: ['relations delete TUPLE… [--file FILE|-] [flags]'],
    description: `A tuple that is not stored counts as missing, not as an error.\n${exitLine}`,
    flags: writeFlags,
    examples: ['authz relations delete User:alice#member@Team:eng'],
  } satisfies CommandSpec,
  run: (parsed: Parsed, out: Output, io: CliIo) => send(parsed, out, io, 'delete'),
};

const CONSISTENCY = ['minimize_latency', 'at_least_as_fresh', 'fully_consistent'] as const;

export const read = {
  spec: {
    name: 'relations read',
    summary: 'List stored tuples in tuple-text order, filtered, read page by page',
    usage: ['relations read [--subject-type T] [--resource-type T] [--search TEXT] [--skip N] [--limit N] [flags]'],
    description: [
      'Prints one tuple per line (--json: one JSON record per line), then on stderr how many there are and the',
      '--skip that reads on. --limit bounds how many are printed (default 100); they are fetched --page-size at a time.',
      'Exit: 0 done, 2 usage error, 4-6 server errors.',
    ].join('\n'),
    flags: {
      ...COMMON,
      ...SERVER,
      'subject-type': { type: 'string', arg: 'TYPE', help: 'Only tuples whose subject has this type' },
      'resource-type': { type: 'string', arg: 'TYPE', help: 'Only tuples whose resource has this type' },
      search: { type: 'string', arg: 'TEXT', help: 'Case-insensitive substring of the tuple text' },
      skip: { type: 'string', arg: 'N', help: 'Start after this many tuples (default 0)' },
      limit: { type: 'string', arg: 'N', help: 'Print at most N tuples (default 100)' },
      'page-size': { type: 'string', arg: 'N', help: 'Tuples per request, 1-1000 (default 100)' },
      consistency: { type: 'string', arg: 'MODE', help: CONSISTENCY.join(', ') },
      revision: { type: 'string', arg: 'N', help: "Wait until the list has this revision (a write's answer carries it)" },
    },
    examples: ['authz relations read --resource-type Document --limit 20', 'authz relations read --search alice --json'],
  } satisfies CommandSpec,
  async run({ values }: Parsed, out: Output, io: CliIo): Promise<number> {
    const skip = int(values, 'skip', { min: 0, max: Number.MAX_SAFE_INTEGER, fallback: 0 });
    const limit = int(values, 'limit', { min: 1, max: Number.MAX_SAFE_INTEGER, fallback: 100 });
    const pageSize = int(values, 'page-size', { min: 1, max: 1000, fallback: 100 });
    const filters = {
      subjectType: str(values, 'subject-type'),
      resourceType: str(values, 'resource-type'),
      search: str(values, 'search'),
      consistency: choice(values, 'consistency', CONSISTENCY),
      revision: str(values, 'revision') === undefined ? undefined : int(values, 'revision', { min: 0, max: Number.MAX_SAFE_INTEGER, fallback: 0 }),
    };
    const conn = await connect(values, io);
    let printed = 0;
    let total = { count: 0, countCapped: false };
    for (let at = skip; printed < limit;) {
      const want = Math.min(pageSize, limit - printed);
      const page = await conn.json<{ relations: Array<{ computedTuple: string }>; count: number; countCapped: boolean }>(
        'GET',
        `/authorization/relations${query({ ...filters, skip: at, limit: want })}`,
      );
      total = { count: page.count, countCapped: page.countCapped };
      for (const r of page.relations) {
        out.line(r.computedTuple);
        out.value(r);
      }
      printed += page.relations.length;
      at += page.relations.length;
      if (page.relations.length < want) break;
    }
    const end = skip + printed;
    const more = total.countCapped || end < total.count;
    out.note(
      `${printed === 0 ? 'no tuples' : `tuples ${count(skip + 1)}-${count(end)}`} of ${total.countCapped ? 'at least ' : ''}${count(total.count)}${
        more && printed > 0 ? `; more: --skip ${end}` : ''
      }`,
    );
    return EXIT.ok;
  },
};
