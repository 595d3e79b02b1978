// The `authz` binary itself, as a child process: bin/authz.js loads the CLI, passes its exit code, reads piped stdin,
// and prints byte for byte what the in-process runs the other CLI tests use print.
import { authz, authzBin, type CliOptions } from '../support/cli.js';

/** The binary's run, checked to equal the in-process run of the same command line. */
async function both(args: string[], opts: CliOptions = {}) {
  const bin = await authzBin(args, opts);
  expect(await authz(args, opts)).toEqual(bin);
  return bin;
}

it('without a command prints the help on stderr and exits 2 (usage)', async () => {
  const r = await both([]);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(/^authz: model tests offline, and an authz-graph server from the command line\.\n[\s\S]* 70 {2}a bug in authz itself\n$/);
});

it('runs a model test from a path relative to its working directory and exits 0', async () => {
  const r = await both(['test', 'examples/docs.yaml']);
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/^PASS examples\/docs\.yaml \(\d+ assertions\)\n\n\d+ passed, 0 failed \(1 file\)\n$/);
  expect(r.stderr).toBe('');
});

it('reads tuples piped to stdin (--file -), refusing a malformed line before any request (exit 3)', async () => {
  const r = await both(['relations', 'write', '--file', '-'], {
    env: { AUTHZ_URL: 'http://127.0.0.1:1', AUTHZ_TOKEN: 'cdt_x' },
    input: 'User:a#viewer@Doc:1\n// a comment\nnot a tuple\n',
  });
  expect(r).toEqual({ code: 3, stdout: '', stderr: 'authz: stdin:3: not a tuple: not a tuple\n' });
});
