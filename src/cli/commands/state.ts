// `authz export` and `authz import`: the state document as NDJSON (or JSON), streamed both ways with a progress line.
import { createReadStream, createWriteStream } from 'node:fs';
import { rename, stat, unlink } from 'node:fs/promises';
import { Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseScenario } from '../../engine/scenario.js';
import { COMMON, SERVER, choice, type CommandSpec, type Parsed } from '../args.js';
import { connect, query } from '../connection.js';
import { CliError, EXIT, usage } from '../exit.js';
import { at, type CliIo } from '../io.js';
import { count, Progress, type Output } from '../output.js';
import { readSource } from '../source-file.js';

const NDJSON = 'application/x-ndjson';
const NEWLINE = 0x0a;

/** Passes bytes through, counting lines and bytes into the progress line; keeps the last line (the export's end line). */
function counter(progress: Progress) {
  let tail = Buffer.alloc(0);
  const t = new Transform({
    transform(chunk: Buffer, _enc, done) {
      let lines = 0;
      for (let i = chunk.indexOf(NEWLINE); i >= 0; i = chunk.indexOf(NEWLINE, i + 1)) lines++;
      progress.add(lines, chunk.length);
      // The end line is short: the last 4 KB always hold it whole.
      tail = Buffer.concat([tail, chunk]).subarray(-4096);
      done(null, chunk);
    },
  });
  return { stream: t, lastLine: () => tail.toString('utf8').trimEnd().split('\n').at(-1) ?? '' };
}

export const exportState = {
  spec: {
    name: 'export',
    summary: 'Export definitions, schemas, config and every tuple and grant (NDJSON by default)',
    usage: ['export [FILE] [--without-tuples] [--format ndjson|json] [flags]'],
    description: [
      'Writes to FILE (through a temporary file, renamed when the export is complete) or to stdout. A progress line',
      'with the count and rate goes to stderr. An NDJSON export ends with a line counting its tuples and grants; an',
      'export that stops early is reported, not kept. authz import reads either format back.',
      'Exit: 0 done, 2 usage error, 3 FILE cannot be written, 4-6 server errors (6: cut short).',
    ].join('\n'),
    flags: {
      ...COMMON,
      ...SERVER,
      'without-tuples': { type: 'boolean', help: 'Only definitions, schemas and config' },
      format: { type: 'string', arg: 'FORMAT', help: 'ndjson (default: a header line, then a line per tuple) or json (one document)' },
    },
    examples: ['authz export backup.ndjson', 'authz export --without-tuples --format json > model.json'],
  } satisfies CommandSpec,
  async run({ values, positionals }: Parsed, out: Output, io: CliIo): Promise<number> {
    if (positionals.length > 1) throw usage('authz export takes at most one FILE');
    const format = choice(values, 'format', ['ndjson', 'json'] as const) ?? 'ndjson';
    const tuples = !values['without-tuples'];
    const file = positionals[0] === '-' ? undefined : positionals[0];
    const conn = await connect(values, io);
    const res = await conn.raw('GET', `/state/export${query({ tuples, format })}`, { stream: true });
    const progress = new Progress('export', 'lines', undefined, io.stderr);
    const { stream, lastLine } = counter(progress);
    const tmp = file ? at(io.cwd, `${file}.${process.pid}.partial`) : undefined;
    const sink: Writable = tmp ? createWriteStream(tmp, { mode: 0o600 }) : io.stdout;
    try {
      await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), stream, sink, { end: sink !== io.stdout });
      if (format === 'ndjson' && tuples) {
        // The last line counts what was sent: without it the stream stopped early.
        const end = (() => {
          try {
            return JSON.parse(lastLine()) as { end?: { relations: number; grants: number } };
          } catch {
            return {};
          }
        })().end;
        if (!end || end.relations + end.grants + 2 !== progress.items) throw new CliError(EXIT.unavailable, 'the export was cut short (no matching end line)');
      }
      if (tmp) await rename(tmp, at(io.cwd, file!));
    } catch (e) {
      if (tmp) await unlink(tmp).catch(() => undefined);
      if (e instanceof CliError) throw e;
      const code = (e as NodeJS.ErrnoException).code;
      if (code && /^E[A-Z]+$/.test(code) && code !== 'ECONNRESET') throw new CliError(EXIT.input, `${file ?? 'stdout'}: cannot write: ${code}`);
      throw new CliError(EXIT.unavailable, `the export was cut short: ${(e as Error).message}`);
    }
    progress.finish(file ? ` to ${file}` : '');
    // On stdout the export itself is the output: a summary after it would be read back as part of it.
    if (file) out.value({ file, lines: progress.items, format });
    return EXIT.ok;
  },
};

/** How many of the server's problems (each with its line) a refusal prints; --json has all it sent. */
const SHOWN_PROBLEMS = 20;

/** A refused import with each problem the server names as FILE:LINE: message, so the bad lines can be found. */
function withLines(e: unknown, file: string): unknown {
  if (!(e instanceof CliError) || !Array.isArray(e.details) || e.details.length === 0) return e;
  const where = file === '-' ? 'stdin' : file;
  const problems = (e.details as Array<{ line?: unknown; message?: unknown }>).slice(0, SHOWN_PROBLEMS)
    .map((d) => `${where}${typeof d.line === 'number' ? `:${d.line}` : ''}: ${typeof d.message === 'string' ? d.message : JSON.stringify(d)}`);
  const more = e.details.length > SHOWN_PROBLEMS ? [`(and ${e.details.length - SHOWN_PROBLEMS} more: --json lists them)`] : [];
  return new CliError(e.exit, [e.message, ...problems, ...more].join('\n'), e.details);
}

const PUSH_HINT = (file: string) => `A scenario file (the format authz test reads) is pushed with: authz push ${file} [--tuples] [--dry-run]`;

/** A refused file that is a scenario, not an export: the refusal says which command takes it. */
async function scenarioHint(e: unknown, file: string, cwd: string): Promise<unknown> {
  if (!(e instanceof CliError) || e.exit !== EXIT.refused || file === '-') return e;
  const src = await readSource(file, cwd).catch(() => null);
  if (!src || !parseScenario(src.value).scenario) return e;
  return new CliError(e.exit, `${e.message}\n${file} is a scenario file, not a state export. ${PUSH_HINT(file)}`, e.details);
}

interface ImportReport {
  dryRun: boolean;
  prune: boolean;
  revision: number;
  notes: string[];
  resources: Record<string, string[]>;
  schemas: Record<string, string[]>;
  config: Record<string, string[]>;
  relations?: Record<string, number>;
  grants?: Record<string, number>;
}

export const importState = {
  spec: {
    name: 'import',
    summary: 'Import a state document (an export): NDJSON streamed, or one JSON document',
    usage: ['import FILE|- [--dry-run] [--prune] [--format ndjson|json] [flags]'],
    description: [
      'The server validates the whole document before it changes anything; importing the same file again changes',
      'nothing. --prune also removes what the document leaves out. A progress bar with lines sent and the rate goes',
      "to stderr, then the server's report. The format follows the file name (.json: json, else ndjson) unless given.",
      'Exit: 0 imported, 2 usage error, 3 FILE cannot be read, 4 the server refused the document (nothing changed), 5-6 server errors.',
    ].join('\n'),
    flags: {
      ...COMMON,
      ...SERVER,
      'dry-run': { type: 'boolean', help: 'Report what would change; change nothing' },
      prune: { type: 'boolean', help: 'Also remove definitions, config and tuples the document leaves out (schemas are never removed)' },
      format: { type: 'string', arg: 'FORMAT', help: 'ndjson or json' },
    },
    examples: ['authz import backup.ndjson', 'authz import backup.ndjson --dry-run --json'],
  } satisfies CommandSpec,
  async run({ values, positionals }: Parsed, out: Output, io: CliIo): Promise<number> {
    if (positionals.length !== 1) throw usage('authz import needs one FILE (or - for stdin)\nSee: authz import --help');
    const file = positionals[0]!;
    if (/\.ya?ml$/i.test(file)) {
      throw new CliError(EXIT.input, `${file}: authz import reads a state export (NDJSON or JSON, as authz export writes it), not YAML.\n${PUSH_HINT(file)}`);
    }
    const format = choice(values, 'format', ['ndjson', 'json'] as const) ?? (/\.json$/i.test(file) ? 'json' : 'ndjson');
    let size: number | undefined;
    if (file !== '-') {
      try {
        size = (await stat(at(io.cwd, file))).size;
      } catch (e) {
        throw new CliError(EXIT.input, `${file}: cannot read: ${(e as NodeJS.ErrnoException).code}`);
      }
    }
    const conn = await connect(values, io);
    const progress = new Progress('import', 'lines', size, io.stderr);
    const { stream } = counter(progress);
    const source = file === '-' ? io.stdin : createReadStream(at(io.cwd, file));
    source.on('error', (e: Error) => stream.destroy(new CliError(EXIT.input, `${file}: cannot read: ${(e as NodeJS.ErrnoException).code}`)));
    stream.on('end', () => progress.finish(' sent; waiting for the server'));
    const res = await conn.raw('POST', `/state/import${query({ dryRun: values['dry-run'] ? true : undefined, prune: values.prune ? true : undefined })}`, {
      upload: source.pipe(stream),
      headers: { 'content-type': format === 'json' ? 'application/json' : NDJSON },
    })
      .catch(async (e: unknown) => {
        throw await scenarioHint(withLines(e, file), file, io.cwd);
      });
    const report = await res.json() as ImportReport;
    const names = (c: Record<string, string[]>) => Object.entries(c).filter(([, v]) => v.length).map(([k, v]) => `${k} ${v.length}`).join(', ') || 'no change';
    const counts = (c?: Record<string, number>) => (c ? Object.entries(c).map(([k, v]) => `${k} ${count(v)}`).join(', ') : 'not in the file');
    out.line(`${report.dryRun ? 'Dry run (nothing changed)' : 'Imported'} at revision ${report.revision}`);
    out.line(`  resources: ${names(report.resources)}`);
    out.line(`  schemas:   ${names(report.schemas)}`);
    out.line(`  config:    ${names(report.config)}`);
    out.line(`  relations: ${counts(report.relations)}`);
    out.line(`  grants:    ${counts(report.grants)}`);
    report.notes.forEach((n) => out.line(`  note: ${n}`));
    out.value(report);
    return EXIT.ok;
  },
};
