// `authz rebuild`: asks the server to rebuild the index, then follows its status until it is done.
import { COMMON, SERVER, int, type CommandSpec, type Parsed } from '../args.js';
import { connect } from '../connection.js';
import { CliError, EXIT } from '../exit.js';
import type { CliIo } from '../io.js';
import { count, type Output } from '../output.js';

interface Status {
  revision: number;
  generation: number;
  rebuild: { soft: boolean; phase: string; done: number; total: number } | null;
  rebuildRequested: { soft: boolean } | null;
}

const POLL_MS = 500;

export const spec: CommandSpec = {
  name: 'rebuild',
  summary: 'Rebuild the index (hard: a new generation, switched to when complete; --soft: reapply in place) and wait',
  usage: ['rebuild [--soft] [--no-wait] [--wait-timeout SECONDS] [flags]'],
  description: [
    'The server keeps answering during a rebuild. Progress (phase, done of total, rate) goes to stderr.',
    'Exit: 0 done (or started, with --no-wait), 2 usage error, 4-6 server errors (6: not done within --wait-timeout).',
  ].join('\n'),
  flags: {
    ...COMMON,
    ...SERVER,
    soft: { type: 'boolean', help: 'Reapply every tuple to the current generation instead of building a new one' },
    'no-wait': { type: 'boolean', help: 'Start it and return' },
    'wait-timeout': { type: 'string', arg: 'SECONDS', help: 'Give up waiting after this long (default 3600); the rebuild goes on' },
  },
  examples: ['authz rebuild', 'authz rebuild --soft --json'],
};

export async function run({ values }: Parsed, out: Output, io: CliIo): Promise<number> {
  const waitS = int(values, 'wait-timeout', { min: 1, max: 7 * 86_400, fallback: 3600 });
  const conn = await connect(values, io);
  const soft = values.soft === true;
  const before = await conn.json<Status>('GET', '/authorization/indexer/status');
  const started = await conn.json<{ revision: number }>('POST', '/authorization/indexer/reconstruct', { soft });
  out.note(`rebuild (${soft ? 'soft' : 'hard'}) requested at revision ${started.revision}`);
  if (values['no-wait']) {
    out.line(`rebuild started (revision ${started.revision})`);
    out.value({ started: true, revision: started.revision });
    return EXIT.ok;
  }
  const t0 = Date.now();
  const tty = io.stderr.isTTY === true;
  let lastLine = '';
  let lastPrint = 0;
  for (;;) {
    const s = await conn.json<Status>('GET', '/authorization/indexer/status');
    // The request is stored before the answer, so "nothing requested, nothing running" means this one is done.
    if (!s.rebuild && !s.rebuildRequested) {
      const seconds = (Date.now() - t0) / 1000;
      if (tty && lastLine) io.stderr.write('\n');
      out.line(`rebuild done in ${seconds.toFixed(1)} s (generation ${before.generation} -> ${s.generation})`);
      out.value({ done: true, seconds, revision: started.revision, generationBefore: before.generation, generation: s.generation });
      return EXIT.ok;
    }
    if (Date.now() - t0 > waitS * 1000) throw new CliError(EXIT.unavailable, `the rebuild is not done after ${waitS} s; it goes on (see authz rebuild --help)`);
    const r = s.rebuild;
    const elapsed = Math.max((Date.now() - t0) / 1000, 0.001);
    const line = r
      ? `rebuild ${r.soft ? 'soft' : 'hard'}: ${r.phase} ${count(r.done)}/${count(r.total)}${r.total ? ` (${Math.floor((100 * r.done) / r.total)}%)` : ''}, ${
        count(Math.round(r.done / elapsed))
      }/s`
      : 'rebuild: waiting to start';
    if (tty) io.stderr.write(`\r\x1b[K${line}`);
    else if (line !== lastLine && Date.now() - lastPrint > 2000) {
      io.stderr.write(`${line}\n`);
      lastPrint = Date.now();
    }
    lastLine = line;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
