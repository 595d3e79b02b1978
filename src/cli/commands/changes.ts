// `authz changes`: the change feed (tuple, grant and definition changes in revision order), once or followed.
import { COMMON, SERVER, int, str, type CommandSpec, type Parsed } from '../args.js';
import { connect, query } from '../connection.js';
import { EXIT } from '../exit.js';
import type { CliIo } from '../io.js';
import type { Output } from '../output.js';

interface Change {
  revision: number;
  kind: string;
  op: string;
  tuple?: string;
  definition?: { name: string; version?: number };
}

/** How long a follower waits after an empty page before asking again. */
const IDLE_MS = 500;

export const spec: CommandSpec = {
  name: 'changes',
  summary: 'Read the change feed: tuple, grant and definition changes in revision order',
  usage: ['changes [--after REVISION] [--limit N] [--follow [--max N]] [flags]'],
  description: [
    'Prints one change per line (--json: one JSON change per line). Without --follow: the changes after --after',
    '(default 0), at most --limit, and on stderr the --after that reads on. With --follow: from --after (default:',
    'now) on, as they happen, until Ctrl-C or --max changes.',
    'Exit: 0 done (Ctrl-C included), 2 usage error, 4-6 server errors.',
  ].join('\n'),
  flags: {
    ...COMMON,
    ...SERVER,
    after: { type: 'string', arg: 'REVISION', help: 'Changes after this revision' },
    limit: { type: 'string', arg: 'N', help: 'At most N changes without --follow, 1-1000 (default 100)' },
    follow: { type: 'boolean', short: 'f', help: 'Keep reading as changes happen' },
    max: { type: 'string', arg: 'N', help: 'With --follow, stop after N changes' },
  },
  examples: ['authz changes --after 120', 'authz changes --follow --json | jq .tuple'],
};

const describe = (c: Change) => `${c.revision} ${c.kind} ${c.op} ${c.tuple ?? c.definition?.name ?? ''}`.trimEnd();

export async function run({ values }: Parsed, out: Output, io: CliIo): Promise<number> {
  const follow = values.follow === true;
  const limit = int(values, 'limit', { min: 1, max: 1000, fallback: 100 });
  const max = int(values, 'max', { min: 1, max: Number.MAX_SAFE_INTEGER, fallback: Number.MAX_SAFE_INTEGER });
  const afterFlag = str(values, 'after') === undefined ? undefined : int(values, 'after', { min: 0, max: Number.MAX_SAFE_INTEGER, fallback: 0 });
  const conn = await connect(values, io);
  const print = (c: Change) => {
    out.line(describe(c));
    out.value(c);
  };
  if (!follow) {
    const after = afterFlag ?? 0;
    const page = await conn.json<{ changes: Change[]; next: number }>('GET', `/authorization/changes${query({ after, limit })}`);
    page.changes.forEach(print);
    out.note(`${page.changes.length} change${page.changes.length === 1 ? '' : 's'}; read on with --after ${page.next}`);
    return EXIT.ok;
  }
  // "Now" is the latest revision: the feed lists changes once they are settled, all of them after it.
  let cursor = afterFlag ?? (await conn.json<{ revision: number }>('GET', '/authorization/indexer/status')).revision;
  out.note(`following changes after revision ${cursor} (Ctrl-C to stop)`);
  let stopped = false;
  const stop = () => {
    stopped = true;
  };
  const unsubscribe = io.onInterrupt(stop);
  let seen = 0;
  try {
    // A closed stdout (`authz changes -f | head -3`) ends the follow like Ctrl-C does.
    while (!stopped && seen < max && !io.stdout.destroyed) {
      const page = await conn.json<{ changes: Change[]; next: number }>('GET', `/authorization/changes${query({ after: cursor, limit: 1000 })}`);
      for (const c of page.changes) {
        if (seen >= max) break;
        print(c);
        seen++;
      }
      cursor = page.next;
      if (page.changes.length === 0) await new Promise((r) => setTimeout(r, IDLE_MS));
    }
  } finally {
    unsubscribe();
  }
  return EXIT.ok;
}
