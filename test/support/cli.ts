// Runs the `authz` command for tests: in this process on in-memory streams (authz), or as a user does, a child process
// on bin/authz.js (authzBin: the smoke test of the binary itself, test/unit/cli-bin.test.ts).
import { spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = resolve(ROOT, 'bin/authz.js');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}
/**
 * `env` is added to a clean environment (PATH and HOME only, so no AUTHZ_* or profile of the machine leaks in);
 * `input` is all of stdin; `onStderr` sees stderr so far as it arrives (to act once a follower has started).
 */
export interface CliOptions {
  env?: Record<string, string>;
  input?: string;
  cwd?: string;
  onStderr?: (text: string) => void;
}

const cleanEnv = (env: Record<string, string> = {}) => ({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env });

/** A stream that keeps what is written to it; `seen` is called with the text so far after each write. */
function collector(seen?: (text: string) => void) {
  const decoder = new StringDecoder('utf8');
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += decoder.write(chunk);
      seen?.(text);
      done();
    },
  });
  return {
    stream,
    /** Everything written, once the stream has taken it all. */
    text: () =>
      new Promise<string>((done, fail) => {
        stream.once('error', fail);
        stream.end(() => done(text + decoder.end()));
      }),
  };
}

/**
 * The CLI's main() in this process, as the binary would run it: the same exit code, stdout and stderr, without a
 * process start and tsx's compile per run. Ctrl-C is not delivered (no test sends one).
 */
export async function authz(args: string[], opts: CliOptions = {}): Promise<CliRun> {
  const stdout = collector();
  const stderr = collector(opts.onStderr);
  const code = await main({
    argv: args,
    env: cleanEnv(opts.env),
    cwd: opts.cwd ?? ROOT,
    stdin: Readable.from(opts.input ? [Buffer.from(opts.input)] : []),
    stdout: stdout.stream,
    stderr: stderr.stream,
    onInterrupt: () => () => undefined,
  });
  return { code, stdout: await stdout.text(), stderr: await stderr.text() };
}

/** The same, as a child process on bin/authz.js with its own environment and stdin. */
export function authzBin(args: string[], opts: CliOptions = {}): Promise<CliRun> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: opts.cwd ?? ROOT, env: cleanEnv(opts.env), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d;
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d;
      opts.onStderr?.(stderr);
    });
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
    child.stdin.end(opts.input ?? '');
  });
}
