// The server-facing `authz` commands, run in-process (test/support/cli.ts), against the real service: login, check,
// evaluate, relations write/read/delete, export then import, rebuild, the change feed followed, a refused batch, a redirect.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { authz as run, type CliRun } from '../support/cli.js';
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
let token: string;
const config = mkdtempSync(join(tmpdir(), 'authz-cli-config-'));
const work = mkdtempSync(join(tmpdir(), 'authz-cli-work-'));
const runs: CliRun[] = [];
/** Every run is kept, to check at the end that the token was never printed. */
const authz = async (args: string[], opts: Parameters<typeof run>[1] = {}) => {
  const r = await run(args, { ...opts, env: { XDG_CONFIG_HOME: config, ...opts.env } });
  runs.push(r);
  return r;
};
/** The server from the environment, as CI would pass it. */
const env = () => ({ AUTHZ_URL: svc.admin, AUTHZ_TOKEN: token });

beforeAll(async () => {
  svc = await startService();
  const doc = { name: 'Doc', relations: { viewer: ['User', 'Team'] }, permissions: { read: ['viewer', 'viewer->read'] } };
  expect((await svc.http('POST', '/authorization/resources', { body: doc })).status).toBe(200);
  const created = await svc.http('POST', '/api-tokens', { body: { name: 'cli test' } });
  expect(created.status).toBe(201);
  token = created.body.token;
});
afterAll(async () => {
  await svc?.stop();
});

describe('login', () => {
  it('tries the token, saves URL and token in a 0600 profile, and later commands use it', async () => {
    const r = await authz(['login', '--url', svc.admin], { input: `${token}\n` });
    expect(r.code).toBe(0);
    const path = join(config, 'authz', 'profiles.json');
    expect(r.stdout).toBe(`Logged in to ${svc.admin}; profile "default" saved in ${path}\n`);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ profiles: { default: { url: svc.admin, token } } });
    // No flag, no environment: the profile answers.
    expect((await authz(['check', 'User:nobody', 'read', 'Doc:none'])).stdout).toBe('deny  User:nobody read Doc:none\n');
    expect((await authz(['check', 'User:nobody', 'read', 'Doc:none', '--url', `${svc.admin}/`])).code).toBe(1);
    // Its token is never sent to another server.
    const other = await authz(['check', 'User:nobody', 'read', 'Doc:none', '--url', 'http://127.0.0.1:1']);
    expect(other.code).toBe(5);
    expect(other.stderr).toBe(`authz: no API token for http://127.0.0.1:1 (the profile's token is for ${svc.admin} only): pass --token, set AUTHZ_TOKEN, or run authz login\n`);
  });

  it('a refused token is not saved (exit 5); logout removes a profile', async () => {
    const bad = await authz(['login', '--url', svc.admin, '--profile', 'bad'], { input: 'az_notatoken\n' });
    expect(bad.code).toBe(5);
    expect(bad.stderr).toMatch(/^authz: GET \/authorization\/indexer\/status: 401 UNAUTHENTICATED/);
    expect(JSON.parse(readFileSync(join(config, 'authz', 'profiles.json'), 'utf8')).profiles.bad).toBeUndefined();
    expect((await authz(['login', '--url', svc.admin, '--profile', 'spare'], { input: token })).code).toBe(0);
    expect((await authz(['logout', '--profile', 'spare'])).code).toBe(0);
    expect((await authz(['logout', '--profile', 'spare'])).code).toBe(1);
    expect(Object.keys(JSON.parse(readFileSync(join(config, 'authz', 'profiles.json'), 'utf8')).profiles)).toEqual(['default']);
  });

  it('says what to do with the client surface URL or the masterkey, and its help names the admin surface', async () => {
    const client = await authz(['login', '--url', svc.client, '--profile', 'wrong'], { input: `${token}\n` });
    expect(client.code).toBe(4);
    expect(client.stderr).toContain(`${svc.client} has no admin routes: is it the client surface? Log in to the admin surface (http://127.0.0.1:3030 under npm start)`);
    const key = await authz(['login', '--url', svc.admin, '--profile', 'wrong'], { input: `${svc.config.MASTER_KEY}\n` });
    expect(key.code).toBe(5);
    expect(key.stderr).toContain(`authz takes an API token (cdt_…), not the masterkey or a password: create one with curl -XPOST ${svc.admin}/api-tokens`);
    expect(key.stderr).not.toContain(svc.config.MASTER_KEY);
    const help = await authz(['login', '--help']);
    expect(help.stdout).toContain('authz login --url http://127.0.0.1:3030');
    expect(help.stdout).not.toMatch(/--url \S*:3000/);
    expect(JSON.parse(readFileSync(join(config, 'authz', 'profiles.json'), 'utf8')).profiles.wrong).toBeUndefined();
  });
});

describe('relations, check and evaluate', () => {
  const tuples = ['User:a#member@Team:t', 'Team:t#viewer@Doc:1', 'User:b#viewer@Doc:2'];

  it('writes tuples (a repeat finds them existing) and reads them back page by page', async () => {
    const w = await authz(['relations', 'write', ...tuples], { env: env() });
    expect(w.code).toBe(0);
    expect(w.stdout).toMatch(/^created 3, existing 0 \(revision \d+\)\n$/);
    const again = await authz(['relations', 'write', '--json', ...tuples], { env: env() });
    expect(JSON.parse(again.stdout)).toMatchObject({ created: 0, existing: 3 });
    // The list is read from the index, which a batch write reaches after its answer: the revision waits for it.
    const { revision } = JSON.parse(again.stdout) as { revision: number };

    const all = await authz(['relations', 'read', '--page-size', '1', '--search', ':', '--resource-type', 'Doc', '--revision', String(revision)], { env: env() });
    expect(all.code).toBe(0);
    expect(all.stdout.trim().split('\n')).toEqual(['Team:t#viewer@Doc:1', 'User:b#viewer@Doc:2']);
    expect(all.stderr).toBe('tuples 1-2 of 2\n');
    const page = await authz(['relations', 'read', '--limit', '1', '--skip', '1', '--resource-type', 'Doc', '--json'], { env: env() });
    expect(page.stdout.trim().split('\n').map((l) => JSON.parse(l).computedTuple)).toEqual(['User:b#viewer@Doc:2']);
    expect(page.stderr).toBe('tuples 2-2 of 2\n');
    const first = await authz(['relations', 'read', '--limit', '1', '--resource-type', 'Doc'], { env: env() });
    expect(first.stderr).toBe('tuples 1-1 of 2; more: --skip 1\n');
  });

  it('check exits 0 on allow and 1 on deny, or as --expect asks', async () => {
    const allow = await authz(['check', 'User:a', 'read', 'Doc:1'], { env: env() });
    expect([allow.code, allow.stdout]).toEqual([0, 'allow  User:a read Doc:1\n']);
    const deny = await authz(['check', 'User:a#read@Doc:2', '--json'], { env: env() });
    expect(deny.code).toBe(1);
    expect(JSON.parse(deny.stdout)).toEqual({ allowed: false, subject: 'User:a', permission: 'read', resource: 'Doc:2' });
    expect((await authz(['check', 'User:a', 'read', 'Doc:2', '--expect', 'deny'], { env: env() })).code).toBe(0);
    expect((await authz(['check', 'User:a', 'read', 'Doc:1', '--expect', 'deny', '--consistency', 'fully_consistent'], { env: env() })).code).toBe(1);
    expect((await authz(['check', 'User:a', 'read', 'Doc:1', '--expect', 'maybe'], { env: env() })).code).toBe(2);
  });

  it('evaluate shows the path of stored tuples', async () => {
    const r = await authz(['evaluate', 'User:a', 'read', 'Doc:1'], { env: env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('allow  User:a read Doc:1\n  path:\n    1. User:a#member@Team:t\n    2. Team:t#viewer@Doc:1\n');
    const json = JSON.parse((await authz(['evaluate', 'User:a', 'read', 'Doc:1', '--json'], { env: env() })).stdout);
    expect(json).toMatchObject({ allowed: true, paths: ['User:a#member@Team:t', 'Team:t#viewer@Doc:1'] });
    expect((await authz(['evaluate', 'User:b', 'read', 'Doc:1'], { env: env() })).code).toBe(1);
  });

  it('deletes tuples, from arguments or stdin, and the decision follows', async () => {
    const r = await authz(['relations', 'delete', '--file', '-'], { env: env(), input: 'Team:t#viewer@Doc:1\n{"subject":"User:x","relation":"viewer","resource":"Doc:9"}\n' });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^deleted 1, missing 1 \(revision \d+\)\n$/);
    expect((await authz(['check', 'User:a', 'read', 'Doc:1'], { env: env() })).code).toBe(1);
    expect((await authz(['relations', 'write', 'Team:t#viewer@Doc:1'], { env: env() })).code).toBe(0);
  });

  it('errors have their own exit codes: refused 4, bad token 5, unreachable 6, bad input 2 and 3', async () => {
    const refused = await authz(['relations', 'write', 'User:a#viewer@Nope:1'], { env: env() });
    expect(refused.code).toBe(4);
    expect(refused.stderr).toMatch(/^authz: POST \/authorization\/relations\/write: 422 UNKNOWN_TYPE: /);
    const badToken = await authz(['check', 'User:a', 'read', 'Doc:1'], { env: { AUTHZ_URL: svc.admin, AUTHZ_TOKEN: 'az_wrong' } });
    expect(badToken.code).toBe(5);
    const down = await authz(['check', 'User:a', 'read', 'Doc:1', '--url', 'http://127.0.0.1:1', '--json'], { env: env() });
    expect(down.code).toBe(6);
    expect(JSON.parse(down.stderr).error).toMatchObject({ exit: 6, message: expect.stringContaining('cannot reach http://127.0.0.1:1') });
    expect((await authz(['relations', 'write', 'not-a-tuple'], { env: env() })).code).toBe(2);
    expect((await authz(['relations', 'write', '--file', join(work, 'missing.txt')], { env: env() })).code).toBe(3);
  });
});

describe('export and import', () => {
  it('round-trips: export, delete the tuples, import (dry run first), and they are back', async () => {
    const file = join(work, 'state.ndjson');
    const exported = await authz(['export', file], { env: env() });
    expect(exported.code).toBe(0);
    expect(exported.stderr).toMatch(/^export: \d+ lines in \d+\.\d s \([\d,]+ lines\/s\) to /m);
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ version: 1, carries: ['relations', 'grants'] });
    expect(lines.at(-1)).toEqual({ end: { relations: 3, grants: 0 } });
    const stored = lines.slice(1, -1).map((t) => `${t.subject}#${t.relation}@${t.resource}`).sort();
    expect(stored).toEqual(['Team:t#viewer@Doc:1', 'User:a#member@Team:t', 'User:b#viewer@Doc:2']);

    expect((await authz(['relations', 'delete', ...stored], { env: env() })).stdout).toMatch(/^deleted 3, missing 0/);
    const dry = await authz(['import', file, '--dry-run', '--json'], { env: env() });
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ dryRun: true, relations: { created: 3, existing: 0 } });
    expect((await authz(['check', 'User:a', 'read', 'Doc:1'], { env: env() })).code).toBe(1);

    const imported = await authz(['import', file], { env: env() });
    expect(imported.code).toBe(0);
    expect(imported.stderr).toMatch(new RegExp(`^import: ${lines.length} lines in \\d+\\.\\d s \\([\\d,]+ lines/s\\) sent; waiting for the server$`, 'm'));
    expect(imported.stdout).toMatch(/^Imported at revision \d+\n[\s\S]*\n {2}relations: created 3, existing 0, removed 0\n/);
    const back = await authz(['relations', 'read', '--consistency', 'fully_consistent'], { env: env() });
    expect(back.stdout.trim().split('\n').filter((t) => stored.includes(t))).toEqual(stored);
    expect((await authz(['check', 'User:a', 'read', 'Doc:1', '--consistency', 'fully_consistent'], { env: env() })).code).toBe(0);
    // The same file again changes nothing.
    expect(JSON.parse((await authz(['import', file, '--json'], { env: env() })).stdout)).toMatchObject({ relations: { created: 0, existing: 3 } });
  });

  it('to stdout with --json, the export is the whole output (no summary line appended to it)', async () => {
    const r = await authz(['export', '--json'], { env: env() });
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ version: 1 });
    expect(lines.at(-1)).toEqual({ end: { relations: lines.length - 2, grants: 0 } });
  });

  it('a document the server refuses changes nothing and exits 4', async () => {
    const r = await authz(['import', '-', '--format', 'json'], { env: env(), input: JSON.stringify({ version: 2 }) });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^authz: POST \/state\/import: 400/m);
  });

  it('a refused NDJSON import names each bad line as FILE:LINE', async () => {
    const file = join(work, 'state.ndjson');
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    const bad = join(work, 'bad.ndjson');
    writeFileSync(bad, [lines[0], 'not json', '{"subject":"User:z","relation":"viewer","resource":"Nope:1"}', ...lines.slice(1)].join('\n'));
    const r = await authz(['import', bad], { env: env() });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(new RegExp(`^authz: POST /state/import: \\d+ \\w+: Some lines are not valid; nothing was imported\n${bad}:2: .+\n${bad}:3: .+\n$`, 'm'));
  });
});

describe('rebuild', () => {
  it('starts a hard rebuild and waits until the new generation is in use', async () => {
    const r = await authz(['rebuild'], { env: env() });
    expect(r.code).toBe(0);
    const [, before, after] = /^rebuild done in \d+\.\d s \(generation (\d+) -> (\d+)\)\n$/.exec(r.stdout) ?? [];
    expect(Number(after)).toBe(Number(before) + 1);
    expect(r.stderr).toMatch(/^rebuild \(hard\) requested at revision \d+$/m);
    expect((await authz(['check', 'User:a', 'read', 'Doc:1'], { env: env() })).code).toBe(0);
  });

  it('--soft keeps the generation', async () => {
    const r = await authz(['rebuild', '--soft', '--json'], { env: env() });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ done: true });
    expect(out.generation).toBe(out.generationBefore);
  });
});

describe('changes', () => {
  it('lists the feed from a revision, with the cursor that reads on', async () => {
    const r = await authz(['changes', '--after', '0', '--limit', '1000'], { env: env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\d+ relation create User:a#member@Team:t$/m);
    expect(r.stdout).toMatch(/^\d+ definition create Doc$/m);
    expect(r.stderr).toMatch(/^\d+ changes; read on with --after \d+$/m);
  });

  it('--follow receives a change made after it started', async () => {
    let wrote = false;
    const follower = authz(['changes', '--follow', '--max', '1', '--json'], {
      env: env(),
      onStderr: (text) => {
        if (wrote || !text.includes('following changes after revision')) return;
        wrote = true;
        void svc.http('POST', '/authorization/relations', { body: { subject: 'User:late', relation: 'viewer', resource: 'Doc:3' } });
      },
    });
    const r = await follower;
    expect(wrote).toBe(true);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ kind: 'relation', op: 'create', tuple: 'User:late#viewer@Doc:3' });
  });
});

describe('partial failures and redirects', () => {
  it('a refused batch after written ones exits 4 and says how many were written and which were not', async () => {
    const file = join(work, 'many.txt');
    const good = Array.from({ length: 1000 }, (_, i) => `User:p${i}#viewer@Doc:partial`);
    writeFileSync(file, [...good, 'User:p#viewer@Nope:1', 'User:q#viewer@Doc:partial'].join('\n'));
    const r = await authz(['relations', 'write', '--file', file, '--json'], { env: env() });
    expect(r.code).toBe(4);
    const { error } = JSON.parse(r.stderr.trim().split('\n').at(-1)!) as {
      error: { message: string; details: { applied: { created: number; revision: number; tuples: number }; notApplied: number } };
    };
    expect(error.message).toMatch(
      /^POST \/authorization\/relations\/write: 422 UNKNOWN_TYPE: [^\n]+\nthe 1,000 tuples before this batch \(batches 1-1\) were written \(revision \d+\); tuples 1,001-1,002 were not$/,
    );
    expect(error.details).toMatchObject({ applied: { created: 1000, tuples: 1000 }, notApplied: 2 });
    const read = await authz(['relations', 'read', '--search', '@Doc:partial', '--limit', '1', '--revision', String(error.details.applied.revision)], { env: env() });
    expect(read.stderr).toBe('tuples 1-1 of 1,000; more: --skip 1\n');
  });

  it('a redirect is not followed (a 302 would turn the write into a GET): exit 2, naming where it points', async () => {
    const seen: string[] = [];
    const redirector = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.writeHead(302, { location: `${svc.admin}${req.url}` });
      res.end();
    });
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}`;
      const r = await authz(['relations', 'write', 'User:moved#viewer@Doc:redirected', '--url', url], { env: env() });
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        `authz: POST /authorization/relations/write: the server answers 302, a redirect to ${svc.admin}/authorization/relations/write; authz does not follow redirects: give the server's own URL (--url, AUTHZ_URL or authz login)\n`,
      );
      expect(seen).toEqual(['POST /authorization/relations/write']);
      expect((await svc.http('GET', '/authorization/relations?search=User:moved&consistency=fully_consistent')).body.count).toBe(0);
    } finally {
      await new Promise((resolve) => redirector.close(resolve));
    }
  });
});

afterAll(() => {
  for (const d of [config, work]) rmSync(d, { recursive: true, force: true });
  // The token went in through stdin, the environment and the profile: no run printed it.
  for (const r of runs) expect(`${r.stdout}${r.stderr}`).not.toContain(token);
  expect(runs.length).toBeGreaterThan(20);
});
