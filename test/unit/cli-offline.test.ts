// `authz test` and `authz validate` run in-process (test/support/cli.ts; the binary itself: cli-bin.test.ts), with no
// server: the conformance set, wrong expectations, shuffled orders, problem locations, and --help on every command.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { authz } from '../support/cli.js';
import { FIXTURE_CASES, loadCases, stepsOf } from '../support/scenarios.js';

const dir = mkdtempSync(join(tmpdir(), 'authz-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const cases = loadCases();
/** Assertions the server replay makes per file: checks, lists and refused writes, at every step. */
const assertions = (file: string) =>
  stepsOf(cases.find((c) => c.file === file)!.scenario)
    .reduce((n, s) => n + (s.checks?.length ?? 0) + (s.listObjects?.length ?? 0) + (s.listSubjects?.length ?? 0) + (s.invalidTuples?.length ?? 0), 0);

interface TestJson {
  passed: number;
  failed: number;
  inputErrors: number;
  orders?: number;
  seed?: number;
  files: Array<
    { file: string; name?: string; passed: number; failed: number;
      failures: Array<{ at: string; location: string; expected?: string; actual?: string; paths?: Array<{ path: string[] }> }> }
  >;
}

describe('authz test over the conformance set (the verdicts the server replay asserts)', () => {
  it('passes every assertion of every file, none skipped', async () => {
    const t0 = Date.now();
    const r = await authz(['test', FIXTURE_CASES, '--json']);
    process.stderr.write(`authz test on ${cases.length} conformance files: ${Date.now() - t0} ms (in-process)\n`);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as TestJson;
    expect(out.files).toHaveLength(cases.length);
    for (const f of out.files) {
      const name = f.file.split('/').at(-1)!;
      expect([name, f.failed, f.passed]).toEqual([name, 0, assertions(name)]);
    }
    expect(out.failed).toBe(0);
    expect(out.passed).toBe(cases.reduce((n, c) => n + assertions(c.file), 0));
  });

  it('prints a PASS line per file and the summary line', async () => {
    const r = await authz(['test', join(FIXTURE_CASES, 'self-access.json'), join(FIXTURE_CASES, 'grant-revoked.json')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^PASS .*self-access\.json \(\d+ assertions\)$/m);
    const total = assertions('self-access.json') + assertions('grant-revoked.json');
    expect(r.stdout).toContain(`${total} passed, 0 failed (2 files)`);
  });

  it('runs the example model of the README', async () => {
    const r = await authz(['test', 'examples/docs.yaml']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\d+ passed, 0 failed \(1 file\)/);
  });
});

describe('a wrong expectation', () => {
  // folders-teams-documents: User:dev may read Document:rfc through Team:eng's folder; the copy says it may not.
  const source = JSON.parse(readFileSync(join(FIXTURE_CASES, 'folders-teams-documents.json'), 'utf8'));
  const index = source.checks.findIndex((c: { subject: string; action: string; resource: string }) =>
    c.subject === 'User:dev' && c.action === 'read' && c.resource === 'Document:rfc'
  );
  source.checks[index].expect = false;
  const file = join(dir, 'wrong.json');
  writeFileSync(file, JSON.stringify(source, null, 2));

  it('exits 1 and names the file, the scenario, the assertion, both answers and the path that allows', async () => {
    expect(index).toBeGreaterThanOrEqual(0);
    const r = await authz(['test', file]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`FAIL ${file}  "${source.name}"`);
    expect(r.stdout).toContain(`$.checks[${index}]`);
    expect(r.stdout).toContain('can(User:dev, read, Document:rfc)');
    expect(r.stdout).toContain('expected deny, got allow');
    // The chain of stored tuples from the subject to the resource, as /evaluate gives it.
    expect(r.stdout).toContain('because: User:dev#member@Team:eng -> Team:eng#owner@Folder:specs -> Folder:specs#parent@Folder:api -> Folder:api#owner@Document:rfc');
    expect(r.stdout).toMatch(new RegExp(`^${assertions('folders-teams-documents.json') - 1} passed, 1 failed \\(1 file\\)$`, 'm'));
  });

  it('--json gives the failure with its line, and a correct file beside it still passes', async () => {
    const r = await authz(['test', file, join(FIXTURE_CASES, 'self-access.json'), '--json']);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as TestJson;
    expect(out.failed).toBe(1);
    const [wrong, right] = out.files;
    expect(right!.failed).toBe(0);
    expect(wrong!.failures).toEqual([expect.objectContaining({ at: `$.checks[${index}]`, expected: 'deny', actual: 'allow' })]);
    // The location is the line of the check's opening brace, its subject on the next line (JSON.stringify's layout).
    const [, line] = /:(\d+):5$/.exec(wrong!.failures[0]!.location) ?? [];
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(wrong!.failures[0]!.location).toBe(`${file}:${line}:5`);
    expect([lines[Number(line) - 1]!.trim(), lines[Number(line)]!.trim()]).toEqual(['{', '"subject": "User:dev",']);
    expect(wrong!.failures[0]!.paths![0]!.path).toHaveLength(4);
  });

  it('an unexpected deny in a YAML step, and a write the server refuses, fail with their lines', async () => {
    const yaml = join(dir, 'steps.yaml');
    writeFileSync(yaml, [
      'name: steps',
      'definitions:',
      '  - { name: Doc, relations: { viewer: [User] }, permissions: { read: [viewer] } }',
      'tuples: [User:a#viewer@Doc:1, Team:t#viewer@Doc:1]',
      'steps:',
      '  - op: delete',
      '    tuples: [User:a#viewer@Doc:1]',
      '    checks:',
      '      - { subject: User:a, action: read, resource: Doc:1, expect: true }',
      '',
    ].join('\n'));
    const r = await authz(['test', yaml]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`${yaml}:4:31  $.tuples[1]`);
    expect(r.stdout).toContain('the server refuses it (RELATION_NOT_ALLOWED)');
    expect(r.stdout).toContain(`${yaml}:9:9  $.steps[0].checks[0]`);
    expect(r.stdout).toContain('expected allow, got deny');
    expect(r.stdout).toContain('0 passed, 2 failed (1 file)');
  });
});

describe('authz test --shuffle', () => {
  it('replays the writes in N seeded orders, prints the seed, and the same seed gives the same run', async () => {
    const args = ['test', FIXTURE_CASES, '--shuffle', '3', '--seed', '4242'];
    const first = await authz(args);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('Shuffled: 3 random write orders per file, seed 4242 (replay: --shuffle 3 --seed 4242)');
    expect((await authz(args)).stdout).toBe(first.stdout);
    const json = JSON.parse((await authz([...args, '--json'])).stdout) as TestJson;
    expect(json).toMatchObject({ orders: 3, seed: 4242, failed: 0 });
  });

  it('finds answers that depend on the order of the writes: a type defined twice in one step', async () => {
    const file = join(dir, 'order.yaml');
    writeFileSync(file, [
      'name: two definitions of one type in a step',
      'definitions:',
      '  - { name: Doc, relations: { viewer: [User] }, permissions: { read: [] } }',
      '  - { name: Doc, relations: { viewer: [User] }, permissions: { read: [viewer] } }',
      'tuples: [User:a#viewer@Doc:1]',
      'checks:',
      '  - { subject: User:a, action: read, resource: Doc:1, expect: true }',
      '',
    ].join('\n'));
    // In the file's order the second definition holds and the check passes; some of 8 orders put the first last.
    expect((await authz(['test', file])).code).toBe(0);
    const r = await authz(['test', file, '--shuffle', '8', '--seed', '1']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/expected allow, got deny\n\s+only in shuffled order \d/);
    expect(r.stdout).toContain('0 passed, 1 failed (1 file)');
    expect((await authz(['validate', file])).stdout).toContain(`${file}:4:5: warning: Doc is defined twice in one step`);
  });

  it('a step that fixes a name and an arrow to it together passes in every order (arrows judged after the whole step)', async () => {
    const file = join(dir, 'fix-together.yaml');
    writeFileSync(file, [
      'name: a typo fixed with the arrow that needs the fix',
      'definitions:',
      '  - { name: Dok, relations: { viewer: [User] }, permissions: { viwe: [viewer] } }',
      '  - { name: Fold, relations: { parent: [Dok] }, permissions: { view: [] } }',
      'tuples: [User:a#viewer@Dok:1, Dok:1#parent@Fold:f]',
      'steps:',
      '  - op: define',
      '    definitions:',
      '      - { name: Fold, relations: { parent: [Dok] }, permissions: { view: [parent->view] } }',
      '      - { name: Dok, relations: { viewer: [User] }, permissions: { view: [viewer] } }',
      '    checks:',
      '      - { subject: User:a, action: view, resource: Fold:f, expect: true }',
      '',
    ].join('\n'));
    const r = await authz(['test', file, '--shuffle', '8', '--seed', '1']);
    expect(r.stdout).toContain('1 passed, 0 failed (1 file)');
    expect(r.code).toBe(0);
    expect((await authz(['validate', file])).code).toBe(0);
  });

  it('without --seed picks one and prints it', async () => {
    const r = await authz(['test', join(FIXTURE_CASES, 'delete-one-of-two-paths.json'), '--shuffle', '2']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/seed (\d+) \(replay: --shuffle 2 --seed \1\)/);
  });

  it('refuses a bad count and a seed without orders (exit 2)', async () => {
    for (const args of [['--shuffle', 'x'], ['--shuffle', '-1'], ['--seed', '7'], ['--shufle', '2']]) {
      const r = await authz(['test', FIXTURE_CASES, ...args]);
      expect([args, r.code]).toEqual([args, 2]);
      expect(r.stderr).toMatch(/^authz: /);
    }
  });
});

describe('authz validate', () => {
  it('reports each problem with file:line:col and its JSON path, and exits 1', async () => {
    const file = join(dir, 'problems.yaml');
    writeFileSync(file, [
      'definitions:', // 1
      '  - name: Doc', // 2
      '    relations: { viewer: [User, Usr] }', // 3
      '    permissions: { read: [viewer, viewr] }', // 4
      '  - name: Folder', // 5
      '    relations: { viewer: [User] }', // 6
      '    permissions: { view: [viewer] }', // 7
      'tuples:', // 8
      '  - User:a#viewer@Folder:1', // 9
      '  - User:a#owner@Folder:1', // 10
      'checks:', // 11
      '  - { subject: User:a, action: veiw, resource: Folder:1, expect: true }', // 12
      '  - { subject: User:a, action: edit, resource: Folder:1, expect: false }', // 13
      '',
    ].join('\n'));
    const r = await authz(['validate', file]);
    expect(r.code).toBe(1);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toEqual([
      `${file}:4:26: error: define Doc: the server refuses it (INVALID_DEFINITION): entry viewr: unknown relation or permission  ($.definitions[0].permissions.read)`,
      `${file}:10:5: error: write User:a#owner@Folder:1: the server refuses it (RELATION_NOT_DEFINED): Folder has no relation owner  ($.tuples[1])`,
      `${file}:12:5: error: Folder has no relation or permission veiw (did you mean view?)  ($.checks[0])`,
      `${file}:13:5: warning: Folder has no relation or permission edit  ($.checks[1])`,
      '3 errors, 1 warning in 1 file',
    ]);
  });

  it('refuses an arrow to a misspelt name no allowed type declares, and names the order of a reversed tuple', async () => {
    const file = join(dir, 'arrows.yaml');
    writeFileSync(file, [
      'definitions:', // 1
      '  - name: Folder', // 2
      '    relations: { viewer: [User], parent: [Folder] }', // 3
      '    permissions: { view: [viewer, parent->veiw] }', // 4
      '  - name: Doc', // 5
      '    relations: { owner: [User], drive: [Drive] }', // 6
      '    permissions: { view: [owner, drive->veiw] }', // 7
      'tuples:', // 8
      '  - Doc:d#owner@User:u', // 9
      '',
    ].join('\n'));
    const r = await authz(['validate', file]);
    expect(r.code).toBe(1);
    expect(r.stdout.trim().split('\n')).toEqual([
      `${file}:4:26: error: define Folder: the server refuses it (INVALID_DEFINITION): entry parent->veiw: no type parent allows (Folder) declares veiw (did you mean parent->view?)  ($.definitions[0].permissions.view)`,
      `${file}:9:5: error: write Doc:d#owner@User:u: the server refuses it (RELATION_NOT_DEFINED): User has no relation owner; subject and resource may be swapped: did you mean User:u#owner@Doc:d?  ($.tuples[0])`,
      // Drive is not defined: it may be defined later, so drive->veiw is no error (only its subject type is warned of).
      expect.stringContaining(`${file}:6:`),
      '2 errors, 1 warning in 1 file',
    ]);
  });

  it('names unknown fields and wrong kinds by path in JSON too', async () => {
    const file = join(dir, 'shape.json');
    writeFileSync(file, '{\n  "definitions": [],\n  "check": [],\n  "steps": [\n    { "op": "remove", "tuples": [] }\n  ]\n}\n');
    const r = await authz(['validate', file, '--json']);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as { errors: number; files: Array<{ problems: Array<{ at: string; location: string }> }> };
    expect(out.errors).toBe(2);
    expect(out.files[0]!.problems.map((p) => [p.at, p.location])).toEqual([['$.check', `${file}:3:12`], ['$.steps[0].op', `${file}:5:13`]]);
  });

  it('passes the example and the conformance set (warnings only: their deny checks on undefined names are deliberate)', async () => {
    expect((await authz(['validate', 'examples/docs.yaml'])).stdout).toBe('0 errors, 0 warnings in 1 file\n');
    const all = await authz(['validate', FIXTURE_CASES]);
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(/^0 errors, \d+ warnings in \d+ files$/m);
    expect((await authz(['validate', FIXTURE_CASES, '--strict'])).code).toBe(1);
  });

  it('a file that is not YAML or cannot be read exits 3 with its place', async () => {
    const file = join(dir, 'broken.yaml');
    writeFileSync(file, 'checks:\n  - { subject: User:a\n');
    const r = await authz(['validate', file, join(dir, 'missing.json')]);
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(new RegExp(`^${file.replace(/[.]/g, '\\.')}:\\d+:\\d+: not valid YAML`, 'm'));
    expect(r.stdout).toContain(`${join(dir, 'missing.json')}: cannot read: ENOENT`);
  });
});

describe('help and usage', () => {
  const commands = ['test', 'validate', 'login', 'logout', 'check', 'evaluate', 'relations write', 'relations delete', 'relations read', 'export', 'import', 'push', 'rebuild',
    'changes'];

  it('every command answers --help with its usage and flags (exit 0)', async () => {
    const top = await authz(['--help']);
    expect(top.code).toBe(0);
    for (const c of commands) expect(top.stdout).toContain(`  ${c} `);
    expect(top.stdout).toContain('Exit codes:');
    for (const c of commands) {
      const r = await authz([...c.split(' '), '--help']);
      expect([c, r.code]).toEqual([c, 0]);
      expect(r.stdout).toContain(`Usage:\n  authz ${c}`);
      expect(r.stdout).toContain('--json');
    }
  }, 120_000);

  it('an unknown command, a missing argument or no command at all is a usage error (exit 2)', async () => {
    for (const args of [['frobnicate'], ['relations'], ['test'], ['check', 'User:a'], ['push'], []]) {
      const r = await authz(args);
      expect([args, r.code]).toEqual([args, 2]);
    }
  });
});

describe('hostile files', () => {
  it('a YAML alias bomb ("billion laughs") is refused as bad input (exit 3), not expanded or crashed on', async () => {
    const file = join(dir, 'laughs.yaml');
    const levels = ['a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
    for (let i = 1; i < 9; i++) {
      const [prev, name] = [String.fromCharCode(96 + i), String.fromCharCode(97 + i)];
      levels.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(', ')}]`);
    }
    writeFileSync(file, `${levels.join('\n')}\n`);
    for (const command of ['test', 'validate']) {
      const r = await authz([command, file]);
      expect([command, r.code]).toEqual([command, 3]);
      expect(r.stdout).toContain(`${file}: not a usable YAML document: Excessive alias count`);
      expect(r.stderr).not.toContain('internal error');
    }
  });

  it('a key given twice in one object (the first list of checks would be dropped unseen) is refused with its place, in YAML and JSON', async () => {
    const yaml = join(dir, 'twice.yaml');
    writeFileSync(yaml, [
      'definitions:',
      '  - { name: Doc, relations: { viewer: [User] }, permissions: { read: [viewer] } }',
      'tuples: [User:a#viewer@Doc:1]',
      'checks:',
      '  - { subject: User:a, action: read, resource: Doc:1, expect: false }',
      'checks:',
      '  - { subject: User:a, action: read, resource: Doc:1, expect: true }',
      '',
    ].join('\n'));
    const y = await authz(['test', yaml]);
    expect(y.code).toBe(3);
    expect(y.stdout).toContain(`ERROR ${yaml}:6:1: not valid YAML: Map keys must be unique`);
    const json = join(dir, 'twice.json');
    writeFileSync(json,
      '{\n  "checks": [{ "subject": "User:a", "action": "read", "resource": "Doc:1", "expect": false }],\n  "steps": [{ "op": "add", "op": "delete" }],\n  "checks": []\n}\n');
    const j = await authz(['validate', json]);
    expect(j.code).toBe(3);
    expect(j.stdout).toContain(`${json}:3:28: the key "op" appears twice in one object (only the last would count)`);
  });

  it('a value nested 100,000 deep (inside an invalidTuples entry, which takes objects) is refused, not a stack overflow', async () => {
    const file = join(dir, 'deep.json');
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    writeFileSync(file, `{"invalidTuples": [{"subject": "User:a", "relation": "x", "resource": "Doc:1", "extra": ${deep}}]}`);
    for (const command of ['test', 'validate']) {
      const r = await authz([command, file]);
      expect([command, r.code]).toEqual([command, command === 'test' ? 3 : 1]);
      expect(r.stdout).toContain('nested more than 32 levels deep');
      expect(r.stderr).not.toContain('internal error');
    }
  });
});

describe('server URLs, refused or warned about before any request', () => {
  it('a URL holding a user name or password is a usage error that does not print it', async () => {
    const r = await authz(['check', 'User:a', 'read', 'Doc:1', '--url', 'http://ann:s3cret@127.0.0.1:1'], { env: { AUTHZ_TOKEN: 'az_x' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('authz: the server URL must not hold a user name or password: give the API token with --token, AUTHZ_TOKEN or authz login\n');
  });

  it('plain http to another machine is warned about (the token would cross the network unencrypted); loopback is not', async () => {
    const remote = await authz(['check', 'User:a', 'read', 'Doc:1', '--url', 'http://authz.invalid:3030', '--timeout', '5'], { env: { AUTHZ_TOKEN: 'az_x' } });
    expect(remote.code).toBe(6);
    expect(remote.stderr).toMatch(/^authz: warning: http:\/\/authz\.invalid:3030 is plain http: the token crosses the network unencrypted; use https:\/\/\n/);
    const local = await authz(['check', 'User:a', 'read', 'Doc:1', '--url', 'http://127.0.0.1:1'], { env: { AUTHZ_TOKEN: 'az_x' } });
    expect(local.code).toBe(6);
    expect(local.stderr).not.toContain('warning');
  });

  it('a profile file others can change is refused (exit 5): its URL could send the token elsewhere; one others can read is warned about', async () => {
    const config = mkdtempSync(join(tmpdir(), 'authz-cli-profile-'));
    const path = join(config, 'authz', 'profiles.json');
    mkdirSync(join(config, 'authz'));
    writeFileSync(path, JSON.stringify({ profiles: { default: { url: 'http://127.0.0.1:1', token: 'az_secret_token' } } }));
    chmodSync(path, 0o666);
    const writable = await authz(['check', 'User:a', 'read', 'Doc:1'], { env: { XDG_CONFIG_HOME: config } });
    expect(writable.code).toBe(5);
    expect(writable.stderr).toBe(
      `authz: ${path} can be changed by other users (mode 666), so its URL cannot be trusted with the token: run chmod 600 ${path} and check the URL in it\n`,
    );
    chmodSync(path, 0o644);
    const readable = await authz(['check', 'User:a', 'read', 'Doc:1'], { env: { XDG_CONFIG_HOME: config } });
    expect(readable.code).toBe(6);
    expect(readable.stderr).toMatch(new RegExp(`^authz: warning: ${path.replace(/[.]/g, '\\.')} can be read by other users; run chmod 600 `));
    expect(`${writable.stderr}${readable.stderr}`).not.toContain('az_secret_token');
    rmSync(config, { recursive: true, force: true });
  });
});
