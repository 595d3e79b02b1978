// The `authz` command line: picks the command, parses its flags, prints its help, and turns errors into exit codes.
import { helpText, parse, type CommandSpec, type Parsed } from './args.js';
import { CliError, EXIT } from './exit.js';
import type { CliIo } from './io.js';
import { output, type Output } from './output.js';

export { processIo } from './process-io.js';

interface CommandModule {
  spec: CommandSpec;
  run(parsed: Parsed, out: Output, io: CliIo): Promise<number>;
}

/** Commands load on use: `authz check` does not pay for the engine, `authz test` not for the HTTP client. */
const COMMANDS: Array<{ name: string; summary: string; load: () => Promise<CommandModule> }> = [
  { name: 'test', summary: "Run model tests (scenario files) offline with the server's engine", load: () => import('./commands/test.js') },
  { name: 'validate', summary: 'Check scenario files: format, definitions, tuples, names in assertions', load: () => import('./commands/validate.js') },
  { name: 'login', summary: 'Save a server URL and API token to a profile (file mode 0600)', load: () => import('./commands/login.js') },
  { name: 'logout', summary: 'Remove a saved profile', load: async () => (await import('./commands/login.js')).logout },
  { name: 'check', summary: 'Ask the server: may SUBJECT do PERMISSION on RESOURCE?', load: () => import('./commands/check.js') },
  { name: 'evaluate', summary: 'Ask the server why: the decision and the path of tuples behind it', load: async () => (await import('./commands/check.js')).evaluate },
  { name: 'relations write', summary: 'Write tuples', load: async () => (await import('./commands/relations.js')).write },
  { name: 'relations delete', summary: 'Delete tuples', load: async () => (await import('./commands/relations.js')).remove },
  { name: 'relations read', summary: 'List stored tuples, filtered, page by page', load: async () => (await import('./commands/relations.js')).read },
  { name: 'export', summary: 'Export definitions, schemas, config and every tuple as NDJSON', load: async () => (await import('./commands/state.js')).exportState },
  { name: 'import', summary: 'Import an export (NDJSON or JSON)', load: async () => (await import('./commands/state.js')).importState },
  { name: 'push', summary: "Push a scenario file's definitions (--tuples: and tuples) to a server, with a diff and --dry-run", load: () => import('./commands/push.js') },
  { name: 'rebuild', summary: 'Rebuild the index and wait for it, showing progress', load: () => import('./commands/rebuild.js') },
  { name: 'changes', summary: 'Read the change feed; --follow keeps reading as changes happen', load: () => import('./commands/changes.js') },
];

const EXIT_HELP = [
  'Exit codes:',
  '  0  ok: tests passed, no validation errors, check allowed (or as --expect asked)',
  '  1  failed: a test or validation failed, or a check was denied (or not as --expect asked)',
  '  2  usage error: unknown command or flag, missing or bad argument',
  '  3  input error: a file cannot be read or parsed, or is not in the expected format',
  '  4  the server refused the request (4xx)',
  '  5  no credentials, or the server refused them (401, 403)',
  '  6  the server is unreachable, timed out or failed (5xx)',
  ' 70  a bug in authz itself',
].join('\n');

function globalHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'authz: model tests offline, and an authz-graph server from the command line.',
    '',
    'Usage: authz COMMAND [flags]       authz COMMAND --help for its flags',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Server commands read the URL and token from --url/--token, else AUTHZ_URL/AUTHZ_TOKEN, else the profile that',
    'authz login saved. Every command takes --json for output a script can read.',
    '',
    EXIT_HELP,
    '',
  ].join('\n');
}

/** Runs one command line on `io` (processIo() for the real process); resolves to the exit code. */
export async function main(io: CliIo): Promise<number> {
  const { argv, stdout, stderr } = io;
  const out = output(argv.includes('--json'), stdout, stderr);
  // `authz test … | head` closes the pipe early: the output ends there, and the exit code still tells the result.
  stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE' && e.code !== 'ERR_STREAM_DESTROYED') throw e;
  });
  const [first, second] = argv;
  if (first === undefined || first === 'help' || first === '--help' || first === '-h') {
    const topic = first === 'help' ? COMMANDS.find((c) => c.name === [second, argv[2]].filter(Boolean).join(' ') || c.name === second) : undefined;
    if (topic) stdout.write(helpText((await topic.load()).spec, io.env));
    else (first === undefined ? stderr : stdout).write(globalHelp());
    return first === undefined ? EXIT.usage : EXIT.ok;
  }
  const two = COMMANDS.find((c) => c.name === `${first} ${second}`);
  const command = two ?? COMMANDS.find((c) => c.name === first);
  if (!command) {
    const group = COMMANDS.filter((c) => c.name.startsWith(`${first} `));
    const message = group.length
      ? `authz ${first} needs one of: ${group.map((c) => c.name.split(' ')[1]).join(', ')}`
      : `unknown command ${JSON.stringify(first)}`;
    if (group.length && argv.some((a) => a === '--help' || a === '-h')) {
      stdout.write(`${group.map((c) => `authz ${c.name}  ${c.summary}`).join('\n')}\n`);
      return EXIT.ok;
    }
    return fail(out, new CliError(EXIT.usage, `${message}\nSee: authz --help`));
  }
  try {
    const mod = await command.load();
    const parsed = parse(mod.spec, argv.slice(two ? 2 : 1));
    if (parsed.values.help) {
      stdout.write(helpText(mod.spec, io.env));
      return EXIT.ok;
    }
    return await mod.run(parsed, out, io);
  } catch (e) {
    return fail(out, e);
  }
}

function fail(out: Output, e: unknown): number {
  if (e instanceof CliError) {
    if (out.json) out.note(JSON.stringify({ error: { exit: e.exit, message: e.message, ...(e.details === undefined ? {} : { details: e.details }) } }));
    else out.note(`authz: ${e.message}`);
    return e.exit;
  }
  out.note(`authz: internal error (please report): ${(e as Error)?.stack ?? String(e)}`);
  return 70;
}
