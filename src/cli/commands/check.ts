// `authz check` and `authz evaluate`: one decision from the server, and the path of tuples that explains it.
import { parseTupleText } from '../../engine/ids.js';
import { COMMON, SERVER, choice, int, str, type CommandSpec, type Flag, type Parsed, type Values } from '../args.js';
import { connect, query } from '../connection.js';
import { EXIT, usage } from '../exit.js';
import type { CliIo } from '../io.js';
import type { Output } from '../output.js';

const CONSISTENCY = ['minimize_latency', 'at_least_as_fresh', 'fully_consistent'] as const;
const DECISION_FLAGS: Record<string, Flag> = {
  ...COMMON,
  ...SERVER,
  expect: { type: 'string', arg: 'allow|deny', help: 'Exit 0 when the answer is this, 1 otherwise (default: allow)' },
  consistency: { type: 'string', arg: 'MODE', help: `${CONSISTENCY.join(', ')}` },
  revision: { type: 'string', arg: 'N', help: "Answer at least as fresh as this revision (a write's answer carries it)" },
  scope: { type: 'string', arg: 'OBJECT', help: "Decide for this scope object on the subject's behalf (see the API docs)" },
};
const EXIT_LINE = [
  'Exit: 0 allowed (or what --expect asks), 1 denied (or not what --expect asks), 2 usage, 4-6 server errors,',
  '7 denied because the type or permission is unknown to the model (a typo? the reason names the nearest name).',
].join('\n');

interface Reason {
  code: string;
  message: string;
  didYouMean?: string;
}

export const spec: CommandSpec = {
  name: 'check',
  summary: 'Ask the server whether SUBJECT may do PERMISSION on RESOURCE',
  usage: ['check SUBJECT PERMISSION RESOURCE [flags]', 'check SUBJECT#PERMISSION@RESOURCE [flags]'],
  description: EXIT_LINE,
  flags: DECISION_FLAGS,
  examples: ['authz check User:alice read Document:plan', 'authz check User:bob#edit@Document:plan --expect deny'],
};

/** The decision's three parts, from three words or one `S#p@O`. */
function triple(positionals: string[], command: string) {
  if (positionals.length === 1) {
    const t = parseTupleText(positionals[0]!);
    if (!t) throw usage(`${JSON.stringify(positionals[0])} is not SUBJECT#PERMISSION@RESOURCE\nSee: authz ${command} --help`);
    return { subject: t.subject, permission: t.relation, resource: t.resource };
  }
  if (positionals.length !== 3) throw usage(`authz ${command} needs SUBJECT PERMISSION RESOURCE\nSee: authz ${command} --help`);
  const [subject, permission, resource] = positionals as [string, string, string];
  return { subject, permission, resource };
}

function decisionQuery(values: Values, t: ReturnType<typeof triple>) {
  return query({
    ...t,
    scope: str(values, 'scope'),
    consistency: choice(values, 'consistency', CONSISTENCY),
    revision: str(values, 'revision') === undefined ? undefined : int(values, 'revision', { min: 0, max: Number.MAX_SAFE_INTEGER, fallback: 0 }),
  });
}

/** An unknown name has its own code, unless a deny was asked for (a removed permission is meant to deny). */
const verdict = (values: Values, allowed: boolean, unknownName = false) => {
  const expect = choice(values, 'expect', ['allow', 'deny'] as const) ?? 'allow';
  if ((allowed ? 'allow' : 'deny') === expect) return EXIT.ok;
  return unknownName ? EXIT.unknownName : EXIT.failed;
};

export async function run({ values, positionals }: Parsed, out: Output, io: CliIo): Promise<number> {
  const t = triple(positionals, 'check');
  verdict(values, false); // a bad --expect is a usage error before any request
  const q = decisionQuery(values, t);
  const conn = await connect(values, io);
  const r = await conn.json<{ allowed: boolean; reason?: Reason }>('GET', `/authorization/permissions/can${q}`);
  out.line(`${r.allowed ? 'allow' : 'deny'}  ${t.subject} ${t.permission} ${t.resource}`);
  if (r.reason) out.line(`  reason: ${r.reason.code}: ${r.reason.message}`);
  out.value({ allowed: r.allowed, ...(r.reason ? { reason: r.reason } : {}), ...t });
  return verdict(values, r.allowed, r.reason !== undefined);
}

export const evaluate = {
  spec: {
    name: 'evaluate',
    summary: 'Ask the server why: the decision, its reason and the path of stored tuples from subject to resource',
    usage: ['evaluate SUBJECT PERMISSION RESOURCE [flags]', 'evaluate SUBJECT#PERMISSION@RESOURCE [flags]'],
    description: `${EXIT_LINE}\nWith --json the server's whole answer is printed, with its raw index records.`,
    flags: DECISION_FLAGS,
    examples: ['authz evaluate User:alice read Document:plan'],
  } satisfies CommandSpec,
  async run({ values, positionals }: Parsed, out: Output, io: CliIo): Promise<number> {
    const t = triple(positionals, 'evaluate');
    verdict(values, false); // a bad --expect is a usage error before any request
    const q = decisionQuery(values, t);
    const conn = await connect(values, io);
    const r = await conn.json<{ allowed: boolean; reason?: string; reasonCode?: string; paths?: string[] }>('GET', `/authorization/permissions/evaluate${q}`);
    out.line(`${r.allowed ? 'allow' : 'deny'}  ${t.subject} ${t.permission} ${t.resource}`);
    if (r.reason) out.line(`  reason: ${r.reasonCode ? `${r.reasonCode}: ` : ''}${r.reason}`);
    if (r.paths?.length) {
      out.line('  path:');
      r.paths.forEach((p, i) => out.line(`    ${i + 1}. ${p}`));
    }
    out.value({ ...r, ...t });
    return verdict(values, r.allowed, r.reasonCode !== undefined);
  },
};
