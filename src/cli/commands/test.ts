// `authz test FILE…`: model tests in the scenario format, answered offline by the engine the server uses.
import { parseScenario, type Scenario } from '../../engine/scenario.js';
import { lintScenario } from '../../engine/scenario-lint.js';
import { runScenario, type Outcome } from '../../engine/scenario-run.js';
import { COMMON, int, str, type CommandSpec, type Parsed } from '../args.js';
import { CliError, EXIT, usage } from '../exit.js';
import type { CliIo } from '../io.js';
import type { Output } from '../output.js';
import { shuffler } from '../random.js';
import { readSource, type SourceFile } from '../source-file.js';
import { expandInputs } from './inputs.js';

export const spec: CommandSpec = {
  name: 'test',
  summary: 'Run model tests (scenario files, JSON or YAML) with the engine the server uses, without a server',
  usage: ['test FILE|DIR… [--shuffle N] [--seed S] [--json]'],
  description: [
    'Each file holds definitions, tuples and grants, the assertions to check (checks, listObjects, listSubjects,',
    'invalidTuples), and steps that add, delete or define, each with its own assertions: the conformance scenario',
    'format (test/fixtures/conformance/cases). A directory stands for its *.json, *.yaml and *.yml files, and those',
    'of its subdirectories.',
    'Every failing assertion is printed with its location, the expected and the actual answer, and, for an',
    'unexpected allow, the path of stored tuples that explains it. A write the server would refuse is a failure too.',
    '',
    'Exit: 0 all passed, 1 a failure, 2 usage error, 3 a file cannot be read or is not in the format.',
  ].join('\n'),
  flags: {
    ...COMMON,
    shuffle: { type: 'string', arg: 'N', help: 'Also replay the writes in N random orders (answers must not depend on it)' },
    seed: { type: 'string', arg: 'S', help: 'Seed of the random orders (printed by --shuffle; give it to replay them)' },
  },
  examples: ['authz test examples/docs.yaml', 'authz test test/fixtures/conformance/cases --shuffle 5', 'authz test model.yaml --json | jq .failed'],
};

interface Failure extends Outcome {
  location: string; /** The shuffled order (1..N) it failed in, when it passed in the file's order. */
  order?: number;
}
interface FileReport {
  file: string;
  name?: string;
  passed: number;
  failed: number;
  failures: Failure[];
  error?: string;
}

/** Runs in the natural order, then in each shuffled order; an assertion fails if it fails in any order. */
function testFile(src: SourceFile, scenario: Scenario, orders: number, seedOf: (n: number) => number): FileReport {
  const base = runScenario(scenario);
  const failures: Failure[] = base.outcomes.filter((o) => !o.ok).map((o) => ({ ...o, location: src.locate(o.at) }));
  const failedAt = new Set(failures.map((f) => f.at));
  for (let n = 1; n <= orders; n++) {
    const seed = seedOf(n);
    for (const o of runScenario(scenario, { order: shuffler(seed) }).outcomes) {
      if (o.ok || failedAt.has(o.at)) continue;
      failedAt.add(o.at);
      failures.push({ ...o, location: src.locate(o.at), order: n });
    }
  }
  // A failure next to a name that does not exist is usually a typo: say so where it fails.
  if (failures.length) {
    const hints = new Map<string, string[]>();
    for (const p of lintScenario(scenario)) if (failedAt.has(p.at) && p.message) hints.set(p.at, [...(hints.get(p.at) ?? []), p.message]);
    for (const f of failures) if (hints.has(f.at) && !f.message) f.message = hints.get(f.at)!.join('; ');
  }
  const total = base.outcomes.length;
  return { file: src.path, name: scenario.name, passed: total - failedAt.size, failed: failedAt.size, failures };
}

const show = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

function printFailure(out: Output, f: Failure) {
  out.line(`  ✗ ${f.location}  ${f.at}`);
  out.line(`      ${f.what}`);
  if (f.expected !== undefined) out.line(`      expected ${show(f.expected)}, got ${show(f.actual)}`);
  if (f.message) out.line(`      ${f.message}`);
  for (const p of f.paths ?? []) out.line(`      allowed${f.kind === 'check' ? '' : ` ${p.object}`} because: ${p.because}`);
  if (f.order) out.line(`      only in shuffled order ${f.order} (the order depends on the seed printed below)`);
}

export async function run({ values, positionals }: Parsed, out: Output, io: CliIo): Promise<number> {
  if (positionals.length === 0) throw usage('authz test needs at least one file or directory\nSee: authz test --help');
  const orders = int(values, 'shuffle', { min: 0, max: 1000, fallback: 0 });
  if (str(values, 'seed') !== undefined && orders === 0) throw usage('--seed replays shuffled orders: give --shuffle N too');
  const seed = int(values, 'seed', { min: 0, max: 2 ** 31 - 1, fallback: Math.floor(Math.random() * 2 ** 31) });
  const files = await expandInputs(positionals, io.cwd);

  const reports: FileReport[] = [];
  let inputErrors = 0;
  for (const [i, file] of files.entries()) {
    // Each file's orders come from the seed and its position, so one --seed replays every file's orders.
    const seedOf = (n: number) => (seed + i * 7919 + n * 104729) % 2 ** 31;
    let report: FileReport;
    try {
      const src = await readSource(file, io.cwd);
      const parsed = parseScenario(src.value);
      if (!parsed.scenario) {
        const first = parsed.problems[0]!;
        throw new CliError(EXIT.input, `${src.locate(first.at)}: ${first.at}: ${first.message}`
          + (parsed.problems.length > 1 ? ` (and ${parsed.problems.length - 1} more; see authz validate ${file})` : ''));
      }
      report = testFile(src, parsed.scenario, orders, seedOf);
    } catch (e) {
      if (!(e instanceof CliError) || e.exit !== EXIT.input) throw e;
      inputErrors++;
      report = { file, passed: 0, failed: 0, failures: [], error: e.message };
    }
    reports.push(report);
    if (report.error) out.line(`ERROR ${report.error}`);
    else if (report.failed === 0) out.line(`PASS ${file} (${report.passed} assertions)`);
    else {
      out.line(`FAIL ${file}${report.name ? `  "${report.name}"` : ''}`);
      report.failures.forEach((f) => printFailure(out, f));
    }
  }
  const passed = reports.reduce((s, r) => s + r.passed, 0);
  const failed = reports.reduce((s, r) => s + r.failed, 0);
  const shuffled = orders > 0 ? { orders, seed } : {};
  out.line('');
  if (orders > 0) out.line(`Shuffled: ${orders} random write orders per file, seed ${seed} (replay: --shuffle ${orders} --seed ${seed})`);
  out.line(
    `${passed} passed, ${failed} failed${inputErrors ? `, ${inputErrors} file${inputErrors > 1 ? 's' : ''} not read` : ''} (${files.length} file${files.length === 1 ? '' : 's'})`,
  );
  out.value({ passed, failed, inputErrors, files: reports, ...shuffled });
  return inputErrors ? EXIT.input : failed ? EXIT.failed : EXIT.ok;
}
