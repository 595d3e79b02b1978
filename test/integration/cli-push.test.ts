// `authz push`, run in-process, against the real service: the diff of a dry run (which changes nothing), a push, a
// second push that finds everything unchanged, a changed relation in the diff, refusals pointed into the file, and
// `authz import` sending a scenario file to push instead of answering "Line 1 is not JSON", built-in types kept unless --replace-builtin,
// and a reorder that is no change.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { authz, ROOT } from '../support/cli.js';
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
let env: Record<string, string>;
const work = mkdtempSync(join(tmpdir(), 'authz-push-'));
const EXAMPLE = 'examples/docs.yaml';
/** The example as data, to write changed copies of it. */
const example = () =>
  parse(readFileSync(join(ROOT, EXAMPLE), 'utf8')) as { definitions: Array<{ name: string; relations: Record<string, string[]>; permissions: Record<string, string[]> }>;
    tuples: string[] };
const write = (name: string, value: unknown) => {
  const file = join(work, name);
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
  return file;
};
const definition = async (name: string) => svc.http('GET', `/authorization/resources/${name}`);

beforeAll(async () => {
  svc = await startService();
  const created = await svc.http('POST', '/api-tokens', { body: { name: 'push test' } });
  expect(created.status).toBe(201);
  env = { AUTHZ_URL: svc.admin, AUTHZ_TOKEN: created.body.token as string, XDG_CONFIG_HOME: work };
}, 120_000);
afterAll(async () => {
  await svc?.stop();
  rmSync(work, { recursive: true, force: true });
});

it('a dry run shows the diff and changes nothing; a push writes it; the same push again is all unchanged', async () => {
  const dry = await authz(['push', EXAMPLE, '--tuples', '--dry-run'], { env });
  expect(dry.stderr).toBe(`authz: ${EXAMPLE}: its 1 step and the assertions are not pushed, only its initial content\n`);
  expect(dry.code).toBe(0);
  expect(dry.stdout).toBe([
    'Folder: created',
    '  + relation parent: [Folder]',
    '  + relation viewer: [User, Team]',
    '  + permission view: [viewer, viewer->read, parent->view]',
    'Document: created',
    '  + relation editor: [User, Team]',
    '  + relation folder: [Folder]',
    '  + relation owner: [User]',
    '  + permission edit: [owner, editor, editor->read]',
    '  + permission read: [edit, folder->view]',
    'tuples: 6 to create, 0 stored already',
    'Dry run: nothing changed (push without --dry-run to apply)',
    '',
  ].join('\n'));
  expect((await definition('Folder')).status).toBe(404);
  expect((await svc.http('GET', '/authorization/relations?consistency=fully_consistent')).body.count).toBe(0);

  const pushed = await authz(['push', EXAMPLE, '--tuples'], { env });
  expect(pushed.code).toBe(0);
  const revision = Number(/^Pushed \(revision (\d+)\): definitions 2 created, 0 changed, 0 unchanged; tuples 6 created, 0 stored already$/m.exec(pushed.stdout)?.[1]);
  expect(revision).toBeGreaterThan(0);
  expect((await definition('Document')).body.relations).toEqual(example().definitions[1]!.relations);
  const can = await svc.http('GET',
    `/authorization/permissions/can?subject=User:carol&permission=read&resource=Document:roadmap&consistency=at_least_as_fresh&revision=${revision}`);
  expect(can.body.allowed).toBe(true);

  const again = await authz(['push', EXAMPLE, '--tuples'], { env });
  expect(again.code).toBe(0);
  expect(again.stdout).toBe(
    `unchanged: Folder, Document\ntuples: 0 to create, 6 stored already\nNothing to push (revision ${revision}): definitions 0 created, 0 changed, 2 unchanged; tuples 0 created, 6 stored already\n`,
  );
  const json = JSON.parse((await authz(['push', EXAMPLE, '--json'], { env })).stdout);
  expect(json.definitions).toEqual([{ name: 'Folder', status: 'unchanged', changes: [] }, { name: 'Document', status: 'unchanged', changes: [] }]);
  expect(json.revision).toBe(revision);
}, 120_000);

it('shows a changed relation and permission in the diff, and applies them only without --dry-run', async () => {
  const model = example();
  model.definitions[1]!.relations.editor = ['User'];
  model.definitions[1]!.permissions.comment = ['editor'];
  const file = write('changed.json', model);
  const dry = await authz(['push', file, '--dry-run', '--json'], { env });
  expect(dry.code).toBe(0);
  expect(JSON.parse(dry.stdout).definitions[1]).toEqual({ name: 'Document', status: 'changed', changes: [
    { kind: 'relation', name: 'editor', op: 'change', before: ['User', 'Team'], after: ['User'] },
    { kind: 'permission', name: 'comment', op: 'add', after: ['editor'] },
  ] });
  const text = await authz(['push', file, '--dry-run'], { env });
  expect(text.stdout).toBe('Document: changed\n  ~ relation editor: [User, Team] -> [User]\n  + permission comment: [editor]\nunchanged: Folder\n'
    + 'Dry run: nothing changed (push without --dry-run to apply)\n');
  expect((await definition('Document')).body.relations.editor).toEqual(['User', 'Team']);

  const pushed = await authz(['push', file], { env });
  expect(pushed.code).toBe(0);
  expect(pushed.stdout).toMatch(/^Pushed \(revision \d+\): definitions 0 created, 1 changed, 1 unchanged$/m);
  expect((await definition('Document')).body).toMatchObject({ relations: { editor: ['User'] }, permissions: { comment: ['editor'] } });
}, 120_000);

it('points a refusal at the line of the file; nothing is pushed', async () => {
  const model = example();
  model.definitions.push({ name: 'Extra', relations: { viewer: ['User'] }, permissions: {} });
  model.tuples.push('User:x#nope@Folder:plans');
  const file = write('refused.json', model);
  const lineOf = (text: string) => readFileSync(file, 'utf8').split('\n').findIndex((l) => l.includes(text)) + 1;
  const r = await authz(['push', file, '--tuples'], { env });
  expect(r.code).toBe(4);
  expect(r.stderr).toContain('422 RELATION_NOT_DEFINED');
  expect(r.stderr).toContain(`${file}:${lineOf('User:x#nope@Folder:plans')}:`);
  expect((await definition('Extra')).status).toBe(404);

  // The definition an authorization-enabled schema registered is not replaced by a file's type of the same name.
  const schema = { name: 'Note', fields: { title: 'String' }, serviceOptions: { authorization: { enabled: true } } };
  expect((await svc.http('POST', '/database/schemas', { body: schema })).status).toBe(201);
  const clash = write('clash.json', { definitions: [{ name: 'Note', relations: { viewer: ['User'] }, permissions: {} }] });
  const refused = await authz(['push', clash, '--dry-run'], { env });
  expect(refused.code).toBe(4);
  expect(refused.stderr).toContain('409 SCHEMA_DEFINITION');
  expect(refused.stderr).toContain(`${clash}:3:5: `);
  expect(refused.stderr).toContain('schema Note registered this definition');
}, 120_000);

it('authz import sends a scenario file to authz push instead of failing on its first line', async () => {
  const yaml = await authz(['import', EXAMPLE, '--dry-run'], { env });
  expect(yaml.code).toBe(3);
  expect(yaml.stderr).toBe(`authz: ${EXAMPLE}: authz import reads a state export (NDJSON or JSON, as authz export writes it), not YAML.\n`
    + `A scenario file (the format authz test reads) is pushed with: authz push ${EXAMPLE} [--tuples] [--dry-run]\n`);
  const file = write('scenario.json', example());
  const json = await authz(['import', file, '--dry-run'], { env });
  expect(json.code).toBe(4);
  expect(json.stderr).toContain(`${file} is a scenario file, not a state export. A scenario file (the format authz test reads) is pushed with: authz push ${file}`);
}, 60_000);

it('refuses a file that redefines a built-in or module type unless --replace-builtin is given', async () => {
  const before = (await definition('Team')).body;
  const file = write('team.json', { definitions: [{ name: 'Team', relations: { member: ['User'] }, permissions: { read: ['member'] } }] });
  for (const args of [['--dry-run'], []]) {
    const r = await authz(['push', file, ...args], { env });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('409 MODULE_DEFINITION');
    expect(r.stderr).toContain(`${file}:3:5: Team: the teams module's resource type`);
    expect(r.stderr).toContain('authz push --replace-builtin');
  }
  expect((await definition('Team')).body).toEqual(before);

  const forced = await authz(['push', file, '--replace-builtin'], { env });
  expect(forced.code).toBe(0);
  expect(forced.stdout).toMatch(/^Pushed \(revision \d+\): definitions 0 created, 1 changed, 0 unchanged$/m);
  expect((await definition('Team')).body).toMatchObject({ relations: { member: ['User'] }, permissions: { read: ['member'] } });
  // Put back as it was (a version makes the replacement knowing), for the tests that follow.
  const team = (await definition('Team')).body;
  const restored = { name: 'Team', relations: before.relations, permissions: before.permissions, version: team.version + 1 };
  expect((await svc.http('POST', '/authorization/resources', { body: restored })).status).toBe(200);
}, 120_000);

it('a definition differing only in the order of its allowed types and entries is unchanged, in the diff and on the server', async () => {
  const model = example();
  expect((await authz(['push', write('ordered.json', model)], { env })).code).toBe(0);
  const reverse = (m: Record<string, string[]>) => Object.fromEntries(Object.entries(m).reverse().map(([k, v]) => [k, [...v].reverse()]));
  for (const d of model.definitions) {
    d.relations = reverse(d.relations);
    d.permissions = reverse(d.permissions);
  }
  const r = await authz(['push', write('reordered.json', model)], { env });
  expect(r.code).toBe(0);
  expect(r.stdout).not.toMatch(/: changed$/m);
  expect(r.stdout).toMatch(/^unchanged: Folder, Document$/m);
  expect(r.stdout).toMatch(/^Nothing to push \(revision \d+\): definitions 0 created, 0 changed, 2 unchanged$/m);
}, 120_000);
