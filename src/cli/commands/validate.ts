// `authz validate FILE…`: the format, definitions, tuples and assertions of scenario files, each problem with its location.
import { parseScenario } from '../../engine/scenario.js';
import { lintScenario, type LintProblem } from '../../engine/scenario-lint.js';
import { COMMON, type CommandSpec, type Parsed } from '../args.js';
import { CliError, EXIT, usage } from '../exit.js';
import type { CliIo } from '../io.js';
import type { Output } from '../output.js';
import { readSource } from '../source-file.js';
import { expandInputs } from './inputs.js';

export const spec: CommandSpec = {
  name: 'validate',
  summary: 'Check scenario files: their format, definitions, tuples and grants, and what the assertions name',
  usage: ['validate FILE|DIR… [--strict] [--json]'],
  description: [
    'Errors: a field the format does not have or a value of the wrong kind, a definition the server refuses,',
    'a tuple or grant it refuses, a delete of something not stored, an invalidTuples entry it would store, and an',
    'assertion that expects an allow (or a non-empty list) on a type, relation or permission that does not exist.',
    'Warnings: the same unknown names in assertions that expect a deny, and subject types defined nowhere in the file.',
    'Each problem is printed as FILE:LINE:COL, its JSON path and the message.',
    '',
    'Exit: 0 no errors, 1 errors (or warnings with --strict), 2 usage error, 3 a file cannot be read or parsed.',
  ].join('\n'),
  flags: { ...COMMON, strict: { type: 'boolean', help: 'Warnings fail too' } },
  examples: ['authz validate examples/docs.yaml', 'authz validate models/ --strict'],
};

interface Located extends LintProblem {
  location: string;
}

export async function run({ values, positionals }: Parsed, out: Output, io: CliIo): Promise<number> {
  if (positionals.length === 0) throw usage('authz validate needs at least one file or directory\nSee: authz validate --help');
  const files = await expandInputs(positionals, io.cwd);
  const reports: Array<{ file: string; problems: Located[]; error?: string }> = [];
  for (const file of files) {
    try {
      const src = await readSource(file, io.cwd);
      const parsed = parseScenario(src.value);
      const problems: LintProblem[] = parsed.scenario ? lintScenario(parsed.scenario)
        : parsed.problems.map((p) => ({ severity: 'error', at: p.at, message: p.message }));
      reports.push({ file, problems: problems.map((p) => ({ ...p, location: src.locate(p.at) })) });
    } catch (e) {
      if (!(e instanceof CliError) || e.exit !== EXIT.input) throw e;
      reports.push({ file, problems: [], error: e.message });
    }
  }
  for (const r of reports) {
    if (r.error) out.line(`${r.error}`);
    for (const p of r.problems) out.line(`${p.location}: ${p.severity}: ${p.message}  (${p.at})`);
  }
  const all = reports.flatMap((r) => r.problems);
  const errors = all.filter((p) => p.severity === 'error').length;
  const warnings = all.length - errors;
  const unread = reports.filter((r) => r.error).length;
  out.line(
    `${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'} in ${files.length} file${files.length === 1 ? '' : 's'}${
      unread ? ` (${unread} not read)` : ''
    }`,
  );
  out.value({ errors, warnings, files: reports });
  if (unread) return EXIT.input;
  return errors || (values.strict && warnings) ? EXIT.failed : EXIT.ok;
}
